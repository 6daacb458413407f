package dev.schedulerops.operator.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/** A certificate and its private key. */
public record Issued(X509Certificate certificate, PrivateKey key) {
    public String certificatePem() {
        return Pem.certificate(certificate);
    }

    public String keyPem() {
        return Pem.privateKey(key);
    }

    public RotationPolicy.Validity validity() {
        return new RotationPolicy.Validity(
                certificate.getNotBefore().toInstant(),
                certificate.getNotAfter().toInstant());
    }
}
