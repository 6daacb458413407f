package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FilterReasonsTest {
    @Test
    void aFitErrorIsReadReasonByReasonWithTheFilterThatGivesIt() {
        List<FilterReasons.Reason> reasons = FilterReasons.parse("0/4 nodes are available: 1 node(s) lack the label"
                + " \"priority.lixueduan.com\" required by the SchedulerProfile extender, 3 Insufficient cpu."
                + " preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption"
                + " victims found for incoming pod.");
        assertThat(reasons)
                .containsExactly(
                        new FilterReasons.Reason(
                                1,
                                "node(s) lack the label \"priority.lixueduan.com\" required by the SchedulerProfile"
                                        + " extender",
                                "extender"),
                        new FilterReasons.Reason(3, "Insufficient cpu", "NodeResourcesFit"));
    }

    @Test
    void everyInTreeReasonNamesItsFilter() {
        assertThat(FilterReasons.filterOf("node(s) had untolerated taint {dedicated: gpu}"))
                .isEqualTo("TaintToleration");
        assertThat(FilterReasons.filterOf("node(s) didn't match Pod's node affinity/selector"))
                .isEqualTo("NodeAffinity");
        assertThat(FilterReasons.filterOf("node(s) didn't match pod topology spread constraints"))
                .isEqualTo("PodTopologySpread");
        assertThat(FilterReasons.filterOf("node(s) didn't match pod anti-affinity rules"))
                .isEqualTo("InterPodAffinity");
        assertThat(FilterReasons.filterOf("node(s) were unschedulable")).isEqualTo("NodeUnschedulable");
        assertThat(FilterReasons.filterOf("Too many pods")).isEqualTo("NodeResourcesFit");
        assertThat(FilterReasons.filterOf("something new")).isEqualTo("unknown");
    }

    @Test
    void otherMessagesGiveNoReasons() {
        assertThat(FilterReasons.parse("Post \"http://x/filter\": connection refused"))
                .isEmpty();
        assertThat(FilterReasons.parse(null)).isEmpty();
    }

    @Test
    void aProbesVerdictIsItsNodesReasonNotTheOtherNodes() {
        Placement probe = new Placement(
                "ns/p-probe-0",
                Placement.Verdict.UNSCHEDULABLE,
                null,
                "0/4 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 3 node(s) didn't satisfy plugin(s)"
                        + " [NodeAffinity]. preemption: 0/4 nodes are available: 4 Preemption is not helpful.",
                null,
                List.of());
        NodeVerdict verdict = NodeProbes.verdict("node-2", probe, false);
        assertThat(verdict.feasible()).isFalse();
        assertThat(verdict.filter()).isEqualTo("NodeResourcesFit");
        assertThat(verdict.reason()).isEqualTo("Insufficient cpu, Insufficient memory");
        assertThat(NodeProbes.verdict(
                                "node-2",
                                new Placement("ns/p", Placement.Verdict.BOUND, "node-2", null, null, List.of()),
                                false)
                        .feasible())
                .isTrue();
    }
}
