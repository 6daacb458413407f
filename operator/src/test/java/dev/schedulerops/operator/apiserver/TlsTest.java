package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.ExtenderSpec;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.TlsSpec;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import dev.schedulerops.operator.tls.Pem;
import dev.schedulerops.operator.tls.TlsMaterial;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator's side of scheduler ↔ extender mutual TLS on a real API server: the three Secrets, owned by the profile;
 * the Deployments mounting them; https in the scheduler config; new material on a deleted Secret or a forced rotation,
 * rolled out extender first, scheduler second.
 */
@ExtendWith(ApiServerTier.class)
class TlsTest {

    @Test
    void aProfileGetsItsThreeSecretsMountedAndAnHttpsConfig(Tier tier) throws Exception {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        SchedulerProfile profile = tier.profile("p").get();

        for (String name : List.of(names.caSecret(), names.extenderTlsSecret(), names.schedulerClientSecret())) {
            Secret secret = secret(tier, name);
            assertThat(secret).as(name).isNotNull();
            assertThat(secret.getMetadata().getOwnerReferences())
                    .as(name + " is owned by the profile")
                    .singleElement()
                    .satisfies(o -> assertThat(o.getUid())
                            .isEqualTo(profile.getMetadata().getUid()));
            assertThat(secret.getMetadata().getLabels())
                    .containsEntry(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                    .containsEntry(Labels.PROFILE, tier.name("p"));
        }
        assertThat(data(secret(tier, names.extenderTlsSecret())))
                .containsOnlyKeys(Names.TLS_CERT, Names.TLS_KEY, Names.CLIENT_CA);
        assertThat(data(secret(tier, names.schedulerClientSecret())))
                .containsOnlyKeys(Names.CA_CERT, Names.TLS_CERT, Names.TLS_KEY);
        signedByTheCa(tier, names, names.extenderTlsSecret());

        assertThat(secretVolumes(tier.deployment(names.extender()))).containsExactly(names.extenderTlsSecret());
        assertThat(secretVolumes(tier.deployment(names.scheduler()))).containsExactly(names.schedulerClientSecret());
        assertThat(tlsHash(tier.deployment(names.extender()))).isNotNull();
        assertThat(tlsHash(tier.deployment(names.scheduler()))).isNotNull();
        String config = tier.configMap(names.schedulerConfig()).getData().get(Names.CONFIG_FILE);
        assertThat(config)
                .contains("urlPrefix: https://" + names.extender() + "." + tier.namespace() + ".svc:8443")
                .contains("enableHTTPS: true")
                .contains("certFile: /etc/schedulerops/extender-client/tls.crt");
    }

    @Test
    void aDeletedServingSecretComesBackAndTheExtenderMountsWhatItHolds(Tier tier) throws Exception {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        Secret before = secret(tier, names.extenderTlsSecret());

        tier.client().resource(before).delete();

        // Put back from the operator's cache, or reissued: either way usable, and what the pods are told to mount.
        Eventually.until("the serving Secret is back", () -> {
            Secret now = secret(tier, names.extenderTlsSecret());
            return now != null
                    && !now.getMetadata().getUid().equals(before.getMetadata().getUid());
        });
        Eventually.until(
                "the extender's pod template carries the hash of what the Secret holds",
                () -> TlsMaterial.hash(data(secret(tier, names.extenderTlsSecret())))
                        .equals(tlsHash(tier.deployment(names.extender()))));
        Eventually.until("the scheduler's pod template carries the hash of its Secret", () -> TlsMaterial.hash(
                        data(secret(tier, names.schedulerClientSecret())))
                .equals(tlsHash(tier.deployment(names.scheduler()))));
        signedByTheCa(tier, names, names.extenderTlsSecret());
    }

    /**
     * A CA Secret without a usable CA (its key damaged here; deleted, or seen so by an operator stopping with an emptied
     * cache) must not switch the running pods to certificates they do not trust: the new CA is trusted beside the old
     * one, the certificates stay until both sides run that bundle, and then the rotation finishes as a requested one
     * would. (A deletion is not used: a reconcile already running then puts the Secret back from its cache, which is
     * right too, and the test would not know which it saw.)
     */
    @Test
    void aDamagedCaSecretBecomesARotationThatKeepsTheRunningPodsCaTrusted(Tier tier) throws Exception {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        Secret before = secret(tier, names.caSecret());
        String oldCa = data(before).get(Names.CA_CERT);
        String oldServing = data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT);
        String oldClient = data(secret(tier, names.schedulerClientSecret())).get(Names.TLS_CERT);
        tier.extenderAvailable("p", false);
        tier.reconciledAsOfNow("p");

        tier.client()
                .secrets()
                .inNamespace(tier.namespace())
                .withName(names.caSecret())
                .edit(s -> {
                    s.getData()
                            .put(
                                    Names.CA_KEY,
                                    Base64.getEncoder().encodeToString("damaged".getBytes(StandardCharsets.UTF_8)));
                    return s;
                });

        Eventually.until(
                "a new CA that keeps the old CA as the previous one",
                () -> {
                    Secret now = secret(tier, names.caSecret());
                    return now != null && oldCa.equals(data(now).get(Names.PREVIOUS_CA_CERT));
                },
                () -> {
                    Secret now = secret(tier, names.caSecret());
                    return now == null ? "no CA Secret" : data(now).keySet();
                });
        assertThat(data(secret(tier, names.caSecret())).get(Names.CA_CERT)).isNotEqualTo(oldCa);
        Eventually.until(
                "both bundles trust the old and the new CA",
                () -> count(data(secret(tier, names.extenderTlsSecret())).get(Names.CLIENT_CA)) == 2
                        && count(data(secret(tier, names.schedulerClientSecret()))
                                        .get(Names.CA_CERT))
                                == 2);
        tier.reconciledAsOfNow("p");
        assertThat(data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT))
                .as("the serving certificate the running scheduler trusts stays")
                .isEqualTo(oldServing);
        assertThat(data(secret(tier, names.schedulerClientSecret())).get(Names.TLS_CERT))
                .as("the client certificate the running extender trusts stays")
                .isEqualTo(oldClient);
        assertThat(tier.hasEvent("p", "Normal", "Certificates")).isTrue();

        tier.extenderAvailable("p", true);
        awaitRenewedFromTheNewCaWithTheOldDropped(tier, names, oldServing, oldCa);
    }

    @Test
    void aForcedRotationTrustsOldAndNewCaThenRenewsTheCertificatesThenDropsTheOldCa(Tier tier) throws Exception {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        String oldCa = data(secret(tier, names.caSecret())).get(Names.CA_CERT);
        String oldServing = data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT);
        String extenderHash = tlsHash(tier.deployment(names.extender()));
        String schedulerHash = tlsHash(tier.deployment(names.scheduler()));

        tier.extenderAvailable("p", false);
        tier.profile("p").edit(p -> {
            TlsSpec tls = new TlsSpec();
            tls.setRotate("2026-11-22");
            if (p.getSpec().getExtender() == null) {
                p.getSpec().setExtender(new ExtenderSpec());
            }
            p.getSpec().getExtender().setTls(tls);
            return p;
        });

        // Phase 1: both trust the old and the new CA (the three Secrets are written one after the other); the
        // extender rolls first, the scheduler waits for it.
        Eventually.until(
                "a new CA, trusted with the old one by the extender and the scheduler",
                () -> !oldCa.equals(data(secret(tier, names.caSecret())).get(Names.CA_CERT))
                        && count(data(secret(tier, names.extenderTlsSecret())).get(Names.CLIENT_CA)) == 2
                        && count(data(secret(tier, names.schedulerClientSecret()))
                                        .get(Names.CA_CERT))
                                == 2);
        assertThat(data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT))
                .as("the certificates stay until both sides trust the new CA")
                .isEqualTo(oldServing);
        Eventually.until(
                "the extender rolls with the new bundle",
                () -> !extenderHash.equals(tlsHash(tier.deployment(names.extender()))));
        tier.reconciledAsOfNow("p");
        assertThat(tlsHash(tier.deployment(names.scheduler())))
                .as("the scheduler waits for the extender")
                .isEqualTo(schedulerHash);
        assertThat(data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT))
                .as("no new certificates before the scheduler runs the new bundle")
                .isEqualTo(oldServing);

        tier.extenderAvailable("p", true);
        awaitRenewedFromTheNewCaWithTheOldDropped(tier, names, oldServing, oldCa);
        assertThat(data(secret(tier, names.caSecret()))).doesNotContainKey(Names.PREVIOUS_CA_CERT);
        assertThat(secret(tier, names.caSecret()).getMetadata().getAnnotations())
                .containsEntry(Labels.ROTATED_FOR, "2026-11-22");
        assertThat(tlsHash(tier.deployment(names.scheduler()))).isNotEqualTo(schedulerHash);
        assertThat(tier.hasEvent("p", "Normal", "Certificates")).isTrue();
    }

    /**
     * The review's finding: a CA rotation whose first write reached the CA Secret but not the extender's (a refused
     * write, injected here by a ValidatingAdmissionPolicy on that one Secret) left the running pods trusting only the
     * old CA, and the next reconcile renewed the certificates from the new CA anyway: the running scheduler would then
     * reject the extender's new serving certificate. Now the leaves stay until the bundles with the new CA are written
     * and rolled out.
     */
    @Test
    void aRefusedSecretWriteDuringACaRotationRenewsNoCertificateBeforeTheBundlesTrustTheNewCa(Tier tier)
            throws Exception {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        String oldServing = data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT);
        String oldCa = data(secret(tier, names.caSecret())).get(Names.CA_CERT);
        // Every write of the extender Secret, in order: a poll could miss the first write after the refusal when the
        // renewal that follows it (once the rollout completes) comes within one poll interval.
        List<Map<String, String>> writes = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.fabric8.kubernetes.client.Watch watch = tier.client()
                .secrets()
                .inNamespace(tier.namespace())
                .withName(names.extenderTlsSecret())
                .watch(new io.fabric8.kubernetes.client.Watcher<Secret>() {
                    @Override
                    public void eventReceived(Action action, Secret s) {
                        if (action == Action.MODIFIED || action == Action.ADDED) {
                            writes.add(data(s));
                        }
                    }

                    @Override
                    public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                });
        String policy = "refuse-" + names.extenderTlsSecret();
        tier.client()
                .resource(
                        new io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder()
                                .withNewMetadata()
                                .withName(policy)
                                .endMetadata()
                                .withNewSpec()
                                .withFailurePolicy("Fail")
                                .withNewMatchConstraints()
                                .addNewResourceRule()
                                .withApiGroups("")
                                .withApiVersions("v1")
                                .withOperations("UPDATE")
                                .withResources("secrets")
                                .endResourceRule()
                                .endMatchConstraints()
                                .addNewMatchCondition()
                                .withName("this-secret")
                                .withExpression("object.metadata.name == '" + names.extenderTlsSecret() + "'")
                                .endMatchCondition()
                                .addNewValidation()
                                .withExpression("false")
                                .withMessage("injected: this write fails")
                                .endValidation()
                                .endSpec()
                                .build())
                .create();
        tier.client()
                .resource(
                        new io.fabric8.kubernetes.api.model.admissionregistration.v1
                                        .ValidatingAdmissionPolicyBindingBuilder()
                                .withNewMetadata()
                                .withName(policy)
                                .endMetadata()
                                .withNewSpec()
                                .withPolicyName(policy)
                                .withValidationActions("Deny")
                                .endSpec()
                                .build())
                .create();
        try {
            // The policy takes a moment to be enforced; a write of another field would pass it until then.
            Eventually.until(
                    "the policy refuses a write of the extender Secret (a dry run)",
                    () -> refusedByThePolicy(tier, names.extenderTlsSecret()));
            tier.profile("p").edit(p -> {
                TlsSpec tls = new TlsSpec();
                tls.setRotate("injected");
                if (p.getSpec().getExtender() == null) {
                    p.getSpec().setExtender(new ExtenderSpec());
                }
                p.getSpec().getExtender().setTls(tls);
                return p;
            });
            Eventually.until(
                    "the CA Secret holds the new CA and the extender Secret's write is refused",
                    () -> !oldCa.equals(data(secret(tier, names.caSecret())).get(Names.CA_CERT))
                            && tier.hasCondition(
                                    "p", ProfileStatuses.READY, "False", ProfileStatuses.REASON_APPLY_FAILED),
                    () -> tier.conditions("p"));
            // JOSDK retries with backoff meanwhile; each retry decides again on what the Secrets hold. Two more
            // (refused) reconciles, then the refusal is lifted.
            long refused = tier.reconciles().mark();
            Eventually.until(
                    "two more reconciles of p fail on the refusal",
                    () -> tier.reconciles().failuresSince(refused, tier.name("p")) >= 2,
                    () -> tier.reconciles().since(refused));
        } finally {
            tier.client()
                    .resources(
                            io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding
                                    .class)
                    .withName(policy)
                    .delete();
            tier.client()
                    .resources(io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy.class)
                    .withName(policy)
                    .delete();
        }
        String newCa = data(secret(tier, names.caSecret())).get(Names.CA_CERT);
        // JOSDK's retries may be used up: an event of one of the profile's objects reconciles it again.
        tier.client()
                .apps()
                .deployments()
                .inNamespace(tier.namespace())
                .withName(names.extender())
                .edit(d -> {
                    d.getMetadata().getAnnotations().put("example.com/nudge", "after-the-refusal");
                    return d;
                });
        Eventually.until(
                "the extender Secret is written again",
                () -> writes.stream().anyMatch(w -> count(w.get(Names.CLIENT_CA)) == 2),
                () -> writes.size() + " writes seen");
        watch.close();
        Map<String, String> first = writes.stream()
                .filter(w -> count(w.get(Names.CLIENT_CA)) == 2)
                .findFirst()
                .orElseThrow();
        assertThat(first.get(Names.TLS_CERT))
                .as("the first write after the refusal keeps the serving certificate of the old CA")
                .isEqualTo(oldServing);
        assertThat(first.get(Names.CLIENT_CA)).contains(newCa.strip());
        // ProfileTls writes the scheduler's Secret right after the extender's: CI once read it between the two writes.
        Eventually.until(
                "and the scheduler's bundle gets the new CA",
                () -> String.valueOf(data(secret(tier, names.schedulerClientSecret()))
                                .get(Names.CA_CERT))
                        .contains(newCa.strip()),
                () -> data(secret(tier, names.schedulerClientSecret())).get(Names.CA_CERT));
    }

    @Test
    void disabledTlsWritesNoSecretsServesPlainHttpAndSaysTheExtenderIsOpen(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank\nextender:\n  tls:\n    mode: Disabled");

        for (String name : List.of(names.caSecret(), names.extenderTlsSecret(), names.schedulerClientSecret())) {
            assertThat(secret(tier, name)).as(name).isNull();
        }
        assertThat(secretVolumes(tier.deployment(names.extender()))).isEmpty();
        assertThat(tlsHash(tier.deployment(names.extender()))).isNull();
        assertThat(tier.configMap(names.schedulerConfig()).getData().get(Names.CONFIG_FILE))
                .contains("urlPrefix: http://" + names.extender() + "." + tier.namespace() + ".svc:8080")
                .contains("enableHTTPS: false");
        Eventually.until(
                "ExtenderOpen=True TLSDisabled",
                () -> tier.hasCondition(
                        "p", ProfileStatuses.EXTENDER_OPEN, "True", ProfileStatuses.REASON_TLS_DISABLED),
                () -> tier.conditions("p"));
    }

    /** Whether an update of the Secret (a dry run: nothing is written) is refused by the test's injected policy. */
    private static boolean refusedByThePolicy(Tier tier, String secret) {
        try {
            tier.client()
                    .secrets()
                    .inNamespace(tier.namespace())
                    .withName(secret)
                    .dryRun()
                    .edit(s -> {
                        s.getMetadata().setAnnotations(Map.of("example.com/probe", "policy"));
                        return s;
                    });
            return false;
        } catch (KubernetesClientException e) {
            return e.getMessage().contains("injected: this write fails");
        }
    }

    /**
     * The rotation's last two phases once both Deployments run the new bundle: new certificates from the new CA, which
     * both verify against, and the old CA no longer trusted.
     */
    private static void awaitRenewedFromTheNewCaWithTheOldDropped(
            Tier tier, Names names, String oldServing, String oldCa) throws Exception {
        Eventually.until(
                "the certificates are renewed from the new CA and the old CA is dropped",
                () -> {
                    Map<String, String> extender = data(secret(tier, names.extenderTlsSecret()));
                    return !oldServing.equals(extender.get(Names.TLS_CERT))
                            && count(extender.get(Names.CLIENT_CA)) == 1
                            && !extender.get(Names.CLIENT_CA).equals(oldCa);
                },
                () -> data(secret(tier, names.caSecret())).keySet());
        signedByTheCa(tier, names, names.extenderTlsSecret(), names.schedulerClientSecret());
    }

    /** Verifies that the certificate of each of {@code leafSecrets} is signed by the profile's CA (throws if not). */
    private static void signedByTheCa(Tier tier, Names names, String... leafSecrets) throws Exception {
        X509Certificate ca = Pem.parseCertificates(
                        data(secret(tier, names.caSecret())).get(Names.CA_CERT))
                .get(0);
        for (String leaf : leafSecrets) {
            Pem.parseCertificates(data(secret(tier, leaf)).get(Names.TLS_CERT))
                    .get(0)
                    .verify(ca.getPublicKey());
        }
    }

    private static int count(String pem) {
        try {
            return Pem.parseCertificates(pem).size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static Secret secret(Tier tier, String name) {
        return tier.client()
                .secrets()
                .inNamespace(tier.namespace())
                .withName(name)
                .get();
    }

    private static Map<String, String> data(Secret secret) {
        Map<String, String> data = new java.util.TreeMap<>();
        secret.getData()
                .forEach((k, v) -> data.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
        return data;
    }

    private static List<String> secretVolumes(Deployment deployment) {
        return deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getSecret() != null)
                .map(Volume::getSecret)
                .map(s -> s.getSecretName())
                .toList();
    }

    private static String tlsHash(Deployment deployment) {
        Map<String, String> annotations =
                deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(Labels.TLS_HASH);
    }
}
