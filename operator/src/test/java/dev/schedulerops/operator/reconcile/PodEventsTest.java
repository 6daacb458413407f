package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodEventsTest {
    private static final UnscheduledPods.Diagnosis DIAGNOSIS = new UnscheduledPods.Diagnosis(
            UnscheduledPods.Cause.PROFILE_NOT_READY, "gpu-scheduler", Optional.of("gpu"), "x".repeat(2000));

    @Test
    void theEventIsAWarningOnThePodInItsNamespaceWithAMessageTheApiServerAccepts() {
        Pod pod = UnscheduledPodsTest.pod("gpu-scheduler", UnscheduledPodsTest.OLD_ENOUGH);

        Event event = PodEvents.event(pod, DIAGNOSIS, "operator-0", Instant.parse("2026-11-26T10:00:00.123Z"));

        assertThat(event.getMetadata().getNamespace()).isEqualTo("team-a");
        assertThat(event.getInvolvedObject().getKind()).isEqualTo("Pod");
        assertThat(event.getInvolvedObject().getName()).isEqualTo("web-0");
        assertThat(event.getInvolvedObject().getUid()).isEqualTo("uid-1");
        assertThat(event.getType()).isEqualTo("Warning");
        assertThat(event.getReason()).isEqualTo("SchedulerProfileNotReady");
        assertThat(event.getMessage()).hasSize(1024).endsWith("...");
        assertThat(event.getFirstTimestamp()).isEqualTo("2026-11-26T10:00:00Z");
        assertThat(event.getReportingInstance()).isEqualTo("operator-0");
    }

    @Test
    void theNameIsTheSameForAPodAndCauseAndDiffersOtherwise() {
        Pod pod = UnscheduledPodsTest.pod("gpu-scheduler", UnscheduledPodsTest.OLD_ENOUGH);
        Pod samePodAgain = UnscheduledPodsTest.pod("gpu-scheduler", UnscheduledPodsTest.OLD_ENOUGH);
        Pod recreated = UnscheduledPodsTest.pod("gpu-scheduler", UnscheduledPodsTest.OLD_ENOUGH);
        recreated.getMetadata().setUid("uid-2");

        String name = PodEvents.name(pod, UnscheduledPods.Cause.PROFILE_NOT_READY);
        assertThat(name).startsWith("web-0.").matches("[a-z0-9.-]+");
        assertThat(PodEvents.name(samePodAgain, UnscheduledPods.Cause.PROFILE_NOT_READY))
                .isEqualTo(name);
        assertThat(PodEvents.name(pod, UnscheduledPods.Cause.PROFILE_DELETED)).isNotEqualTo(name);
        assertThat(PodEvents.name(recreated, UnscheduledPods.Cause.PROFILE_NOT_READY))
                .isNotEqualTo(name);
        pod.getMetadata().setName("p".repeat(253));
        assertThat(PodEvents.name(pod, UnscheduledPods.Cause.PROFILE_NOT_READY)).hasSizeLessThanOrEqualTo(253);
        pod.getMetadata().setName("p".repeat(198) + "-.x" + "q".repeat(50));
        assertThat(PodEvents.name(pod, UnscheduledPods.Cause.PROFILE_NOT_READY))
                .as("cut where the pod's name has '-' or '.': still a DNS subdomain")
                .matches("p{198}\\.[0-9a-f]{16}");
    }
}
