package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The live cluster as read for one preview, as the API server returned it: every Node, every pod that is not finished
 * (Succeeded or Failed pods hold no resources), every PriorityClass, and the Services and workload controllers
 * (ReplicaSets, StatefulSets, ReplicationControllers) of the namespaces whose pods are placed, for kube-scheduler's
 * default topology spread. Nothing of it is copied to the sandbox but what {@link SnapshotCopy} keeps.
 */
public record Snapshot(
        List<JsonNode> nodes,
        List<JsonNode> pods,
        List<JsonNode> priorityClasses,
        List<JsonNode> services,
        List<JsonNode> controllers) {

    public Snapshot {
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        priorityClasses = List.copyOf(priorityClasses);
        services = List.copyOf(services);
        controllers = List.copyOf(controllers);
    }

    /** How big it is, for the result: what a preview cost depends on. */
    public record Size(int nodes, int pods, int boundPods) {}

    public Size size() {
        int bound = (int) pods.stream()
                .filter(p -> !p.at("/spec/nodeName").asText("").isEmpty())
                .count();
        return new Size(nodes.size(), pods.size(), bound);
    }
}
