package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.model.TlsFacts;
import dev.schedulerops.operator.tls.CertificateIssuer;
import dev.schedulerops.operator.tls.Pem;
import dev.schedulerops.operator.tls.ProfileCertificates;
import dev.schedulerops.operator.tls.RotationPolicy;
import dev.schedulerops.operator.tls.TlsMaterial;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a profile's three TLS Secrets (CA, extender serving, scheduler client) current, before stage 1: observes them
 * in the label-selected Secret informer (only the operator's own Secrets are cached), lets {@link RotationPolicy}
 * decide, writes the result, and returns the hashes the renderer stamps on the pod templates so that new material
 * rolls the extender and then the scheduler. A refused write is thrown as {@link Refused}.
 */
final class ProfileTls {
    private static final Logger LOG = LoggerFactory.getLogger(ProfileTls.class);

    private final ResourceApplier applier;
    private final OwnedInformers informers;
    private final ProfileEvents events;
    private final CertificateIssuer issuer;
    private final Clock clock;
    private final ProfileMetrics metrics;
    /** Reads a Secret from the API server, not the cache (null when absent). */
    private final BiFunction<String, String, Secret> liveSecrets;

    ProfileTls(
            ResourceApplier applier,
            OwnedInformers informers,
            BiFunction<String, String, Secret> liveSecrets,
            ProfileEvents events,
            CertificateIssuer issuer,
            Clock clock,
            ProfileMetrics metrics) {
        this.applier = applier;
        this.informers = informers;
        this.liveSecrets = liveSecrets;
        this.events = events;
        this.issuer = issuer;
        this.clock = clock;
        this.metrics = metrics;
    }

    /**
     * Ensures the Secrets for {@code p} exist and are current; TlsFacts.NONE when TLS is Disabled (existing Secrets
     * are left to the profile's garbage collection).
     */
    TlsFacts ensure(
            SchedulerProfile profile, ResolvedProfile p, Deployment observedExtender, Deployment observedScheduler) {
        if (!p.tls().enabled()) {
            metrics.certificates(p.names().profile(), Map.of());
            return TlsFacts.NONE;
        }
        Names names = p.names();
        String requested = profile.getSpec() == null
                        || profile.getSpec().getExtender() == null
                        || profile.getSpec().getExtender().getTls() == null
                ? null
                : profile.getSpec().getExtender().getTls().getRotate();
        Instant now = clock.instant();
        Decision decision = decide(p, requested, this::cached, observedExtender, observedScheduler, now);
        if (decision.action() == RotationPolicy.Action.ISSUE_ALL) {
            // A new CA without overlap is decided on the API server's copies only: the cache can be empty (JOSDK
            // clears it while it stops), and replacing a CA the running pods trust would stop every extender call.
            decision = decide(p, requested, this::live, observedExtender, observedScheduler, now);
        }
        RotationPolicy.Action action = decision.action();
        TlsMaterial material = ProfileCertificates.apply(action, decision.existing(), names, p.tls(), issuer, now);
        String rotatedFor = action == RotationPolicy.Action.ISSUE_ALL || action == RotationPolicy.Action.ROTATE_CA
                ? requested
                : decision.rotatedFor();
        if (action != RotationPolicy.Action.KEEP) {
            LOG.info("TLS of {}: {}", names.profile(), action);
            events.normal(profile, "Certificates", message(action, material));
        }

        Map<String, String> newExtenderData = material.extenderSecretData();
        Map<String, String> newSchedulerData = material.schedulerSecretData(p.tls());
        Map<String, String> caAnnotations = rotatedFor == null ? null : Map.of(Labels.ROTATED_FOR, rotatedFor);
        apply(profile, secret(p, names.caSecret(), Labels.COMPONENT_EXTENDER, material.caSecretData(), caAnnotations));
        apply(profile, secret(p, names.extenderTlsSecret(), Labels.COMPONENT_EXTENDER, newExtenderData, null));
        apply(profile, secret(p, names.schedulerClientSecret(), Labels.COMPONENT_SCHEDULER, newSchedulerData, null));
        metrics.certificates(names.profile(), notAfter(material));
        return new TlsFacts(hash(newExtenderData), hash(newSchedulerData));
    }

    /** What the Secrets hold and what the policy makes of it. */
    private record Decision(ProfileCertificates.Existing existing, RotationPolicy.Action action, String rotatedFor) {}

    private static Decision decide(
            ResolvedProfile p,
            String requested,
            BiFunction<String, String, Secret> secrets,
            Deployment observedExtender,
            Deployment observedScheduler,
            Instant now) {
        Names names = p.names();
        Secret caSecret = secrets.apply(names.caSecret(), names.namespace());
        Map<String, String> extenderData = decode(secrets.apply(names.extenderTlsSecret(), names.namespace()));
        Map<String, String> schedulerData = decode(secrets.apply(names.schedulerClientSecret(), names.namespace()));
        String rotatedFor =
                caSecret == null ? null : annotation(caSecret.getMetadata().getAnnotations(), Labels.ROTATED_FOR);
        boolean rotationRequested = requested != null && !requested.equals(rotatedFor);
        boolean rolledOut = runs(observedExtender, hash(extenderData)) && runs(observedScheduler, hash(schedulerData));
        ProfileCertificates.Existing existing =
                ProfileCertificates.read(decode(caSecret), extenderData, schedulerData, names);
        RotationPolicy.Action action = RotationPolicy.decide(
                ProfileCertificates.observe(existing, p.tls(), rotationRequested, rolledOut), now);
        return new Decision(existing, action, rotatedFor);
    }

    /**
     * When each certificate the Secrets now hold expires: {@code ca}, {@code extender-serving} and, in mode Mutual,
     * {@code scheduler-client}. A certificate that cannot be read is left out (the policy replaces it anyway).
     */
    static Map<String, Instant> notAfter(TlsMaterial material) {
        Map<String, Instant> expiries = new TreeMap<>();
        notAfter(material.caCert()).ifPresent(t -> expiries.put(CERTIFICATE_CA, t));
        notAfter(material.servingCert()).ifPresent(t -> expiries.put(CERTIFICATE_EXTENDER_SERVING, t));
        notAfter(material.clientCert()).ifPresent(t -> expiries.put(CERTIFICATE_SCHEDULER_CLIENT, t));
        return expiries;
    }

    static final String CERTIFICATE_CA = "ca";
    static final String CERTIFICATE_EXTENDER_SERVING = "extender-serving";
    static final String CERTIFICATE_SCHEDULER_CLIENT = "scheduler-client";

    private static java.util.Optional<Instant> notAfter(String pem) {
        if (pem == null) {
            return java.util.Optional.empty();
        }
        try {
            return Pem.parseCertificates(pem).stream().findFirst().map(c -> c.getNotAfter()
                    .toInstant());
        } catch (java.security.cert.CertificateException e) {
            return java.util.Optional.empty();
        }
    }

    /** A Secret the API server refused; the reconciler records it like any refused apply. */
    static final class Refused extends RuntimeException {
        private final transient ApplyFailure failure;

        Refused(ApplyFailure failure) {
            super(failure.message(), failure.cause(), false, false);
            this.failure = failure;
        }

        ApplyFailure failure() {
            return failure;
        }
    }

    private void apply(SchedulerProfile profile, Secret secret) {
        try {
            applier.apply(profile, secret);
        } catch (KubernetesClientException e) {
            throw new Refused(ApplyFailure.of(secret, e));
        }
    }

    private static String message(RotationPolicy.Action action, TlsMaterial material) {
        return switch (action) {
            case ISSUE_ALL -> material.previousCaCert() == null
                    ? "Issued a new CA, extender serving certificate and scheduler client certificate"
                    : "Issued a new CA: the CA Secret did not hold the CA the running pods trust, which stays trusted"
                            + " until certificates from the new CA run";
            case ROTATE_CA -> "Rotating the CA: the extender and the scheduler now trust the old and the new CA;"
                    + " new certificates follow once both run with it";
            case RENEW_LEAVES -> "Renewed the extender serving and scheduler client certificates";
            case DROP_PREVIOUS_CA -> "The previous CA is no longer trusted: the CA rotation is complete";
            case KEEP -> "";
        };
    }

    /** The Deployment is Available at its generation with pods whose template carries {@code hash}. */
    private static boolean runs(Deployment deployment, String hash) {
        if (deployment == null || !DeploymentReadiness.isAvailableAtCurrentGeneration(deployment)) {
            return false;
        }
        var metadata = deployment.getSpec().getTemplate().getMetadata();
        return metadata != null && Objects.equals(annotation(metadata.getAnnotations(), Labels.TLS_HASH), hash);
    }

    private static String hash(Map<String, String> data) {
        return TlsMaterial.hash(data);
    }

    private Secret cached(String name, String namespace) {
        return informers.cached(Secret.class, new ResourceID(name, namespace)).orElse(null);
    }

    private Secret live(String name, String namespace) {
        try {
            return liveSecrets.apply(name, namespace);
        } catch (KubernetesClientException e) {
            throw new Refused(ApplyFailure.of("Secret", namespace + "/" + name, e));
        }
    }

    private static String annotation(Map<String, String> annotations, String key) {
        return annotations == null ? null : annotations.get(key);
    }

    static Map<String, String> decode(Secret secret) {
        Map<String, String> data = new TreeMap<>();
        if (secret != null && secret.getData() != null) {
            secret.getData().forEach((k, v) -> {
                try {
                    data.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8));
                } catch (IllegalArgumentException e) {
                    // not base64: treated as missing, and replaced
                }
            });
        }
        return data;
    }

    private static Secret secret(
            ResolvedProfile p,
            String name,
            String component,
            Map<String, String> data,
            Map<String, String> annotations) {
        Map<String, String> encoded = new LinkedHashMap<>();
        data.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(p.names().namespace())
                .withLabels(Labels.component(p.names().profile(), component))
                .withAnnotations(annotations)
                .endMetadata()
                .withType("Opaque")
                .withData(encoded)
                .build();
    }
}
