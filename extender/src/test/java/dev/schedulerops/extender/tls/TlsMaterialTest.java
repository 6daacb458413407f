package dev.schedulerops.extender.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.extender.tls.TestPki.Issued;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading PEM material: what is accepted, and errors that name the file and what is wrong. */
class TlsMaterialTest {
    @TempDir
    Path dir;

    private final Issued ca = TestPki.ca("ca");
    private final Issued serving = TestPki.server(ca, "ext", List.of("ext.ns.svc"));

    private TlsSettings write(String cert, String key, String clientCa) throws Exception {
        Files.writeString(dir.resolve("tls.crt"), cert);
        Files.writeString(dir.resolve("tls.key"), key);
        Files.writeString(dir.resolve("client-ca.crt"), clientCa);
        return new TlsSettings(
                TlsMode.mutual,
                dir.resolve("tls.crt"),
                dir.resolve("tls.key"),
                dir.resolve("client-ca.crt"),
                Duration.ofSeconds(10));
    }

    @Test
    void readsAChainAKeyAndABundleOfSeveralCas() throws Exception {
        Issued intermediate = TestPki.intermediate(ca, "intermediate");
        Issued leaf = TestPki.server(intermediate, "ext", List.of("ext.ns.svc"));
        Issued other = TestPki.ca("other");
        String chain = "# comment lines around blocks are ignored\n" + leaf.certPem();

        TlsMaterial material = TlsMaterial.load(write(chain, leaf.keyPem(), ca.certPem() + "\n" + other.certPem()));

        assertThat(leaf.chain()).containsExactly(leaf.cert(), intermediate.cert());
        assertThat(material.leaf()).isEqualTo(leaf.cert());
        assertThat(material.clientCas()).containsExactly(ca.cert(), other.cert());
        assertThat(material.keyStore().getCertificateChain("serving")).hasSize(2);
        assertThat(material.trustStore().size()).isEqualTo(2);
    }

    @Test
    void serverModeDoesNotReadAClientCaFile() throws Exception {
        write(serving.certPem(), serving.keyPem(), "");
        TlsSettings settings = new TlsSettings(
                TlsMode.server, dir.resolve("tls.crt"), dir.resolve("tls.key"), null, Duration.ofSeconds(1));

        assertThat(TlsMaterial.load(settings).clientCas()).isEmpty();
    }

    private void assertRefused(TlsSettings settings, String file, String problem) {
        assertThatThrownBy(() -> TlsMaterial.load(settings))
                .isInstanceOf(TlsMaterialException.class)
                .hasMessageStartingWith(dir.resolve(file).toString())
                .hasMessageContaining(problem);
    }

    @Test
    void errorsNameTheFileAndTheProblem() throws Exception {
        String cert = serving.certPem();
        String key = serving.keyPem();
        String bundle = ca.certPem();
        byte[] sec1 = new byte[] {0x30, 0x03, 0x02, 0x01, 0x01};

        assertRefused(write("", key, bundle), "tls.crt", "the file is empty");
        assertRefused(write("hello", key, bundle), "tls.crt", "no PEM block found");
        assertRefused(write(cert.substring(0, cert.length() - 30), key, bundle), "tls.crt", "truncated");
        assertRefused(
                write(TestPki.pem("CERTIFICATE", "junk".getBytes(StandardCharsets.US_ASCII)), key, bundle),
                "tls.crt",
                "PEM block 1 is not a valid X.509 certificate");
        assertRefused(write(cert + key, key, bundle), "tls.crt", "PEM block 2 is a PRIVATE KEY");
        assertRefused(write(cert + TestPki.ca("unrelated").certPem(), key, bundle), "tls.crt", "do not form a chain");
        assertRefused(write(cert, TestPki.pem("EC PRIVATE KEY", sec1), bundle), "tls.key", "openssl pkcs8 -topk8");
        assertRefused(write(cert, TestPki.pem("RSA PRIVATE KEY", sec1), bundle), "tls.key", "PKCS#1");
        assertRefused(write(cert, TestPki.pem("ENCRYPTED PRIVATE KEY", sec1), bundle), "tls.key", "encrypted");
        assertRefused(write(cert, TestPki.pem("PRIVATE KEY", sec1), bundle), "tls.key", "not a valid PKCS#8");
        assertRefused(write(cert, key + key, bundle), "tls.key", "2 PEM blocks");
        assertRefused(
                write(cert, TestPki.pem(TestPki.ec().getPrivate()), bundle),
                "tls.key",
                "does not belong to the first certificate of " + dir.resolve("tls.crt"));
        assertRefused(write(cert, key, ""), "client-ca.crt", "the file is empty");
        assertRefused(write(cert, key, bundle + key), "client-ca.crt", "only CERTIFICATE blocks");
        Files.delete(dir.resolve("tls.key"));
        assertRefused(
                new TlsSettings(
                        TlsMode.mutual,
                        dir.resolve("tls.crt"),
                        dir.resolve("tls.key"),
                        dir.resolve("client-ca.crt"),
                        Duration.ofSeconds(1)),
                "tls.key",
                "no such file");
    }

    @Test
    void anExpiredOrNotYetValidServingCertificateIsRefused() throws Exception {
        Issued expired = TestPki.leaf(
                ca, "ext", List.of(), TestPki.ec(), Instant.now().minus(Duration.ofDays(3)), Duration.ofDays(1));
        Issued future = TestPki.leaf(
                ca, "ext", List.of(), TestPki.ec(), Instant.now().plus(Duration.ofDays(3)), Duration.ofDays(1));

        assertRefused(write(expired.certPem(), expired.keyPem(), ca.certPem()), "tls.crt", "expired at");
        assertRefused(write(future.certPem(), future.keyPem(), ca.certPem()), "tls.crt", "not valid before");
    }
}
