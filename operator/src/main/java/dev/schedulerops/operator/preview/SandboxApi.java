package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Map;

/** The sandbox's API server: a client with the sandbox's token, and the paths objects are created at. */
public final class SandboxApi {
    private static final Map<String, String> COLLECTIONS = Map.of(
            "Namespace", "/api/v1/namespaces",
            "Node", "/api/v1/nodes",
            "PriorityClass", "/apis/scheduling.k8s.io/v1/priorityclasses",
            "Pod", "/api/v1/namespaces/%s/pods",
            "Service", "/api/v1/namespaces/%s/services",
            "ReplicationController", "/api/v1/namespaces/%s/replicationcontrollers",
            "ReplicaSet", "/apis/apps/v1/namespaces/%s/replicasets",
            "StatefulSet", "/apis/apps/v1/namespaces/%s/statefulsets");

    private SandboxApi() {}

    /** A client of the sandbox API server (loopback, its own self-signed certificate, the sandbox's token). */
    public static KubernetesClient client(SandboxLayout layout, String token) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(layout.apiServerUrl())
                .withOauthToken(token)
                .withTrustCerts(true)
                .withDisableHostnameVerification(true)
                .withRequestTimeout(30_000)
                .withMaxConcurrentRequests(64)
                .withMaxConcurrentRequestsPerHost(32)
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** Creates an object from its JSON; an API error says which object. */
    public static void create(KubernetesClient sandbox, JsonNode object) {
        String kind = object.path("kind").asText();
        String collection = COLLECTIONS.get(kind);
        if (collection == null) {
            throw new IllegalArgumentException("the sandbox does not copy " + kind + " objects");
        }
        String path = collection.contains("%s")
                ? collection.formatted(object.at("/metadata/namespace").asText())
                : collection;
        try {
            sandbox.raw(path, "POST", Json.write(object));
        } catch (KubernetesClientException e) {
            throw new SandboxException("the sandbox refused " + kind + " " + name(object) + ": " + e.getMessage(), e);
        }
    }

    static String name(JsonNode object) {
        String ns = object.at("/metadata/namespace").asText("");
        return (ns.isEmpty() ? "" : ns + "/") + object.at("/metadata/name").asText();
    }

    /** Waits until the sandbox API server answers /readyz with ok. */
    public static void awaitReady(KubernetesClient sandbox, Duration timeout, Runnable stillAlive) {
        Deadline deadline = Deadline.in(timeout);
        String last = "no answer";
        while (!deadline.passed()) {
            stillAlive.run();
            try {
                String ready = sandbox.raw("/readyz");
                if ("ok".equals(ready)) {
                    return;
                }
                last = String.valueOf(ready);
            } catch (KubernetesClientException e) {
                last = e.getMessage();
            }
            deadline.pause(Duration.ofMillis(200));
        }
        throw new SandboxException("the sandbox API server was not ready within " + timeout + ": " + last);
    }
}
