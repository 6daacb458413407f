package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class UnscheduledPodsTest {
    static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");
    static final Duration GRACE = Duration.ofSeconds(60);
    static final String OLD_ENOUGH = "2026-11-26T09:58:00Z";

    static Pod pod(String schedulerName, String created) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("web-0")
                .withNamespace("team-a")
                .withUid("uid-1")
                .withCreationTimestamp(created)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(schedulerName)
                .endSpec()
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build();
    }

    static SchedulerProfile profile(String name, String schedulerName, Condition... conditions) {
        SchedulerProfile profile = SchedulerNameConflictsTest.profile(name, schedulerName, "2026-11-01T00:00:00Z");
        SchedulerProfileStatus status = new SchedulerProfileStatus();
        status.setConditions(List.of(conditions));
        profile.setStatus(status);
        return profile;
    }

    static Condition condition(String type, String status, String reason, String message) {
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .build();
    }

    static UnscheduledPods.Known known(SchedulerProfile... profiles) {
        return new UnscheduledPods.Known(List.of(profiles), Map.of(), name -> false);
    }

    @Test
    void aPodOfAProfileThatIsNotReadyIsToldWhichProfileWhyAndWhatToDo() {
        SchedulerProfile gpu = profile(
                "gpu",
                "gpu-scheduler",
                condition("ConfigValid", "True", "Valid", "ok"),
                condition("Ready", "False", "WaitingForExtender", "The extender Deployment has no available pod"));

        Optional<UnscheduledPods.Diagnosis> diagnosis =
                UnscheduledPods.diagnose(pod("gpu-scheduler", OLD_ENOUGH), known(gpu), NOW, GRACE);

        assertThat(diagnosis).isPresent();
        assertThat(diagnosis.get().cause()).isEqualTo(UnscheduledPods.Cause.PROFILE_NOT_READY);
        assertThat(diagnosis.get().profile()).contains("gpu");
        assertThat(diagnosis.get().message())
                .contains("SchedulerProfile gpu")
                .contains("is not Ready (reason WaitingForExtender)")
                .contains("kubectl describe schedulerprofile gpu")
                .as("a condition's message can name the operator's settings: it stays with the profile")
                .doesNotContain("The extender Deployment has no available pod");
    }

    @Test
    void aPodOfAReadyProfileOrOfOneStillSchedulingDuringARolloutIsLeftAlone() {
        SchedulerProfile ready = profile("gpu", "gpu-scheduler", condition("Ready", "True", "Available", "ok"));
        SchedulerProfile rolling = profile(
                "gpu",
                "gpu-scheduler",
                condition("ConfigValid", "True", "Valid", "ok"),
                condition("Ready", "False", "RollingOutScheduler", "rolling"),
                condition("SchedulerAvailable", "True", "Available", "ok"),
                condition("ExtenderAvailable", "True", "Available", "ok"));

        assertThat(UnscheduledPods.diagnose(pod("gpu-scheduler", OLD_ENOUGH), known(ready), NOW, GRACE))
                .isEmpty();
        assertThat(UnscheduledPods.diagnose(pod("gpu-scheduler", OLD_ENOUGH), known(rolling), NOW, GRACE))
                .isEmpty();
    }

    @Test
    void aPodOfARefusedProfileIsToldTheRefusal() {
        SchedulerProfile refused = profile(
                "gpu",
                "gpu-scheduler",
                condition("ConfigValid", "False", "InvalidConfig", "spec.weight: must be at least 1."),
                condition("Ready", "False", "InvalidConfig", "refused"));

        UnscheduledPods.Diagnosis diagnosis = UnscheduledPods.diagnose(
                        pod("gpu-scheduler", OLD_ENOUGH), known(refused), NOW, GRACE)
                .orElseThrow();

        assertThat(diagnosis.cause()).isEqualTo(UnscheduledPods.Cause.PROFILE_REFUSED);
        assertThat(diagnosis.message())
                .contains("is refused by the operator (reason InvalidConfig)")
                .doesNotContain("spec.weight");
    }

    @Test
    void aRefusedChangeOfAProfileWhoseSchedulerStillRunsIsNotACause() {
        SchedulerProfile refusedButRunning = profile(
                "gpu",
                "gpu-scheduler",
                condition("ConfigValid", "False", "ImageNotAllowed", "spec.scheduler.image ..."),
                condition("Ready", "False", "ImageNotAllowed", "refused"),
                condition("SchedulerAvailable", "True", "Available", "ok"),
                condition("ExtenderAvailable", "True", "Available", "ok"));
        assertThat(UnscheduledPods.diagnose(pod("gpu-scheduler", OLD_ENOUGH), known(refusedButRunning), NOW, GRACE))
                .as("the operator leaves the running scheduler of the last good spec alone")
                .isEmpty();

        SchedulerProfile conflicting = profile(
                "gpu",
                "gpu-scheduler",
                condition("ConfigValid", "False", "SchedulerNameConflict", "taken"),
                condition("SchedulerAvailable", "True", "Available", "ok"),
                condition("ExtenderAvailable", "True", "Available", "ok"));
        assertThat(UnscheduledPods.diagnose(pod("gpu-scheduler", OLD_ENOUGH), known(conflicting), NOW, GRACE))
                .as("a profile refused for a name conflict runs nothing of its own")
                .isPresent();
    }

    @Test
    void aPodOfADeletedOrDeletingProfileIsToldSo() {
        UnscheduledPods.Known gone =
                new UnscheduledPods.Known(List.of(), Map.of("gpu-scheduler", "gpu"), name -> false);
        assertThat(UnscheduledPods.diagnose(pod("gpu-scheduler", OLD_ENOUGH), gone, NOW, GRACE)
                        .orElseThrow()
                        .cause())
                .isEqualTo(UnscheduledPods.Cause.PROFILE_DELETED);

        SchedulerProfile deleting = profile("gpu", "gpu-scheduler", condition("Ready", "True", "Available", "ok"));
        deleting.getMetadata().setDeletionTimestamp("2026-11-26T09:59:00Z");
        UnscheduledPods.Diagnosis diagnosis = UnscheduledPods.diagnose(
                        pod("gpu-scheduler", OLD_ENOUGH), known(deleting), NOW, GRACE)
                .orElseThrow();
        assertThat(diagnosis.cause()).isEqualTo(UnscheduledPods.Cause.PROFILE_DELETED);
        assertThat(diagnosis.message()).contains("is being deleted");
    }

    @Test
    void aMisspelledSchedulerNameIsToldTheNearestProfileAfterTheGrace() {
        SchedulerProfile gpu = profile("gpu", "gpu-scheduler", condition("Ready", "True", "Available", "ok"));

        assertThat(UnscheduledPods.diagnose(pod("gpu-schedular", "2026-11-26T09:59:30Z"), known(gpu), NOW, GRACE))
                .as("within the grace: a scheduler of that name may be starting")
                .isEmpty();
        UnscheduledPods.Diagnosis diagnosis = UnscheduledPods.diagnose(
                        pod("gpu-schedular", OLD_ENOUGH), known(gpu), NOW, GRACE)
                .orElseThrow();
        assertThat(diagnosis.cause()).isEqualTo(UnscheduledPods.Cause.NO_SCHEDULER);
        assertThat(diagnosis.profile()).isEmpty();
        assertThat(diagnosis.message())
                .contains("No SchedulerProfile has schedulerName \"gpu-schedular\"")
                .contains("Did you mean \"gpu-scheduler\"?")
                .contains("in 120 s");
        SchedulerProfile payments = profile("payments", "payments-secret-scheduler");
        assertThat(UnscheduledPods.diagnose(pod("gpu-schedular", OLD_ENOUGH), known(gpu, payments), NOW, GRACE)
                        .orElseThrow()
                        .message())
                .as("the event lands in a team's namespace: it lists no other team's scheduler names")
                .doesNotContain("payments");
    }

    @Test
    void aPodThatSomeSchedulerHasTriedOrAnotherOperatorsProfileNamesIsLeftAlone() {
        Pod tried = new PodBuilder(pod("other-scheduler", OLD_ENOUGH))
                .editStatus()
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("False")
                .withReason("Unschedulable")
                .endCondition()
                .endStatus()
                .build();
        assertThat(UnscheduledPods.diagnose(tried, known(), NOW, GRACE))
                .as("a scheduler of that name runs (not ours) and has said why in the pod's events")
                .isEmpty();

        UnscheduledPods.Known elsewhere = new UnscheduledPods.Known(List.of(), Map.of(), "other-scheduler"::equals);
        assertThat(UnscheduledPods.diagnose(pod("other-scheduler", OLD_ENOUGH), elsewhere, NOW, GRACE))
                .isEmpty();
    }

    @Test
    void defaultSchedulerBoundGatedFinishedAndDeletedPodsAreNeverDiagnosed() {
        UnscheduledPods.Known none = known();
        assertThat(UnscheduledPods.diagnose(pod("default-scheduler", OLD_ENOUGH), none, NOW, GRACE))
                .isEmpty();
        assertThat(UnscheduledPods.diagnose(pod(null, OLD_ENOUGH), none, NOW, GRACE))
                .isEmpty();
        Pod bound = pod("nobody", OLD_ENOUGH);
        bound.getSpec().setNodeName("node-1");
        assertThat(UnscheduledPods.diagnose(bound, none, NOW, GRACE)).isEmpty();
        Pod gated = new PodBuilder(pod("nobody", OLD_ENOUGH))
                .editSpec()
                .addNewSchedulingGate("example.com/quota")
                .endSpec()
                .build();
        assertThat(UnscheduledPods.diagnose(gated, none, NOW, GRACE)).isEmpty();
        Pod failed = pod("nobody", OLD_ENOUGH);
        failed.getStatus().setPhase("Failed");
        assertThat(UnscheduledPods.diagnose(failed, none, NOW, GRACE)).isEmpty();
        Pod deleting = pod("nobody", OLD_ENOUGH);
        deleting.getMetadata().setDeletionTimestamp("2026-11-26T09:59:00Z");
        assertThat(UnscheduledPods.diagnose(deleting, none, NOW, GRACE)).isEmpty();

        assertThat(UnscheduledPods.diagnose(pod("nobody", OLD_ENOUGH), none, NOW, GRACE))
                .as("sanity: the same pod without any of that is diagnosed")
                .isPresent();
    }

    @Test
    void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        assertThat(UnscheduledPods.editDistance("gpu-scheduler", "gpu-scheduler"))
                .isZero();
        assertThat(UnscheduledPods.editDistance("gpu-schedular", "gpu-scheduler"))
                .isEqualTo(1);
        assertThat(UnscheduledPods.editDistance("gpuscheduler", "gpu-scheduler"))
                .isEqualTo(1);
        assertThat(UnscheduledPods.editDistance("gpu-scheduler-x", "gpu-scheduler"))
                .isEqualTo(2);
        assertThat(UnscheduledPods.editDistance("", "abc")).isEqualTo(3);
    }
}
