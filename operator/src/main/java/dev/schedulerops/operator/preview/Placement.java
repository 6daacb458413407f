package dev.schedulerops.operator.preview;

import java.util.List;

/**
 * Where a sandbox scheduler put one pod.
 *
 * @param pod namespace/name
 * @param verdict what happened
 * @param node the node, when bound
 * @param message kube-scheduler's reason when unschedulable, the API server's when refused
 * @param scoring what kube-scheduler's log says of the binding cycle, when bound (null when the log did not say)
 * @param preempted pods (namespace/name) deleted by preemption while this pod was placed
 */
public record Placement(
        String pod, Verdict verdict, String node, String message, PodScoring scoring, List<String> preempted) {
    public enum Verdict {
        BOUND,
        UNSCHEDULABLE,
        /** No verdict within the pod's time limit. */
        NO_VERDICT,
        /** The sandbox API server refused the pod (it would not be valid in the live cluster either). */
        REFUSED
    }

    public Placement {
        preempted = preempted == null ? List.of() : List.copyOf(preempted);
    }

    public boolean bound() {
        return verdict == Verdict.BOUND;
    }

    /** The nodes tied with the chosen one at the top score (empty when there is no tie). */
    public List<String> tiedNodes() {
        return scoring != null && scoring.tie() ? scoring.topNodes() : List.of();
    }
}
