package dev.schedulerops.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.preview.LoopbackPorts;
import dev.schedulerops.operator.tls.CertificateIssuer;
import dev.schedulerops.operator.tls.Issued;
import dev.schedulerops.operator.tls.RotationPolicy;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS client InClusterTest uses, against the real extender jar in mutual mode on loopback, with certificates made
 * the operator's way: the scheduler's identity is served, no certificate and a foreign one are refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExtenderTlsClientTest {
    private static final String FILTER = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"}},"
            + "\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"n1\",\"labels\":{\"example.com/rank\":\"3\"}}}]},"
            + "\"NodeNames\":null}";

    @TempDir
    static Path dir;

    private final CertificateIssuer issuer = new CertificateIssuer();
    private final Instant now = Instant.now();
    private final RotationPolicy.Validity valid =
            new RotationPolicy.Validity(now.minusSeconds(600), now.plusSeconds(3600));
    private Issued ca;
    private Secret schedulerSecret;
    private ChildProcess extender;
    private int port;

    @BeforeAll
    void startTheExtenderInMutualMode() throws Exception {
        ca = issuer.ca("profile-ca", valid);
        Issued serving = issuer.serving(ca, List.of("p-extender.ns.svc"), valid);
        Issued client = issuer.client(ca, "scheduler", valid);
        Files.writeString(dir.resolve("tls.crt"), serving.certificatePem());
        Files.writeString(dir.resolve("tls.key"), serving.keyPem());
        Files.writeString(dir.resolve("client-ca.crt"), ca.certificatePem());
        schedulerSecret = new SecretBuilder()
                .withNewMetadata()
                .withName("p-scheduler-extender-client")
                .endMetadata()
                .withData(Map.of(
                        Names.TLS_CERT, base64(client.certificatePem()),
                        Names.TLS_KEY, base64(client.keyPem()),
                        Names.CA_CERT, base64(ca.certificatePem())))
                .build();
        port = LoopbackPorts.free();
        int healthPort = LoopbackPorts.free();
        extender = ChildProcess.start(
                "extender-tls-client-test",
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-jar",
                        E2eSettings.extenderJar().toString(),
                        "--label-key=example.com/rank",
                        "--bind-address=127.0.0.1",
                        "--port=" + port,
                        "--health-port=" + healthPort),
                Map.of(
                        "SCHEDULEROPS_TLS_MODE", "mutual",
                        "SCHEDULEROPS_TLS_CERT_FILE", dir.resolve("tls.crt").toString(),
                        "SCHEDULEROPS_TLS_KEY_FILE", dir.resolve("tls.key").toString(),
                        "SCHEDULEROPS_TLS_CLIENT_CA_FILE",
                                dir.resolve("client-ca.crt").toString()),
                dir,
                dir.resolve("extender.log"));
        Await.until(
                Duration.ofSeconds(30), "the extender is ready", () -> Loopback.status(healthPort, "/readyz") == 200);
    }

    @AfterAll
    void stop() {
        if (extender != null) {
            extender.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void theSchedulersIdentityIsServed() throws Exception {
        ExtenderTlsClient.Response answer =
                ExtenderTlsClient.fromSchedulerSecret(schedulerSecret).post("127.0.0.1", port, "/filter", FILTER);
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(answer.body()).contains("\"n1\"");
    }

    @Test
    void noCertificateAndAForeignOneAreRefusedInTheHandshakeAndTheSchedulersIsNot() throws Exception {
        Issued foreign = issuer.client(issuer.ca("other-ca", valid), "intruder", valid);
        for (Issued identity : new Issued[] {null, foreign}) {
            ExtenderTlsClient intruder = ExtenderTlsClient.trustingProfileWith(schedulerSecret, identity);
            assertThat(intruder.handshakeVerdict("127.0.0.1", port))
                    .as("the verdict on %s", identity == null ? "no certificate" : "a foreign CA's certificate")
                    .hasValueSatisfying(verdict -> assertThat(verdict).contains("fatal alert"));
            assertThatThrownBy(() -> intruder.post("127.0.0.1", port, "/filter", FILTER))
                    .isInstanceOf(IOException.class);
        }
        assertThat(ExtenderTlsClient.fromSchedulerSecret(schedulerSecret).handshakeVerdict("127.0.0.1", port))
                .as("the scheduler's own certificate passes")
                .isEmpty();
    }

    private static String base64(String pem) {
        return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8));
    }
}
