package dev.schedulerops.operator.tls;

import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.Names;
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
