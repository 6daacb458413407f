package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class SchedulerLeaseHandOverTest {
    private static final ZonedDateTime NOW = ZonedDateTime.parse("2026-11-27T22:00:00Z");
    private static final ZonedDateTime EARLIER = NOW.minusSeconds(3);

    private static Pod schedulerPod(String name, String state) {
        var container = new ContainerStatusBuilder().withName(Names.SCHEDULER_CONTAINER);
        switch (state) {
            case "running" -> container.withState(
                    new ContainerStateBuilder().withNewRunning().endRunning().build());
            case "terminated" -> container.withState(new ContainerStateBuilder()
                    .withNewTerminated()
                    .withExitCode(0)
                    .endTerminated()
                    .build());
            case "crash-loop" -> container.withState(new ContainerStateBuilder()
                    .withNewWaiting()
                    .withReason("CrashLoopBackOff")
                    .endWaiting()
                    .build());
            default -> throw new IllegalArgumentException(state);
        }
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("schedulerops-system")
                .withLabels(Labels.component("gpu", Labels.COMPONENT_SCHEDULER))
                .endMetadata()
                .withNewStatus()
                .withContainerStatuses(container.build())
                .endStatus()
                .build();
    }

    private static Lease lease(String holder) {
        return new LeaseBuilder()
                .withNewMetadata()
                .withName("gpu-scheduler")
                .withNamespace("schedulerops-system")
                .withResourceVersion("42")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(15)
                .withAcquireTime(EARLIER)
                .withRenewTime(EARLIER)
                .withLeaseTransitions(3)
                .endSpec()
                .build();
    }

    @Test
    void theLeaseOfAStoppedLeaderIsReleasedAsClientGoReleasesItKeepingItsVersionAndTransitions() {
        Pod leader = schedulerPod("gpu-scheduler-7d9f-abcde", "terminated");

        Lease released = SchedulerLeaseHandOver.released(lease("gpu-scheduler-7d9f-abcde_0c1d2e"), leader, NOW)
                .orElseThrow();

        assertThat(released.getSpec().getHolderIdentity()).isNull();
        assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
        assertThat(released.getSpec().getRenewTime()).isEqualTo(NOW);
        assertThat(released.getSpec().getAcquireTime()).isEqualTo(NOW);
        assertThat(released.getSpec().getLeaseTransitions()).isEqualTo(3);
        assertThat(released.getMetadata().getResourceVersion())
                .as("the update is conditional on the lease as read")
                .isEqualTo("42");
        assertThat(SchedulerLeaseHandOver.leaseOf(leader))
                .contains(new Names("gpu", "schedulerops-system").schedulerLease());
        assertThat(released.getMetadata().getAnnotations())
                .as("who gave it back, for whom")
                .containsEntry(Labels.LEASE_RELEASED_BY, "operator for gpu-scheduler-7d9f-abcde_0c1d2e");
    }

    @Test
    void theSidecarGivesBackOnlyALeaseAProcessOfItsOwnPodHolds() {
        Lease released = SchedulerLeaseHandOver.releasedByItsPod(
                        lease("gpu-scheduler-7d9f-abcde_0c1d2e"), "gpu-scheduler-7d9f-abcde", NOW)
                .orElseThrow();
        assertThat(released.getSpec().getHolderIdentity()).isNull();
        assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
        assertThat(released.getSpec().getRenewTime()).isEqualTo(NOW);
        assertThat(released.getSpec().getLeaseTransitions()).isEqualTo(3);
        assertThat(released.getMetadata().getResourceVersion()).isEqualTo("42");
        assertThat(released.getMetadata().getAnnotations())
                .containsEntry(Labels.LEASE_RELEASED_BY, "release-lease for gpu-scheduler-7d9f-abcde_0c1d2e");

        assertThat(SchedulerLeaseHandOver.releasedByItsPod(
                        lease("gpu-scheduler-7d9f-xyzzy_0c1d2e"), "gpu-scheduler-7d9f-abcde", NOW))
                .as("the standby's pod holds it")
                .isEmpty();
        assertThat(SchedulerLeaseHandOver.releasedByItsPod(
                        lease("gpu-scheduler-7d9f-abcde-2_0c1d2e"), "gpu-scheduler-7d9f-abcde", NOW))
                .as("a pod whose name merely starts with this one's")
                .isEmpty();
        assertThat(SchedulerLeaseHandOver.releasedByItsPod(lease(null), "gpu-scheduler-7d9f-abcde", NOW))
                .as("already given back")
                .isEmpty();
        assertThat(SchedulerLeaseHandOver.releasedByItsPod(lease("_0c1d2e"), "", NOW))
                .as("no hostname read")
                .isEmpty();
        assertThat(SchedulerLeaseHandOver.releasedByItsPod(null, "gpu-scheduler-7d9f-abcde", NOW))
                .as("no lease yet")
                .isEmpty();
    }

    @Test
    void aLeaseRenewedAfterTheContainerStoppedIsARestartedProcesssAndIsLeftAlone() {
        // The kubelet restarted the container and the new process (same pod, new id) took the lease; an event from
        // before the restart still says "stopped".
        Pod stoppedLongAgo = schedulerPod("gpu-scheduler-7d9f-abcde", "terminated");
        stoppedLongAgo
                .getStatus()
                .getContainerStatuses()
                .get(0)
                .getState()
                .getTerminated()
                .setFinishedAt(EARLIER.minusSeconds(5).toString());
        assertThat(SchedulerLeaseHandOver.released(lease("gpu-scheduler-7d9f-abcde_9f9f9f"), stoppedLongAgo, NOW))
                .as("renewed 5 s after the container stopped")
                .isEmpty();

        Pod justStopped = schedulerPod("gpu-scheduler-7d9f-abcde", "terminated");
        justStopped
                .getStatus()
                .getContainerStatuses()
                .get(0)
                .getState()
                .getTerminated()
                .setFinishedAt(EARLIER.toString());
        assertThat(SchedulerLeaseHandOver.released(lease("gpu-scheduler-7d9f-abcde_0c1d2e"), justStopped, NOW))
                .as("last renewed as the container stopped")
                .isPresent();
    }

    @Test
    void aCrashLoopingLeaderIsStoppedToo() {
        assertThat(SchedulerLeaseHandOver.released(
                        lease("gpu-scheduler-7d9f-abcde_0c1d2e"),
                        schedulerPod("gpu-scheduler-7d9f-abcde", "crash-loop"),
                        NOW))
                .isPresent();
    }

    @Test
    void aRunningSchedulerAnotherPodsLeaseAndAFreeLeaseAreLeftAlone() {
        assertThat(SchedulerLeaseHandOver.released(
                        lease("gpu-scheduler-7d9f-abcde_0c1d2e"),
                        schedulerPod("gpu-scheduler-7d9f-abcde", "running"),
                        NOW))
                .as("its process may still schedule")
                .isEmpty();
        assertThat(SchedulerLeaseHandOver.released(
                        lease("gpu-scheduler-7d9f-zzzzz_0c1d2e"),
                        schedulerPod("gpu-scheduler-7d9f-abcde", "terminated"),
                        NOW))
                .as("held by the other replica")
                .isEmpty();
        assertThat(SchedulerLeaseHandOver.released(
                        lease("gpu-scheduler-7d9f-abcde-x_0c1d2e"),
                        schedulerPod("gpu-scheduler-7d9f-abcde", "terminated"),
                        NOW))
                .as("a pod whose name merely starts the same")
                .isEmpty();
        assertThat(SchedulerLeaseHandOver.released(
                        lease(null), schedulerPod("gpu-scheduler-7d9f-abcde", "terminated"), NOW))
                .as("already released")
                .isEmpty();
    }

    @Test
    void aPodWithoutStatusOrThatIsNotAProfilesSchedulerSaysNothing() {
        Pod noStatus = new PodBuilder(schedulerPod("gpu-scheduler-7d9f-abcde", "terminated"))
                .withStatus(null)
                .build();
        assertThat(SchedulerLeaseHandOver.schedulerStopped(noStatus)).isFalse();
        Pod extender = new PodBuilder(schedulerPod("gpu-extender-1", "terminated"))
                .editMetadata()
                .withLabels(Labels.component("gpu", Labels.COMPONENT_EXTENDER))
                .endMetadata()
                .build();
        assertThat(SchedulerLeaseHandOver.leaseOf(extender)).isEmpty();
    }

    @Test
    void aPodIsBeingStoppedFromItsDeletionUntilTheKubeletReportsItsSchedulerStopped() {
        Pod running = schedulerPod("gpu-scheduler-7d9f-abcde", "running");
        assertThat(SchedulerLeaseHandOver.beingStopped(running))
                .as("not deleted")
                .isFalse();
        Pod evicted = new PodBuilder(running)
                .editMetadata()
                .withDeletionTimestamp(NOW.toString())
                .endMetadata()
                .build();
        assertThat(SchedulerLeaseHandOver.beingStopped(evicted)).isTrue();
        Pod stopped = new PodBuilder(schedulerPod("gpu-scheduler-7d9f-abcde", "terminated"))
                .editMetadata()
                .withDeletionTimestamp(NOW.toString())
                .endMetadata()
                .build();
        assertThat(SchedulerLeaseHandOver.beingStopped(stopped))
                .as("stopped: nothing left to wait for")
                .isFalse();
    }

    @Test
    void aStoppingOperatorHandsOverForTheMinimumThenWhileASchedulerIsBeingStoppedNeverBeyondTheMaximum() {
        java.time.Duration min = java.time.Duration.ofSeconds(3);
        java.time.Duration max = java.time.Duration.ofSeconds(10);
        java.util.function.BiFunction<Integer, Boolean, Boolean> keep =
                (seconds, beingStopped) -> SchedulerLeaseHandOver.keepHandingOverWhileStopping(
                        java.time.Duration.ofSeconds(seconds), min, max, beingStopped);
        assertThat(keep.apply(0, false))
                .as("a scheduler's eviction may still come")
                .isTrue();
        assertThat(keep.apply(2, false)).isTrue();
        assertThat(keep.apply(3, false))
                .as("nothing being stopped after the minimum")
                .isFalse();
        assertThat(keep.apply(3, true)).isTrue();
        assertThat(keep.apply(9, true)).isTrue();
        assertThat(keep.apply(10, true))
                .as("the maximum, whatever is being stopped")
                .isFalse();
    }
}
