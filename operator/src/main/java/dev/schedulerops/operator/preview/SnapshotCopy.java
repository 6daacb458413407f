package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * What the sandbox copies of a live object: only the fields kube-scheduler's plugins read, nothing else. No
 * environment, command, volume mount, probe, security context, Secret or annotation leaves the live cluster; a pod's
 * containers keep their name, image (ImageLocality), resources and ports (NodePorts). Pure: live JSON in, sandbox JSON
 * out, so that what is copied is read here and tested without a cluster.
 */
public final class SnapshotCopy {
    /** The pod spec fields the default plugins read (besides containers, nodeName and schedulerName). */
    static final List<String> POD_SPEC_FIELDS = List.of(
            "nodeSelector",
            "affinity",
            "tolerations",
            "topologySpreadConstraints",
            "priority",
            "priorityClassName",
            "preemptionPolicy",
            "overhead",
            "hostNetwork",
            "os",
            "resources");

    /** The container fields the default plugins read. */
    static final List<String> CONTAINER_FIELDS = List.of("name", "image", "ports", "restartPolicy");

    /** A pod to place, as copied, with what was left out that can matter for its placement. */
    public record CopiedPod(ObjectNode pod, List<String> omissions) {
        public CopiedPod {
            omissions = List.copyOf(omissions);
        }
    }

    private SnapshotCopy() {}

    /** A Node: name, labels, taints, whether cordoned, capacity, allocatable and the images it holds. */
    public static ObjectNode node(JsonNode live) {
        ObjectNode node = Json.object();
        node.put("apiVersion", "v1").put("kind", "Node");
        ObjectNode metadata = node.putObject("metadata");
        metadata.put("name", live.at("/metadata/name").asText());
        copy(live.at("/metadata"), metadata, "labels");
        ObjectNode spec = node.putObject("spec");
        copy(live.at("/spec"), spec, "taints");
        copy(live.at("/spec"), spec, "unschedulable");
        ObjectNode status = node.putObject("status");
        copy(live.at("/status"), status, "capacity");
        copy(live.at("/status"), status, "allocatable");
        JsonNode images = live.at("/status/images");
        if (images.isArray() && !images.isEmpty()) {
            ArrayNode copied = status.putArray("images");
            for (JsonNode image : images) {
                ObjectNode one = copied.addObject();
                copy(image, one, "names");
                copy(image, one, "sizeBytes");
            }
        }
        return node;
    }

    /** A pod bound to a node: its usage, and its labels and affinity for inter-pod affinity and topology spread. */
    public static ObjectNode boundPod(JsonNode live) {
        ObjectNode pod = pod(live, new ArrayList<>());
        ((ObjectNode) pod.get("spec")).put("nodeName", live.at("/spec/nodeName").asText());
        return pod;
    }

    /**
     * A pod to place: the same copy, unbound, with what mattered and was left out (volumes that need claims, resource
     * claims, scheduling gates). Its schedulerName is set per run.
     */
    public static CopiedPod podToPlace(JsonNode live) {
        List<String> omissions = new ArrayList<>();
        ObjectNode pod = pod(live, omissions);
        return new CopiedPod(pod, omissions);
    }

    private static ObjectNode pod(JsonNode live, List<String> omissions) {
        ObjectNode pod = Json.object();
        pod.put("apiVersion", "v1").put("kind", "Pod");
        ObjectNode metadata = pod.putObject("metadata");
        metadata.put("name", live.at("/metadata/name").asText());
        metadata.put("namespace", namespaceOf(live));
        copy(live.at("/metadata"), metadata, "labels");
        JsonNode controller = controllerOf(live);
        if (controller != null) {
            ObjectNode ref = metadata.putArray("ownerReferences").addObject();
            for (String field : List.of("apiVersion", "kind", "name", "uid")) {
                copy(controller, ref, field);
            }
            ref.put("controller", true);
        }
        JsonNode liveSpec = live.path("spec");
        ObjectNode spec = pod.putObject("spec");
        for (String field : POD_SPEC_FIELDS) {
            copy(liveSpec, spec, field);
        }
        spec.put("automountServiceAccountToken", false);
        spec.set("containers", containers(liveSpec.path("containers")));
        if (liveSpec.path("initContainers").isArray()
                && !liveSpec.path("initContainers").isEmpty()) {
            spec.set("initContainers", containers(liveSpec.path("initContainers")));
        }
        if (claimsVolumes(liveSpec.path("volumes"))) {
            omissions.add("its persistent volume claims are not replayed: volume binding, zones and attach limits"
                    + " are not checked");
        }
        if (liveSpec.path("resourceClaims").isArray()
                && !liveSpec.path("resourceClaims").isEmpty()) {
            omissions.add("its resource claims (dynamic resource allocation) are not replayed");
        }
        if (liveSpec.path("schedulingGates").isArray()
                && !liveSpec.path("schedulingGates").isEmpty()) {
            omissions.add("its scheduling gates were removed: it is placed as if they were lifted");
        }
        return pod;
    }

    private static ArrayNode containers(JsonNode live) {
        ArrayNode containers = Json.MAPPER.createArrayNode();
        for (JsonNode container : live) {
            ObjectNode copied = containers.addObject();
            for (String field : CONTAINER_FIELDS) {
                copy(container, copied, field);
            }
            if (!copied.has("image")) {
                copied.put("image", "unknown");
            }
            JsonNode resources = container.path("resources");
            if (resources.isObject()) {
                ObjectNode r = copied.putObject("resources");
                copy(resources, r, "requests");
                copy(resources, r, "limits");
            }
        }
        return containers;
    }

    /** Whether a volume needs a claim (a PersistentVolumeClaim, an ephemeral one, or an inline CSI driver's). */
    private static boolean claimsVolumes(JsonNode volumes) {
        for (JsonNode volume : volumes) {
            if (volume.has("persistentVolumeClaim") || volume.has("ephemeral") || volume.has("csi")) {
                return true;
            }
        }
        return false;
    }

    /** A PriorityClass: its value, preemption policy and whether it is the default. */
    public static ObjectNode priorityClass(JsonNode live) {
        ObjectNode pc = Json.object();
        pc.put("apiVersion", "scheduling.k8s.io/v1").put("kind", "PriorityClass");
        pc.putObject("metadata").put("name", live.at("/metadata/name").asText());
        for (String field : List.of("value", "globalDefault", "preemptionPolicy")) {
            copy(live, pc, field);
        }
        return pc;
    }

    /**
     * A Service that selects pods: only its selector (kube-scheduler's default topology spread derives a pod's
     * selector from the Services, ReplicaSets, StatefulSets and ReplicationControllers that match it). Headless, so
     * that the sandbox allocates no address. Null for a Service without a selector.
     */
    public static ObjectNode service(JsonNode live) {
        JsonNode selector = live.at("/spec/selector");
        if (!selector.isObject() || selector.isEmpty()) {
            return null;
        }
        ObjectNode service = Json.object();
        service.put("apiVersion", "v1").put("kind", "Service");
        service.set("metadata", nameAndNamespace(live));
        ObjectNode spec = service.putObject("spec");
        spec.put("clusterIP", "None");
        spec.set("selector", selector.deepCopy());
        return service;
    }

    /**
     * A ReplicaSet, StatefulSet or ReplicationController: its selector and its template's labels (which the API
     * server requires to match), no replica, and a placeholder container.
     */
    public static ObjectNode workloadController(JsonNode live) {
        ObjectNode controller = Json.object();
        controller.put("apiVersion", live.path("apiVersion").asText());
        controller.put("kind", live.path("kind").asText());
        controller.set("metadata", nameAndNamespace(live));
        ObjectNode spec = controller.putObject("spec");
        spec.put("replicas", 0);
        copy(live.path("spec"), spec, "selector");
        if ("StatefulSet".equals(live.path("kind").asText())) {
            spec.put("serviceName", live.at("/spec/serviceName").asText(""));
        }
        ObjectNode template = spec.putObject("template");
        ObjectNode templateMetadata = template.putObject("metadata");
        copy(live.at("/spec/template/metadata"), templateMetadata, "labels");
        template.putObject("spec")
                .putArray("containers")
                .addObject()
                .put("name", "placeholder")
                .put("image", "placeholder");
        return controller;
    }

    /** A namespace of that name. */
    public static ObjectNode namespace(String name) {
        ObjectNode ns = Json.object();
        ns.put("apiVersion", "v1").put("kind", "Namespace");
        ns.putObject("metadata").put("name", name);
        return ns;
    }

    /** The pod's namespace; "default" for a pod given without one (a sample pod). */
    public static String namespaceOf(JsonNode pod) {
        String ns = pod.at("/metadata/namespace").asText("");
        return ns.isEmpty() ? "default" : ns;
    }

    /** The owner reference marked controller, or null. */
    static JsonNode controllerOf(JsonNode pod) {
        for (JsonNode ref : pod.at("/metadata/ownerReferences")) {
            if (ref.path("controller").asBoolean(false)) {
                return ref;
            }
        }
        return null;
    }

    private static ObjectNode nameAndNamespace(JsonNode live) {
        ObjectNode metadata = Json.object();
        metadata.put("name", live.at("/metadata/name").asText());
        metadata.put("namespace", live.at("/metadata/namespace").asText());
        return metadata;
    }

    private static void copy(JsonNode from, ObjectNode to, String field) {
        JsonNode value = from.get(field);
        if (value != null && !value.isNull() && !(value.isContainerNode() && value.isEmpty())) {
            to.set(field, value.deepCopy());
        }
    }

    /** The names of a JSON object's fields (for tests and messages). */
    static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
