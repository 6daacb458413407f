package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.ZonedDateTime;
import java.util.Optional;

/**
 * When a profile's leading kube-scheduler has stopped, gives its lease back on its behalf, so that the standby takes
 * over at its next retry (every {@code retryPeriod}) instead of after the lease runs out ({@code leaseDuration}, 15 s,
 * and longer on a loaded machine). kube-scheduler releases its lease itself when it stops, but only if that last
 * update reaches the API server: a renewal still in flight at the SIGTERM leaves it with a stale resource version,
 * and its release then fails on the conflict (kubernetes/client-go#1417; RealNodeDrainTest's followed logs show
 * it), and a busy API server can time it out.
 *
 * <p>Safe because it acts only on what the node's kubelet reported: the lease is released only while its holder is a
 * scheduler pod whose kube-scheduler container is not running (terminated, or waiting to be restarted), and was last
 * renewed before that container stopped, so no process that could still schedule holds it. A pod that merely
 * disappeared (force-deleted, or a node cut off, whose kubelet can report nothing) is never a reason: then the lease
 * runs out as leader election intends. The update carries the resource version it read, so a lease the standby (or
 * anyone) wrote meanwhile is left alone. Pure; the runtime
 * watches the scheduler pods and applies it.
 */
public final class SchedulerLeaseHandOver {
    private SchedulerLeaseHandOver() {}

    /** The name of the lease a scheduler pod's process may hold, or empty for a pod that is not a profile's scheduler. */
    public static Optional<String> leaseOf(Pod pod) {
        var labels = pod.getMetadata().getLabels();
        if (labels == null
                || !Labels.COMPONENT_SCHEDULER.equals(labels.get(Labels.COMPONENT))
                || !Labels.MANAGED_BY_VALUE.equals(labels.get(Labels.MANAGED_BY))
                || labels.get(Labels.PROFILE) == null) {
            return Optional.empty();
        }
        return Optional.of(
                new Names(labels.get(Labels.PROFILE), pod.getMetadata().getNamespace()).schedulerLease());
    }

    /** Whether the pod's kube-scheduler container is known not to run: the kubelet reported it terminated or waiting. */
    public static boolean schedulerStopped(Pod pod) {
        return schedulerContainer(pod).map(SchedulerLeaseHandOver::notRunning).orElse(false);
    }

    /** The kube-scheduler container's status, once the kubelet has reported one. */
    private static Optional<ContainerStatus> schedulerContainer(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getContainerStatuses().stream()
                .filter(c -> Names.SCHEDULER_CONTAINER.equals(c.getName()))
                .findFirst();
    }

    /**
     * Whether the pod is being deleted (an eviction, a rollout) while its kube-scheduler container still runs: the
     * kubelet has yet to stop it and report it stopped.
     */
    public static boolean beingStopped(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null && !schedulerStopped(pod);
    }

    /**
     * Whether an operator that led and is stopping keeps handing over: always for {@code min} (a drain evicts the pods
     * of a node at about the same time, so a scheduler's eviction may come just after the operator's), then while a
     * scheduler pod is {@linkplain #beingStopped being stopped}, never beyond {@code max}.
     */
    public static boolean keepHandingOverWhileStopping(
            java.time.Duration elapsed,
            java.time.Duration min,
            java.time.Duration max,
            boolean aSchedulerIsBeingStopped) {
        if (elapsed.compareTo(max) >= 0) {
            return false;
        }
        return elapsed.compareTo(min) < 0 || aSchedulerIsBeingStopped;
    }

    /**
     * Whether the lease was renewed after the container last stopped (its finishedAt, whole seconds, so a second's
     * slack): then a process that started since holds it, and the pod's identity prefix alone cannot tell. The kubelet
     * restarts a crashed container in the same pod, and a replica may act on an event from before that restart (each
     * replica hands over from a queue). Both times come from the same node's clock.
     */
    static boolean renewedAfterItStopped(Lease lease, Pod pod) {
        ZonedDateTime renewed = lease.getSpec().getRenewTime();
        return renewed != null
                && stoppedAt(pod)
                        .map(stopped -> renewed.isAfter(stopped.plusSeconds(1)))
                        .orElse(false);
    }

    /** When the kube-scheduler container last stopped, as the kubelet reported it, if it did. */
    private static Optional<ZonedDateTime> stoppedAt(Pod pod) {
        return schedulerContainer(pod)
                .flatMap(c -> Optional.ofNullable(
                                c.getState() == null ? null : c.getState().getTerminated())
                        .or(() -> Optional.ofNullable(
                                c.getLastState() == null
                                        ? null
                                        : c.getLastState().getTerminated())))
                .map(ContainerStateTerminated::getFinishedAt)
                .filter(finished -> finished != null && !finished.isEmpty())
                .map(ZonedDateTime::parse);
    }

    private static boolean notRunning(ContainerStatus container) {
        var state = container.getState();
        return state != null
                && state.getRunning() == null
                && (state.getTerminated() != null || state.getWaiting() != null);
    }

    /**
     * The lease released as client-go releases one (no holder, a 1 s duration, acquire and renew times now, the
     * transition count kept), when its holder is {@code pod}'s process and that process has stopped; otherwise empty.
     * kube-scheduler's identity is its hostname (the pod's name) and "_" and a random id.
     */
    public static Optional<Lease> released(Lease lease, Pod pod, ZonedDateTime now) {
        if (lease == null || lease.getSpec() == null || !schedulerStopped(pod)) {
            return Optional.empty();
        }
        String holder = lease.getSpec().getHolderIdentity();
        if (!heldFrom(holder, pod.getMetadata().getName())) {
            return Optional.empty();
        }
        if (renewedAfterItStopped(lease, pod)) {
            return Optional.empty();
        }
        return Optional.of(releasedCopy(lease, now, "operator for " + holder));
    }

    /**
     * What the scheduler pod's {@code release-lease} sidecar gives back when the kubelet stops it, which it does only
     * after the pod's kube-scheduler has exited for good (a native sidecar is stopped after the main containers, and a
     * pod being deleted restarts nothing): the lease released when a process of this pod ({@code hostname}, as
     * kube-scheduler reads it) holds it; otherwise empty.
     */
    public static Optional<Lease> releasedByItsPod(Lease lease, String hostname, ZonedDateTime now) {
        if (lease == null || lease.getSpec() == null) {
            return Optional.empty();
        }
        String holder = lease.getSpec().getHolderIdentity();
        return heldFrom(holder, hostname)
                ? Optional.of(releasedCopy(lease, now, "release-lease for " + holder))
                : Optional.empty();
    }

    private static boolean heldFrom(String holder, String hostname) {
        return holder != null && hostname != null && !hostname.isEmpty() && holder.startsWith(hostname + "_");
    }

    /**
     * {@code lease} as client-go writes a released one; the annotation {@link Labels#LEASE_RELEASED_BY} says who gave
     * it back, for whom: kept until the next release. The operator's own lease is released the same way.
     */
    public static Lease releasedCopy(Lease lease, ZonedDateTime now, String releasedBy) {
        return new LeaseBuilder(lease)
                .editMetadata()
                .addToAnnotations(Labels.LEASE_RELEASED_BY, releasedBy)
                .endMetadata()
                .editSpec()
                .withHolderIdentity(null)
                .withLeaseDurationSeconds(1)
                .withAcquireTime(now)
                .withRenewTime(now)
                .endSpec()
                .build();
    }
}
