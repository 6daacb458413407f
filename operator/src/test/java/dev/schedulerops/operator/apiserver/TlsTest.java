package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.ExtenderSpec;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.TlsSpec;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.tls.Pem;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
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
                    .containsEntry(Labels.PROFILE, "p");
        }
        assertThat(data(secret(tier, names.extenderTlsSecret())))
                .containsOnlyKeys(Names.TLS_CERT, Names.TLS_KEY, Names.CLIENT_CA);
        assertThat(data(secret(tier, names.schedulerClientSecret())))
                .containsOnlyKeys(Names.CA_CERT, Names.TLS_CERT, Names.TLS_KEY);
        X509Certificate ca = Pem.parseCertificates(
                        data(secret(tier, names.caSecret())).get(Names.CA_CERT))
                .get(0);
        X509Certificate serving = Pem.parseCertificates(
                        data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT))
                .get(0);
        serving.verify(ca.getPublicKey());

        assertThat(secretVolumes(tier.deployment(names.extender()))).containsExactly(names.extenderTlsSecret());
        assertThat(secretVolumes(tier.deployment(names.scheduler()))).containsExactly(names.schedulerClientSecret());
        assertThat(tlsHash(tier.deployment(names.extender()))).isNotNull();
        assertThat(tlsHash(tier.deployment(names.scheduler()))).isNotNull();
        String config = tier.configMap(names.schedulerConfig()).getData().get(Names.CONFIG_FILE);
        assertThat(config)
                .contains("urlPrefix: https://p-extender." + tier.namespace() + ".svc:8443")
                .contains("enableHTTPS: true")
                .contains("certFile: /etc/schedulerops/extender-client/tls.crt");
    }

    @Test
    void aDeletedServingSecretIsReissuedAndRolledOutExtenderFirst(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        Secret before = secret(tier, names.extenderTlsSecret());
        String extenderHash = tlsHash(tier.deployment(names.extender()));
        String schedulerHash = tlsHash(tier.deployment(names.scheduler()));

        tier.extenderAvailable("p", false);
        tier.client().resource(before).delete();

        Eventually.until("a new serving Secret", () -> {
            Secret now = secret(tier, names.extenderTlsSecret());
            return now != null
                    && !now.getMetadata().getUid().equals(before.getMetadata().getUid());
        });
        assertThat(data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT))
                .isNotEqualTo(data(before).get(Names.TLS_CERT));
        Eventually.until(
                "the extender rolls with the new material",
                () -> !extenderHash.equals(tlsHash(tier.deployment(names.extender()))));
        BareApiServer.sleep(Duration.ofSeconds(2));
        assertThat(tlsHash(tier.deployment(names.scheduler())))
                .as("the scheduler waits for the extender")
                .isEqualTo(schedulerHash);

        tier.extenderAvailable("p", true);
        Eventually.until(
                "the scheduler rolls with its new client certificate",
                () -> !schedulerHash.equals(tlsHash(tier.deployment(names.scheduler()))));
    }

    @Test
    void aForcedRotationTrustsOldAndNewCaThenRenewsTheCertificatesThenDropsTheOldCa(Tier tier) throws Exception {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        String oldCa = data(secret(tier, names.caSecret())).get(Names.CA_CERT);
        String oldServing = data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT);
        String schedulerHash = tlsHash(tier.deployment(names.scheduler()));

        tier.profile("p").edit(p -> {
            TlsSpec tls = new TlsSpec();
            tls.setRotate("2026-11-22");
            if (p.getSpec().getExtender() == null) {
                p.getSpec().setExtender(new ExtenderSpec());
            }
            p.getSpec().getExtender().setTls(tls);
            return p;
        });

        Eventually.until(
                "a new CA",
                () -> !oldCa.equals(data(secret(tier, names.caSecret())).get(Names.CA_CERT)));
        Eventually.until(
                "the certificates are renewed from the new CA and the old CA is dropped",
                () -> {
                    Map<String, String> extender = data(secret(tier, names.extenderTlsSecret()));
                    return !oldServing.equals(extender.get(Names.TLS_CERT))
                            && count(extender.get(Names.CLIENT_CA)) == 1
                            && !extender.get(Names.CLIENT_CA).equals(oldCa);
                },
                () -> data(secret(tier, names.caSecret())).keySet());
        String newCa = data(secret(tier, names.caSecret())).get(Names.CA_CERT);
        X509Certificate ca = Pem.parseCertificates(newCa).get(0);
        Pem.parseCertificates(data(secret(tier, names.extenderTlsSecret())).get(Names.TLS_CERT))
                .get(0)
                .verify(ca.getPublicKey());
        Pem.parseCertificates(data(secret(tier, names.schedulerClientSecret())).get(Names.TLS_CERT))
                .get(0)
                .verify(ca.getPublicKey());
        assertThat(data(secret(tier, names.caSecret()))).doesNotContainKey(Names.PREVIOUS_CA_CERT);
        assertThat(secret(tier, names.caSecret()).getMetadata().getAnnotations())
                .containsEntry(Labels.ROTATED_FOR, "2026-11-22");
        assertThat(tlsHash(tier.deployment(names.scheduler()))).isNotEqualTo(schedulerHash);
        assertThat(tier.hasEvent("p", "Normal", "Certificates")).isTrue();
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
