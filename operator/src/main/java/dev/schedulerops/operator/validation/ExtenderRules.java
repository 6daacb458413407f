package dev.schedulerops.operator.validation;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.ExternalExtender;
import dev.schedulerops.operator.api.ExternalExtenderTls;
import dev.schedulerops.operator.api.ManagedResource;
import dev.schedulerops.operator.api.SchedulerProfileSpec;
import dev.schedulerops.operator.api.Verb;
import java.io.ByteArrayInputStream;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * kube-scheduler's rules for the extenders of one profile (its validateExtenders, and what it checks while it builds
 * their HTTP clients at start-up), over the bundled extender and {@code spec.extenders}: a positive weight with
 * prioritizeVerb, one binder at most, extended-resource names managed by one extender only, and CA data it can load.
 */
final class ExtenderRules {
    private static final Pattern URL_PREFIX = Pattern.compile("^https?://[^\\s/]+\\S*$");
    private static final Pattern VERB = Pattern.compile(Defaults.EXTENDER_VERB_PATTERN);
    private static final Pattern SERVER_NAME = Pattern.compile("^[A-Za-z0-9.-]+$");

    private ExtenderRules() {}

    /**
     * The rules over the bundled extender's managed resources and {@code spec.extenders}, on a spec without null list
     * items (ProfileValidator reports those first).
     */
    static void validate(SchedulerProfileSpec spec, List<String> errors) {
        Set<String> managed = new HashSet<>();
        if (spec.getExtender() != null) {
            managedResources(spec.getExtender().getManagedResources(), "spec.extender", managed, errors);
        }
        List<ExternalExtender> extenders = spec.getExtenders();
        if (extenders == null) {
            return;
        }
        if (extenders.size() > Defaults.MAX_EXTERNAL_EXTENDERS) {
            errors.add(GoValues.tooMany("spec.extenders", extenders.size(), Defaults.MAX_EXTERNAL_EXTENDERS, "items"));
        }
        int binders = spec.getVerbs() != null && spec.getVerbs().contains(Verb.BIND) ? 1 : 0;
        for (int i = 0; i < extenders.size(); i++) {
            ExternalExtender e = extenders.get(i);
            String path = "spec.extenders[" + i + "]";
            validateOne(e, path, errors);
            if (e.getBindVerb() != null) {
                binders++;
            }
            managedResources(e.getManagedResources(), path, managed, errors);
        }
        if (binders > 1) {
            errors.add("spec.extenders: Invalid value: " + binders + " extenders bind: only one extender may bind"
                    + " (kube-scheduler refuses two bindVerbs); the bundled one binds when verbs has Bind");
        }
    }

    /**
     * kube-scheduler's managedResources rule: each an extended resource name, and each managed once across all the
     * extenders of the profile ({@code managed} collects them, the bundled extender's first).
     */
    private static void managedResources(
            List<ManagedResource> resources, String extenderPath, Set<String> managed, List<String> errors) {
        if (resources == null) {
            return;
        }
        if (resources.size() > Defaults.MAX_MANAGED_RESOURCES) {
            errors.add(GoValues.tooMany(
                    extenderPath + ".managedResources", resources.size(), Defaults.MAX_MANAGED_RESOURCES, "items"));
        }
        for (int j = 0; j < resources.size(); j++) {
            ManagedResource r = resources.get(j);
            String path = extenderPath + ".managedResources[" + j + "].name";
            Optional<String> invalid = r.getName() == null
                    ? Optional.of("must be a qualified resource name")
                    : extendedResourceNameError(r.getName());
            if (invalid.isPresent()) {
                errors.add(path + ": Invalid value: \"" + r.getName() + "\": " + invalid.get());
            } else if (!managed.add(r.getName())) {
                errors.add(path + ": Duplicate value: \"" + r.getName()
                        + "\": an extender of this profile already manages it (kube-scheduler allows each name once)");
            }
        }
    }

    private static void validateOne(ExternalExtender e, String path, List<String> errors) {
        if (e.getUrlPrefix() == null || e.getUrlPrefix().isEmpty()) {
            errors.add(path + ".urlPrefix: Required value: the extender's base URL, e.g."
                    + " https://gpu-extender.gpu-system.svc:8443/scheduler");
        } else if (!URL_PREFIX.matcher(e.getUrlPrefix()).matches()
                || e.getUrlPrefix().length() > 2048) {
            errors.add(path + ".urlPrefix: Invalid value: " + GoValues.shown(e.getUrlPrefix())
                    + ": must be an http:// or https:// URL with a host");
        }
        verb(e.getFilterVerb(), path + ".filterVerb", errors);
        verb(e.getPrioritizeVerb(), path + ".prioritizeVerb", errors);
        verb(e.getPreemptVerb(), path + ".preemptVerb", errors);
        verb(e.getBindVerb(), path + ".bindVerb", errors);
        if (e.getWeight() != null && e.getWeight() < 1) {
            errors.add(path + ".weight: Invalid value: " + e.getWeight() + ": must be at least 1");
        } else if (e.getPrioritizeVerb() != null && e.getWeight() == null) {
            errors.add(path + ".weight: Required value: kube-scheduler needs a positive weight with prioritizeVerb");
        }
        if (e.getHttpTimeout() != null) {
            Optional<Long> nanos = GoDuration.parseNanos(e.getHttpTimeout());
            if (nanos.isEmpty() || nanos.get() <= 0) {
                errors.add(path + ".httpTimeout: Invalid value: " + GoValues.shown(e.getHttpTimeout())
                        + ": must be a positive duration such as 5s");
            }
        }
        validateTls(e, path, errors);
    }

    private static void validateTls(ExternalExtender e, String path, List<String> errors) {
        ExternalExtenderTls tls = e.getTlsConfig();
        boolean insecure = tls != null && Boolean.TRUE.equals(tls.getInsecure());
        boolean caData = tls != null && tls.getCaData() != null;
        if (Boolean.TRUE.equals(e.getEnableHTTPS()) && !caData && !insecure) {
            errors.add(path + ".tlsConfig: Required value: enableHTTPS needs tlsConfig.caData (the CA of the extender's"
                    + " certificate); without it kube-scheduler would skip verification silently. Set"
                    + " tlsConfig.insecure: true to accept that");
        }
        if (insecure && caData) {
            errors.add(path + ".tlsConfig: Invalid value: insecure and caData exclude each other (kube-scheduler"
                    + " refuses to start with both)");
        }
        if (tls != null
                && tls.getServerName() != null
                && !SERVER_NAME.matcher(tls.getServerName()).matches()) {
            errors.add(path + ".tlsConfig.serverName: Invalid value: " + GoValues.shown(tls.getServerName())
                    + ": must be a DNS name");
        }
        if (caData) {
            caDataError(tls.getCaData())
                    .ifPresent(why -> errors.add(path + ".tlsConfig.caData: Invalid value: " + why));
        }
    }

    private static void verb(String verb, String path, List<String> errors) {
        if (verb != null && (verb.length() > 256 || !VERB.matcher(verb).matches())) {
            errors.add(path + ": Invalid value: " + GoValues.shown(verb) + ": a verb is the path after urlPrefix,"
                    + " e.g. filter or v1/filter, without a leading slash");
        }
    }

    /**
     * Why kube-scheduler could not load {@code caData}: it must be base64 (as a kubeconfig's
     * certificate-authority-data) of PEM text holding at least one certificate.
     */
    static Optional<String> caDataError(String caData) {
        if (caData.length() > Defaults.MAX_CA_DATA_LENGTH) {
            return Optional.of("more than " + Defaults.MAX_CA_DATA_LENGTH + " characters");
        }
        byte[] pem;
        try {
            pem = Base64.getDecoder().decode(caData);
        } catch (IllegalArgumentException e) {
            return Optional.of("not base64 (encode the PEM file, e.g. base64 -w0 ca.crt): " + e.getMessage());
        }
        if (!new String(pem, java.nio.charset.StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
            return Optional.of("the decoded data holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        }
        try {
            if (CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem))
                    .isEmpty()) {
                return Optional.of("the decoded data holds no certificate");
            }
        } catch (CertificateException e) {
            return Optional.of("a certificate in the decoded PEM does not parse: " + e.getMessage());
        }
        return Optional.empty();
    }

    /** apimachinery's IsExtendedResourceName, as kube-scheduler applies it to managedResources. */
    static Optional<String> extendedResourceNameError(String name) {
        List<String> qualified = LabelSyntax.qualifiedNameErrors(name);
        if (!qualified.isEmpty()) {
            return Optional.of(String.join("; ", qualified));
        }
        if (!name.contains("/") || name.contains("kubernetes.io/")) {
            return Optional.of("is an invalid extended resource name: it needs a domain other than kubernetes.io,"
                    + " e.g. example.com/gpu");
        }
        if (name.startsWith("requests.")
                || !LabelSyntax.qualifiedNameErrors("requests." + name).isEmpty()) {
            return Optional.of("is an invalid extended resource name: \"requests.\" + name must be a qualified name");
        }
        return Optional.empty();
    }
}
