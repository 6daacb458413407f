package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the sandbox holds before any pod is placed, and the pods to place: a pure function of the snapshot and the
 * selection.
 *
 * @param namespaces every namespace a copied pod, Service or controller lives in
 * @param priorityClasses the live PriorityClasses but the built-in system ones, which every API server has
 * @param nodes every Node
 * @param services Services with a selector, of the namespaces of the pods to place
 * @param controllers ReplicaSets, StatefulSets and ReplicationControllers that control a pod to place
 * @param boundPods every pod bound to one of the nodes, but those placed again
 * @param podsToPlace in the order they are placed
 */
public record SandboxContents(
        List<ObjectNode> namespaces,
        List<ObjectNode> priorityClasses,
        List<ObjectNode> nodes,
        List<ObjectNode> services,
        List<ObjectNode> controllers,
        List<ObjectNode> boundPods,
        List<PodToPlace> podsToPlace) {

    /** Names of the PriorityClasses every API server creates itself. */
    static final String SYSTEM_PRIORITY_CLASS_PREFIX = "system-";

    /** The namespaces every API server makes itself. */
    static final Set<String> BUILT_IN_NAMESPACES = Set.of("default", "kube-system", "kube-public", "kube-node-lease");

    public SandboxContents {
        namespaces = List.copyOf(namespaces);
        priorityClasses = List.copyOf(priorityClasses);
        nodes = List.copyOf(nodes);
        services = List.copyOf(services);
        controllers = List.copyOf(controllers);
        boundPods = List.copyOf(boundPods);
        podsToPlace = List.copyOf(podsToPlace);
    }

    /** Thrown when the selection names what the snapshot does not hold (a pod to explain that is gone). */
    public static final class NothingToPlaceException extends IllegalArgumentException {
        public NothingToPlaceException(String message) {
            super(message);
        }
    }

    public static SandboxContents of(Snapshot snapshot, PodSelection selection) {
        List<PodToPlace> toPlace = new ArrayList<>();
        List<ObjectNode> bound = new ArrayList<>();
        Set<String> namespaces = new TreeSet<>();
        List<JsonNode> placedAgain = new ArrayList<>();
        Set<String> nodeNames = new java.util.HashSet<>();
        snapshot.nodes().forEach(n -> nodeNames.add(n.at("/metadata/name").asText()));
        for (JsonNode pod : snapshot.pods()) {
            if (selection.places(pod)) {
                placedAgain.add(pod);
            } else if (nodeNames.contains(pod.at("/spec/nodeName").asText(""))) {
                // A pod bound to a node that is gone (its Node deleted, the pod not yet collected) is left out:
                // kube-scheduler would count a node of its own for it, and it weighs on no node that exists.
                bound.add(SnapshotCopy.boundPod(pod));
                namespaces.add(SnapshotCopy.namespaceOf(pod));
            }
        }
        placedAgain.sort(Comparator.comparing(
                        (JsonNode p) -> p.at("/metadata/creationTimestamp").asText(""))
                .thenComparing(p -> p.at("/metadata/namespace").asText())
                .thenComparing(p -> p.at("/metadata/name").asText()));
        for (JsonNode pod : placedAgain) {
            toPlace.add(live(pod));
        }
        if (selection.kind() == PodSelection.Kind.ONE_POD) {
            if (toPlace.isEmpty()) {
                throw new NothingToPlaceException("pod " + selection.namespace() + "/" + selection.name()
                        + " is not in the cluster (or has finished)");
            }
            String scheduler = placedAgain.get(0).at("/spec/schedulerName").asText();
            if (!scheduler.equals(selection.schedulerName())) {
                throw new NothingToPlaceException("pod " + selection.namespace() + "/" + selection.name()
                        + " is scheduled by " + scheduler + ", not by the profile explained (schedulerName "
                        + selection.schedulerName() + ")");
            }
        }
        int index = 0;
        for (JsonNode sample : selection.samples()) {
            toPlace.add(sample(sample, index++, snapshot.priorityClasses()));
        }
        Set<String> placedNamespaces = new TreeSet<>();
        toPlace.forEach(p -> placedNamespaces.add(p.namespace()));
        namespaces.addAll(placedNamespaces);

        List<ObjectNode> services = new ArrayList<>();
        for (JsonNode service : snapshot.services()) {
            String ns = service.at("/metadata/namespace").asText();
            ObjectNode copy = placedNamespaces.contains(ns) ? SnapshotCopy.service(service) : null;
            if (copy != null) {
                services.add(copy);
            }
        }
        Set<String> owners = new TreeSet<>();
        for (PodToPlace p : toPlace) {
            JsonNode owner = SnapshotCopy.controllerOf(p.pod());
            if (owner != null) {
                owners.add(p.namespace() + "/" + owner.path("kind").asText() + "/"
                        + owner.path("name").asText());
            }
        }
        List<ObjectNode> controllers = new ArrayList<>();
        for (JsonNode controller : snapshot.controllers()) {
            String id = controller.at("/metadata/namespace").asText() + "/"
                    + controller.path("kind").asText() + "/"
                    + controller.at("/metadata/name").asText();
            if (owners.contains(id)) {
                controllers.add(SnapshotCopy.workloadController(controller));
            }
        }
        return new SandboxContents(
                namespaces.stream()
                        .filter(ns -> !BUILT_IN_NAMESPACES.contains(ns))
                        .map(SnapshotCopy::namespace)
                        .toList(),
                snapshot.priorityClasses().stream()
                        .filter(pc -> !pc.at("/metadata/name").asText().startsWith(SYSTEM_PRIORITY_CLASS_PREFIX))
                        .map(SnapshotCopy::priorityClass)
                        .toList(),
                snapshot.nodes().stream().map(SnapshotCopy::node).toList(),
                services,
                controllers,
                bound,
                toPlace);
    }

    private static PodToPlace live(JsonNode pod) {
        SnapshotCopy.CopiedPod copy = SnapshotCopy.podToPlace(pod);
        String node = pod.at("/spec/nodeName").asText("");
        return new PodToPlace(
                SnapshotCopy.namespaceOf(pod),
                pod.at("/metadata/name").asText(),
                false,
                node.isEmpty() ? null : node,
                node.isEmpty() ? pendingState(pod) : "bound",
                copy.pod(),
                copy.omissions());
    }

    private static String pendingState(JsonNode pod) {
        for (JsonNode condition : pod.at("/status/conditions")) {
            if ("PodScheduled".equals(condition.path("type").asText())
                    && "False".equals(condition.path("status").asText())) {
                return "Pending: "
                        + condition
                                .path("message")
                                .asText(condition.path("reason").asText(""));
            }
        }
        return "Pending";
    }

    private static PodToPlace sample(JsonNode sample, int index, List<JsonNode> priorityClasses) {
        ObjectNode given = sample.deepCopy();
        ObjectNode metadata = given.has("metadata") ? (ObjectNode) given.get("metadata") : given.putObject("metadata");
        if (metadata.path("name").asText("").isEmpty()) {
            metadata.put("name", metadata.path("generateName").asText("sample-") + index);
        }
        SnapshotCopy.CopiedPod copy = SnapshotCopy.podToPlace(given);
        List<String> omissions = new ArrayList<>(copy.omissions());
        PodPriority.admit(copy.pod(), priorityClasses).ifPresent(omissions::add);
        return new PodToPlace(
                SnapshotCopy.namespaceOf(given),
                metadata.path("name").asText(),
                true,
                null,
                "sample",
                copy.pod(),
                omissions);
    }
}
