package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Each filter's verdict on a node, node by node. kube-scheduler's own message counts reasons over all nodes and
 * names none, so the sandbox asks it about each node alone: a probe, a copy of the pod that may only go to that node
 * (a required node affinity on {@code metadata.name}, added to each of the pod's own terms), placed by the same
 * scheduler; its reason is the node's. A probe that binds shows the node feasible, and is deleted before the next one,
 * so probes never see each other, and it never preempts.
 *
 * <p>Approximate: with {@code nodeAffinityPolicy: Honor} (the default) a topology spread constraint counts only the
 * nodes the pod's affinity allows, and a probe's allows one. A probe of a pod with no node affinity or selector of its
 * own counts every node instead ({@code nodeAffinityPolicy: Ignore}), which is the same; a pod that has both a hard
 * spread constraint and an affinity of its own gets verdicts marked approximate.
 */
final class NodeProbes {
    static final String PROBE_SUFFIX = "-probe-";

    private NodeProbes() {}

    /** The probe of {@code pod} on {@code node}: only that node is allowed. */
    static ObjectNode probe(ObjectNode pod, String node, int index) {
        ObjectNode probe = pod.deepCopy();
        ObjectNode metadata = (ObjectNode) probe.get("metadata");
        metadata.put("name", truncate(metadata.path("name").asText(), 200) + PROBE_SUFFIX + index);
        ObjectNode spec = (ObjectNode) probe.get("spec");
        // A probe asks about filters only: it never preempts (an eviction would change the node it asks about).
        spec.put("preemptionPolicy", "Never");
        boolean ownSelection = hasOwnNodeSelection(spec);
        ObjectNode required = spec.withObject("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution");
        ArrayNode terms = required.withArray("nodeSelectorTerms");
        if (terms.isEmpty()) {
            terms.addObject();
        }
        for (JsonNode term : terms) {
            ArrayNode fields = ((ObjectNode) term).withArray("matchFields");
            fields.addObject()
                    .put("key", "metadata.name")
                    .put("operator", "In")
                    .putArray("values")
                    .add(node);
        }
        if (!ownSelection) {
            for (JsonNode constraint : spec.path("topologySpreadConstraints")) {
                ((ObjectNode) constraint).put("nodeAffinityPolicy", "Ignore");
            }
        }
        return probe;
    }

    /** Whether a probe's spread verdicts may differ from kube-scheduler's (see the class comment). */
    static boolean approximate(ObjectNode pod) {
        ObjectNode spec = (ObjectNode) pod.get("spec");
        if (!hasOwnNodeSelection(spec)) {
            return false;
        }
        for (JsonNode constraint : spec.path("topologySpreadConstraints")) {
            if ("DoNotSchedule".equals(constraint.path("whenUnsatisfiable").asText())
                    && !"Ignore".equals(constraint.path("nodeAffinityPolicy").asText())) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasOwnNodeSelection(ObjectNode spec) {
        return (spec.path("nodeSelector").isObject()
                        && !spec.path("nodeSelector").isEmpty())
                || !spec.at("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution")
                        .isMissingNode();
    }

    /**
     * The probed node's verdict from a probe's outcome: bound means feasible; otherwise the reasons of the FitError
     * but the one every other node gets (they are not allowed).
     */
    static NodeVerdict verdict(String node, Placement probe, boolean approximate) {
        if (probe.bound()) {
            return new NodeVerdict(node, true, null, "passes every filter", approximate);
        }
        if (probe.verdict() != Placement.Verdict.UNSCHEDULABLE) {
            return new NodeVerdict(node, false, "unknown", probe.message(), approximate);
        }
        List<String> reasons = new ArrayList<>();
        String filter = null;
        for (FilterReasons.Reason reason : FilterReasons.parse(probe.message())) {
            if (reason.filter().equals("PreFilter") && reason.reason().contains("NodeAffinity")) {
                continue; // the other nodes, which the probe may not use
            }
            reasons.add(reason.reason());
            filter = filter == null ? reason.filter() : filter;
        }
        if (reasons.isEmpty()) {
            return new NodeVerdict(node, false, "unknown", probe.message(), approximate);
        }
        return new NodeVerdict(node, false, filter, String.join(", ", reasons), approximate);
    }

    private static String truncate(String name, int max) {
        return name.length() <= max ? name : name.substring(0, max);
    }
}
