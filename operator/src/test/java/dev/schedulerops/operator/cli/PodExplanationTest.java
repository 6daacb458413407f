package dev.schedulerops.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileSpec;
import dev.schedulerops.operator.api.SchedulerProfileStatus;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodExplanationTest {
    static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");

    static Pod pod(String schedulerName, String nodeName) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("web-0")
                .withNamespace("team-a")
                .withUid("u1")
                .withCreationTimestamp("2026-11-26T09:55:00Z")
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(schedulerName)
                .withNodeName(nodeName)
                .endSpec()
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build();
    }

    static SchedulerProfile profile(String ready, String reason, String message) {
        SchedulerProfile profile = new SchedulerProfile();
        profile.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName("gpu")
                .build());
        SchedulerProfileSpec spec = new SchedulerProfileSpec();
        spec.setLabelKey("example.com/gpu");
        profile.setSpec(spec);
        SchedulerProfileStatus status = new SchedulerProfileStatus();
        status.setConditions(List.of(new ConditionBuilder()
                .withType("Ready")
                .withStatus(ready)
                .withReason(reason)
                .withMessage(message)
                .build()));
        profile.setStatus(status);
        return profile;
    }

    static Node node(String name, String gpu) {
        NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
        if (gpu != null) {
            node.editMetadata().addToLabels("example.com/gpu", gpu).endMetadata();
        }
        return node.build();
    }

    static Event failed(String message) {
        return new EventBuilder()
                .withType("Warning")
                .withReason("FailedScheduling")
                .withMessage(message)
                .withLastTimestamp("2026-11-26T09:59:00Z")
                .withNewSource()
                .withComponent("gpu")
                .endSource()
                .build();
    }

    @Test
    void aPodOfAProfileThatIsNotReadyShowsTheWholeConditionAndWhatToDo() {
        String out = PodExplanation.render(
                pod("gpu", null),
                List.of(profile("False", "WaitingForExtender", "0 of 2 extender replicas available")),
                List.of(),
                List.of(node("n1", "10"), node("n2", null)),
                NOW);

        assertThat(out)
                .contains("scheduler: gpu")
                .contains("node: none (not scheduled)")
                .contains("age: 5m0s")
                .contains("SchedulerProfile: gpu")
                .contains("Ready: False (WaitingForExtender): 0 of 2 extender replicas available")
                .contains("verdict: SchedulerProfileNotReady")
                .contains("none: no scheduler has reported on this pod")
                .contains("Nodes labelled example.com/gpu (1 of 2)")
                .contains("  n1  10")
                .contains("What to change")
                .contains("stays Pending until the profile is Ready");
    }

    @Test
    void aPodItsRunningSchedulerRejectsPointsAtTheFilterReasonsAndTheMissingLabel() {
        String out = PodExplanation.render(
                pod("gpu", null),
                List.of(profile("True", "Available", "ok")),
                List.of(failed("0/2 nodes are available: 2 node(s) lack label example.com/gpu.")),
                List.of(node("n1", null), node("n2", null)),
                NOW);

        assertThat(out)
                .contains("verdict: its scheduler runs: the reasons it gives are below")
                .contains("Warning FailedScheduling (gpu, 1m0s ago): 0/2 nodes are available: 2 node(s) lack label")
                .contains("Nodes labelled example.com/gpu (0 of 2)")
                .contains("No node carries example.com/gpu")
                .contains("kubectl label node NODE example.com/gpu=VALUE");
    }

    @Test
    void aMisspelledSchedulerNameIsNamedAndABoundPodNeedsNothing() {
        String misspelled = PodExplanation.render(
                pod("gpx", null), List.of(profile("True", "Available", "ok")), List.of(), List.of(), NOW);
        assertThat(misspelled)
                .contains("SchedulerProfile: none has schedulerName \"gpx\"")
                .contains("verdict: NoSchedulerForPod")
                .contains("Did you mean \"gpu\"?");

        String bound = PodExplanation.render(
                pod("gpu", "n1"), List.of(profile("True", "Available", "ok")), List.of(), List.of(), NOW);
        assertThat(bound)
                .contains("node: n1")
                .contains("nothing: the pod is on node n1")
                .doesNotContain("verdict");
    }
}
