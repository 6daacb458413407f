package dev.schedulerops.e2e.support;

import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

/** Short-lived ServiceAccount tokens (the TokenRequest API), for running a process as that ServiceAccount. */
public final class ServiceAccountTokens {
    private ServiceAccountTokens() {}

    public static String request(KubernetesClient admin, String namespace, String serviceAccount, Duration validity) {
        return admin.serviceAccounts()
                .inNamespace(namespace)
                .withName(serviceAccount)
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(validity.toSeconds())
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
    }
}
