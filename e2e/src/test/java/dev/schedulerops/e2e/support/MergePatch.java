package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.HashMap;
import java.util.Map;

/**
 * Label and annotation changes sent as JSON merge patches, which carry no resourceVersion.
 *
 * <p>{@code edit(...)} sends the resourceVersion it read, so it fails with 409 Conflict whenever something else
 * wrote the object in between; KWOK and the kubelet write Node and Pod status all the time (a CI run failed on
 * exactly that). A merge patch of one metadata key cannot lose anybody's update.
 */
public final class MergePatch {

    /** A plain mapper: fabric8's own leaves out null values, and a null is what removes a key. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private MergePatch() {}

    /** Sets {@code key=value} on the node, or removes the label when {@code value} is null. */
    public static void nodeLabel(KubernetesClient client, String node, String key, String value) {
        client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), metadata("labels", key, value));
    }

    /** Sets one annotation on a pod; any pod update makes kube-scheduler retry a pod it could not place. */
    public static void podAnnotation(KubernetesClient client, String namespace, String pod, String key, String value) {
        client.pods()
                .inNamespace(namespace)
                .withName(pod)
                .patch(PatchContext.of(PatchType.JSON_MERGE), metadata("annotations", key, value));
    }

    private static String metadata(String field, String key, String value) {
        Map<String, Object> entries = new HashMap<>();
        entries.put(key, value);
        try {
            return JSON.writeValueAsString(Map.of("metadata", Map.of(field, entries)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
