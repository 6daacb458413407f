package dev.schedulerops.operator.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** PEM text of certificates (bundles: one after the other) and unencrypted PKCS#8 private keys. */
public final class Pem {
    private static final Pattern PRIVATE_KEY =
            Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

    private Pem() {}

    public static String certificate(X509Certificate certificate) {
        try {
            return block("CERTIFICATE", certificate.getEncoded());
        } catch (CertificateException e) {
            throw new IllegalStateException("cannot encode a certificate", e);
        }
    }

    public static String certificates(List<X509Certificate> certificates) {
        StringBuilder out = new StringBuilder();
        certificates.forEach(c -> out.append(certificate(c)));
        return out.toString();
    }

    /** PKCS#8 ("BEGIN PRIVATE KEY"), as the extender and kube-scheduler read it. */
    public static String privateKey(PrivateKey key) {
        return block("PRIVATE KEY", key.getEncoded());
    }

    /** Every certificate of a PEM bundle, in order; empty for null or blank text. */
    public static List<X509Certificate> parseCertificates(String pem) throws CertificateException {
        if (pem == null || pem.isBlank()) {
            return List.of();
        }
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        return factory.generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII))).stream()
                .map(X509Certificate.class::cast)
                .toList();
    }

    /** An EC (or RSA) PKCS#8 private key. */
    public static PrivateKey parsePrivateKey(String pem) throws GeneralSecurityException {
        Matcher m = PRIVATE_KEY.matcher(pem == null ? "" : pem);
        if (!m.find()) {
            throw new GeneralSecurityException("no PKCS#8 PRIVATE KEY block");
        }
        byte[] der = Base64.getMimeDecoder().decode(m.group(1).trim());
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        try {
            return KeyFactory.getInstance("EC").generatePrivate(spec);
        } catch (GeneralSecurityException notEc) {
            return KeyFactory.getInstance("RSA").generatePrivate(spec);
        }
    }

    private static String block(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }
}
