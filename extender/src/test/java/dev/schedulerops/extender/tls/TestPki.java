package dev.schedulerops.extender.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificates for tests, made with BouncyCastle: ECDSA P-256 (or RSA) CAs, serving and client certificates. */
public final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private TestPki() {}

    /** A certificate, its key pair and its issuer (null for a self-signed CA). */
    public record Issued(X509Certificate cert, KeyPair keys, Issued issuer) {
        /** The certificate followed by its issuers up to (excluding) the root. */
        public List<X509Certificate> chain() {
            List<X509Certificate> chain = new ArrayList<>();
            for (Issued i = this; i != null && i.issuer() != null; i = i.issuer()) {
                chain.add(i.cert());
            }
            return chain.isEmpty() ? List.of(cert) : chain;
        }

        public String certPem() {
            return pem(chain().toArray(new X509Certificate[0]));
        }

        public String keyPem() {
            return pem(keys.getPrivate());
        }
    }

    public static KeyPair ec() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static KeyPair rsa() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static Issued ca(String cn) {
        KeyPair keys = ec();
        Instant now = Instant.now();
        return new Issued(
                build(cn, keys, null, true, List.of(), now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(30))),
                keys,
                null);
    }

    /** An intermediate CA issued by {@code ca}. */
    public static Issued intermediate(Issued ca, String cn) {
        KeyPair keys = ec();
        Instant now = Instant.now();
        return new Issued(
                build(cn, keys, ca, true, List.of(), now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(30))),
                keys,
                ca);
    }

    /** A serving certificate for {@code dnsNames}, valid from an hour ago for 30 days. */
    public static Issued server(Issued ca, String cn, List<String> dnsNames) {
        return leaf(ca, cn, dnsNames, ec(), Instant.now().minus(Duration.ofHours(1)), Duration.ofDays(30));
    }

    /** A client certificate, valid from an hour ago for 30 days. */
    public static Issued client(Issued ca, String cn) {
        return leaf(ca, cn, List.of(), ec(), Instant.now().minus(Duration.ofHours(1)), Duration.ofDays(30));
    }

    public static Issued leaf(
            Issued ca, String cn, List<String> dnsNames, KeyPair keys, Instant notBefore, Duration validity) {
        return new Issued(build(cn, keys, ca, false, dnsNames, notBefore, notBefore.plus(validity)), keys, ca);
    }

    private static X509Certificate build(
            String cn,
            KeyPair keys,
            Issued issuer,
            boolean isCa,
            List<String> dnsNames,
            Instant notBefore,
            Instant notAfter) {
        try {
            X500Name subject = new X500Name("CN=" + cn);
            X500Name issuerName = issuer == null
                    ? subject
                    : X500Name.getInstance(
                            issuer.cert().getSubjectX500Principal().getEncoded());
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    issuerName,
                    BigInteger.valueOf(SERIAL.incrementAndGet()),
                    Date.from(notBefore),
                    Date.from(notAfter),
                    subject,
                    keys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
            if (isCa) {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            } else {
                int usage = KeyUsage.digitalSignature;
                if (keys.getPublic().getAlgorithm().equals("RSA")) {
                    usage |= KeyUsage.keyEncipherment;
                }
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(usage));
                builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(new KeyPurposeId[] {
                    KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth
                }));
                if (!dnsNames.isEmpty()) {
                    builder.addExtension(
                            Extension.subjectAlternativeName,
                            false,
                            new GeneralNames(dnsNames.stream()
                                    .map(name -> new GeneralName(GeneralName.dNSName, name))
                                    .toArray(GeneralName[]::new)));
                }
            }
            PrivateKey signingKey =
                    issuer == null ? keys.getPrivate() : issuer.keys().getPrivate();
            String algorithm = signingKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            return new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder(algorithm).build(signingKey)));
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String pem(X509Certificate... certificates) {
        StringBuilder out = new StringBuilder();
        for (X509Certificate certificate : certificates) {
            try {
                out.append(pem("CERTIFICATE", certificate.getEncoded()));
            } catch (CertificateEncodingException e) {
                throw new IllegalStateException(e);
            }
        }
        return out.toString();
    }

    /** PKCS#8, as {@code -----BEGIN PRIVATE KEY-----}. */
    public static String pem(PrivateKey key) {
        return pem("PRIVATE KEY", key.getEncoded());
    }

    public static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    /** A client TLS context presenting {@code clientCert} (none when null) and trusting {@code trusted}. */
    public static SSLContext clientContext(Issued clientCert, X509Certificate... trusted) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            for (int i = 0; i < trusted.length; i++) {
                trust.setCertificateEntry("ca-" + i, trusted[i]);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (clientCert != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry(
                        "client",
                        clientCert.keys().getPrivate(),
                        "p".toCharArray(),
                        clientCert.chain().toArray(new X509Certificate[0]));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, "p".toCharArray());
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A directory written the way the kubelet writes a Secret volume: the files live in a timestamped directory,
     * {@code ..data} links to it, and each name links to {@code ..data/<name>}; {@link #write} swaps {@code ..data} in
     * one rename, so a reader sees all old or all new files.
     */
    public static final class SecretDir {
        private final Path dir;
        private int generation;

        public SecretDir(Path dir) {
            this.dir = dir;
        }

        public Path file(String name) {
            return dir.resolve(name);
        }

        public void write(Map<String, String> files) {
            try {
                Path data = dir.resolve("..gen_" + (++generation));
                Files.createDirectories(data);
                for (Map.Entry<String, String> file : files.entrySet()) {
                    Files.writeString(data.resolve(file.getKey()), file.getValue());
                }
                Path tmp = dir.resolve("..data_tmp");
                Files.deleteIfExists(tmp);
                Files.createSymbolicLink(tmp, data.getFileName());
                Files.move(tmp, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
                for (String name : files.keySet()) {
                    Path link = dir.resolve(name);
                    if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createSymbolicLink(link, Path.of("..data", name));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
