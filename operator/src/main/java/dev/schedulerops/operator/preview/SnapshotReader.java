package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the live cluster for a preview, with list requests only (pages of {@link #PAGE} items): Nodes, unfinished
 * pods of every namespace, PriorityClasses, and the Services, ReplicaSets, StatefulSets and ReplicationControllers of
 * the namespaces whose pods are placed. It never writes.
 */
public final class SnapshotReader {
    static final int PAGE = 500;

    /** Finished pods hold no resources, and kube-scheduler ignores them too. */
    static final String UNFINISHED = "status.phase!=Succeeded,status.phase!=Failed";

    private final KubernetesClient live;

    public SnapshotReader(KubernetesClient live) {
        this.live = live;
    }

    public Snapshot read(PodSelection selection) {
        List<JsonNode> nodes = list("/api/v1/nodes", null);
        List<JsonNode> pods = list("/api/v1/pods", UNFINISHED);
        List<JsonNode> priorityClasses = list("/apis/scheduling.k8s.io/v1/priorityclasses", null);
        Set<String> namespaces = new TreeSet<>();
        for (JsonNode pod : pods) {
            if (selection.places(pod)) {
                namespaces.add(SnapshotCopy.namespaceOf(pod));
            }
        }
        selection.samples().forEach(s -> namespaces.add(SnapshotCopy.namespaceOf(s)));
        List<JsonNode> services = new ArrayList<>();
        List<JsonNode> controllers = new ArrayList<>();
        for (String ns : namespaces) {
            services.addAll(list("/api/v1/namespaces/" + ns + "/services", null));
            controllers.addAll(list("/apis/apps/v1/namespaces/" + ns + "/replicasets", null));
            controllers.addAll(list("/apis/apps/v1/namespaces/" + ns + "/statefulsets", null));
            controllers.addAll(list("/api/v1/namespaces/" + ns + "/replicationcontrollers", null));
        }
        return new Snapshot(nodes, pods, priorityClasses, services, controllers);
    }

    /** Every item of a list, page by page, each with its apiVersion and kind set (list items carry neither). */
    private List<JsonNode> list(String path, String fieldSelector) {
        List<JsonNode> items = new ArrayList<>();
        String next = "";
        do {
            StringBuilder uri = new StringBuilder(path).append("?limit=").append(PAGE);
            if (fieldSelector != null) {
                uri.append("&fieldSelector=").append(encode(fieldSelector));
            }
            if (!next.isEmpty()) {
                uri.append("&continue=").append(encode(next));
            }
            String body = live.raw(uri.toString());
            if (body == null) {
                return items; // 404: e.g. a namespace gone meanwhile
            }
            JsonNode page = Json.tree(body);
            String kind = page.path("kind").asText();
            String itemKind = kind.endsWith("List") ? kind.substring(0, kind.length() - 4) : kind;
            for (JsonNode item : page.path("items")) {
                var object = (com.fasterxml.jackson.databind.node.ObjectNode) item;
                object.put("apiVersion", page.path("apiVersion").asText());
                object.put("kind", itemKind);
                items.add(object);
            }
            next = page.at("/metadata/continue").asText("");
        } while (!next.isEmpty());
        return items;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
