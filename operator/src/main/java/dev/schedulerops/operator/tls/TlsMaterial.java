package dev.schedulerops.operator.tls;

import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.Names;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The PEM text of a profile's TLS material, and how it is laid out in its three Secrets (see the README, "Scheduler ↔
 * extender TLS"). During a CA rotation both trust bundles hold the current CA and then the previous one.
 *
 * @param previousCaCert the CA being rotated out, or null
 * @param clientCert the scheduler's client certificate, or null (mode Server)
 */
public record TlsMaterial(
        String caCert,
        String caKey,
        String previousCaCert,
        String servingCert,
        String servingKey,
        String clientCert,
        String clientKey) {

    /**
     * A short fingerprint of a Secret's data (the first 16 hex digits of the SHA-256 of its keys and values in key
     * order): stamped on the pod template of the pods that mount it, so that new material rolls them.
     */
    public static String hash(Map<String, String> data) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            new TreeMap<>(data).forEach((k, v) -> {
                digest.update((k + "\n" + v + "\n").getBytes(StandardCharsets.UTF_8));
            });
            return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    /** The CAs both sides trust: the current one, then the previous one during a rotation. */
    public String trustBundle() {
        return previousCaCert == null ? caCert : caCert + previousCaCert;
    }

    /** `<extender>-tls`, mounted into the extender. */
    public Map<String, String> extenderSecretData() {
        Map<String, String> data = new TreeMap<>();
        data.put(Names.TLS_CERT, servingCert);
        data.put(Names.TLS_KEY, servingKey);
        data.put(Names.CLIENT_CA, trustBundle());
        return data;
    }

    /** `<scheduler>-extender-client`, mounted into kube-scheduler: the client certificate only in mode Mutual. */
    public Map<String, String> schedulerSecretData(TlsMode mode) {
        Map<String, String> data = new TreeMap<>();
        data.put(Names.CA_CERT, trustBundle());
        if (mode == TlsMode.MUTUAL && clientCert != null) {
            data.put(Names.TLS_CERT, clientCert);
            data.put(Names.TLS_KEY, clientKey);
        }
        return data;
    }

    /** `<extender>-ca`, read by the operator only. */
    public Map<String, String> caSecretData() {
        Map<String, String> data = new TreeMap<>();
        data.put(Names.CA_CERT, caCert);
        data.put(Names.CA_KEY, caKey);
        if (previousCaCert != null) {
            data.put(Names.PREVIOUS_CA_CERT, previousCaCert);
        }
        return data;
    }
}
