package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Places one pod at a time in the sandbox, as pods arrive one after the other in a cluster: creates it for the run's
 * scheduler and waits for kube-scheduler's verdict, bound (then reads the scores it logged) or unschedulable (its
 * first attempt's reason; a pod that preemption will place is waited for until bound).
 */
final class PodPlacer {
    /** How long the log may lag behind the binding the API server reports. */
    static final Duration LOG_LAG = Duration.ofSeconds(10);

    private final KubernetesClient sandbox;
    private final SandboxPodWatch pods;
    private final Duration podTimeout;

    PodPlacer(KubernetesClient sandbox, SandboxPodWatch pods, Duration podTimeout) {
        this.sandbox = sandbox;
        this.pods = pods;
        this.podTimeout = podTimeout;
    }

    Placement place(String schedulerName, String namespace, String name, ObjectNode pod, SchedulerLog log) {
        String key = namespace + "/" + name;
        int mark = pods.mark();
        try {
            SandboxApi.create(sandbox, pod);
        } catch (SandboxException e) {
            return new Placement(key, Placement.Verdict.REFUSED, null, e.getMessage(), null, List.of());
        }
        Pod decided;
        try {
            decided = pods.await(namespace, name, PodPlacer::decided, podTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted", e);
        }
        if (!decided(decided)) {
            Pod last = decided;
            return new Placement(
                    key,
                    Placement.Verdict.NO_VERDICT,
                    null,
                    "no verdict from " + schedulerName + " within " + podTimeout.toSeconds() + " s"
                            + scheduledCondition(last)
                                    .map(c -> ": " + c.getMessage())
                                    .orElse(""),
                    null,
                    List.of());
        }
        String node = decided.getSpec().getNodeName();
        if (node == null || node.isEmpty()) {
            return new Placement(
                    key,
                    Placement.Verdict.UNSCHEDULABLE,
                    null,
                    scheduledCondition(decided).map(PodCondition::getMessage).orElse(""),
                    null,
                    List.of());
        }
        PodScoring scoring;
        try {
            scoring = log.await(key, LOG_LAG).orElse(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted", e);
        }
        return new Placement(key, Placement.Verdict.BOUND, node, null, scoring, pods.since(mark));
    }

    /** Bound, or unschedulable with no node nominated for it (a nominated pod waits for its victims to go). */
    static boolean decided(Pod pod) {
        if (pod == null) {
            return false;
        }
        if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty()) {
            return true;
        }
        boolean nominated = pod.getStatus() != null
                && pod.getStatus().getNominatedNodeName() != null
                && !pod.getStatus().getNominatedNodeName().isEmpty();
        return !nominated
                && scheduledCondition(pod)
                        .filter(c -> "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason()))
                        .isPresent();
    }

    static Optional<PodCondition> scheduledCondition(Pod pod) {
        if (pod == null || pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType()))
                .findFirst();
    }

    /** Deletes a pod at once (no kubelet would finish a graceful deletion). */
    void remove(String namespace, String name) {
        pods.ours(namespace, name);
        try {
            sandbox.pods()
                    .inNamespace(namespace)
                    .withName(name)
                    .withGracePeriod(0)
                    .delete();
        } catch (KubernetesClientException gone) {
            // already gone
        }
    }
}
