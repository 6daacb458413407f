package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class SandboxContentsTest {
    static JsonNode pod(String ns, String name, String scheduler, String node, String created) {
        return Json.tree(("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
                        + "\"creationTimestamp\":\"%s\",\"labels\":{\"app\":\"x\"}},\"spec\":{\"schedulerName\":\"%s\"%s,"
                        + "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}")
                .formatted(name, ns, created, scheduler, node == null ? "" : ",\"nodeName\":\"" + node + "\""));
    }

    static JsonNode node(String name) {
        return Json.tree("{\"metadata\":{\"name\":\"" + name + "\"},\"status\":{\"allocatable\":{\"cpu\":\"4\"}}}");
    }

    static Snapshot snapshot(List<JsonNode> pods, List<JsonNode> priorityClasses, List<JsonNode> services) {
        return new Snapshot(List.of(node("n1"), node("n2")), pods, priorityClasses, services, List.of());
    }

    @Test
    void theProfilesPodsArePlacedAgainInCreationOrderAndLeaveTheBoundOnes() {
        Snapshot s = snapshot(
                List.of(
                        pod("b", "late", "lp", "n1", "2026-11-27T10:00:02Z"),
                        pod("a", "early", "lp", null, "2026-11-27T10:00:01Z"),
                        pod("a", "other", "default-scheduler", "n2", "2026-11-27T09:00:00Z")),
                List.of(),
                List.of());
        SandboxContents c = SandboxContents.of(s, PodSelection.profilePods("lp"));
        assertThat(c.podsToPlace()).extracting(PodToPlace::key).containsExactly("a/early", "b/late");
        assertThat(c.podsToPlace().get(0).today()).isNull();
        assertThat(c.podsToPlace().get(0).todayState()).isEqualTo("Pending");
        assertThat(c.podsToPlace().get(1).today()).isEqualTo("n1");
        assertThat(c.boundPods())
                .extracting(p -> p.at("/metadata/name").asText())
                .containsExactly("other");
        assertThat(c.namespaces())
                .extracting(n -> n.at("/metadata/name").asText())
                .containsExactly("a", "b");
        assertThat(c.nodes()).hasSize(2);
    }

    /**
     * kube-scheduler counts a node of its own for a pod bound to a node that is gone, so the sandbox's readiness (every
     * node and bound pod in its cache) never came in a cluster where tests delete nodes (the KWOK tier in CI).
     */
    @Test
    void aPodBoundToANodeThatIsGoneIsLeftOut() {
        Snapshot s = snapshot(
                List.of(
                        pod("a", "here", "default-scheduler", "n1", "2026-11-27T09:00:00Z"),
                        pod("a", "orphan", "default-scheduler", "deleted-node", "2026-11-27T09:00:00Z")),
                List.of(),
                List.of());

        SandboxContents c = SandboxContents.of(s, PodSelection.profilePods("lp"));

        assertThat(c.boundPods())
                .extracting(p -> p.at("/metadata/name").asText())
                .containsExactly("here");
    }

    @Test
    void aPodToExplainThatIsGoneIsSaidSo() {
        assertThatThrownBy(() -> SandboxContents.of(
                        snapshot(List.of(), List.of(), List.of()), PodSelection.onePod("a", "x", "lp")))
                .isInstanceOf(SandboxContents.NothingToPlaceException.class)
                .hasMessageContaining("a/x");
    }

    @Test
    void aPodOfAnotherSchedulerIsNotExplainedUnderTheProfile() {
        Snapshot s = snapshot(
                List.of(pod("a", "p", "default-scheduler", "n1", "2026-11-27T10:00:00Z")), List.of(), List.of());
        assertThatThrownBy(() -> SandboxContents.of(s, PodSelection.onePod("a", "p", "lp")))
                .isInstanceOf(SandboxContents.NothingToPlaceException.class)
                .hasMessageContaining("scheduled by default-scheduler");
        assertThat(SandboxContents.of(
                                snapshot(
                                        List.of(pod("a", "p", "lp", "n1", "2026-11-27T10:00:00Z")),
                                        List.of(),
                                        List.of()),
                                PodSelection.onePod("a", "p", "lp"))
                        .podsToPlace())
                .extracting(PodToPlace::today)
                .containsExactly("n1");
    }

    @Test
    void samplePodsAreNewPodsWithThePriorityTheClusterWouldGiveThem() {
        JsonNode high = Json.tree("{\"metadata\":{\"name\":\"high\"},\"value\":1000,\"preemptionPolicy\":\"Never\"}");
        JsonNode byDefault = Json.tree("{\"metadata\":{\"name\":\"normal\"},\"value\":10,\"globalDefault\":true}");
        JsonNode system = Json.tree("{\"metadata\":{\"name\":\"system-node-critical\"},\"value\":2000001000}");
        List<JsonNode> samples = List.of(
                Json.tree("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"s1\"},\"spec\":{\"priorityClassName\":\"high\","
                        + "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}"),
                Json.tree("{\"kind\":\"Pod\",\"metadata\":{\"generateName\":\"web-\",\"namespace\":\"t\"},\"spec\":{"
                        + "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}"),
                Json.tree("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"s3\"},\"spec\":{\"priorityClassName\":\"gone\","
                        + "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}"));
        SandboxContents c = SandboxContents.of(
                snapshot(
                        List.of(pod("a", "bound", "lp", "n1", "2026-11-27T10:00:00Z")),
                        List.of(high, byDefault, system),
                        List.of()),
                PodSelection.samplePods(samples));
        assertThat(c.podsToPlace()).extracting(PodToPlace::key).containsExactly("default/s1", "t/web-1", "default/s3");
        assertThat(c.podsToPlace()).allMatch(PodToPlace::sample);
        assertThat(c.boundPods()).hasSize(1);
        assertThat(c.podsToPlace().get(0).pod().at("/spec/priority").asInt()).isEqualTo(1000);
        assertThat(c.podsToPlace().get(0).pod().at("/spec/preemptionPolicy").asText())
                .isEqualTo("Never");
        assertThat(c.podsToPlace().get(1).pod().at("/spec/priority").asInt()).isEqualTo(10);
        assertThat(c.podsToPlace().get(1).pod().at("/spec/priorityClassName").asText())
                .isEqualTo("normal");
        assertThat(c.podsToPlace().get(2).omissions()).anyMatch(o -> o.contains("PriorityClass gone does not exist"));
        assertThat(c.priorityClasses())
                .extracting(p -> p.at("/metadata/name").asText())
                .containsExactly("high", "normal");
        assertThat(c.namespaces())
                .extracting(n -> n.at("/metadata/name").asText())
                .containsExactly("a", "t");
    }

    @Test
    void onlyTheServicesOfThePlacedPodsNamespacesAreCopied() {
        JsonNode inA = Json.tree(
                "{\"metadata\":{\"name\":\"s\",\"namespace\":\"a\"},\"spec\":{\"selector\":{\"app\":\"x\"}}}");
        JsonNode inZ = Json.tree(
                "{\"metadata\":{\"name\":\"s\",\"namespace\":\"z\"},\"spec\":{\"selector\":{\"app\":\"x\"}}}");
        SandboxContents c = SandboxContents.of(
                snapshot(List.of(pod("a", "p", "lp", "n1", "2026-11-27T10:00:00Z")), List.of(), List.of(inA, inZ)),
                PodSelection.profilePods("lp"));
        assertThat(c.services())
                .extracting(s -> s.at("/metadata/namespace").asText())
                .containsExactly("a");
    }
}
