package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The scores read from real kube-scheduler 1.33 logs (fixtures written by the sandbox, see their first line). */
class SchedulerLogTest {
    static String fixture(String name) throws IOException {
        try (InputStream in = SchedulerLogTest.class.getResourceAsStream("/preview/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static SchedulerLog read(String fixture, Set<String> detailed) throws IOException {
        SchedulerLog log = new SchedulerLog(detailed);
        fixture(fixture).lines().forEach(log::accept);
        return log;
    }

    @Test
    void theBindingCycleGivesEveryNodesTotalAndThePluginsAndExtenderOfTheChosenAndTheRunnerUp() throws IOException {
        PodScoring s =
                read("scheduler-explain.log", Set.of()).scoring("team-a/web-2").orElseThrow();
        assertThat(s.node()).isEqualTo("node-3");
        assertThat(s.evaluatedNodes()).isEqualTo(4);
        assertThat(s.feasibleNodes()).isEqualTo(3);
        assertThat(s.totals())
                .containsOnly(
                        java.util.Map.entry("node-1", 1086L),
                        java.util.Map.entry("node-2", 1611L),
                        java.util.Map.entry("node-3", 2461L));
        assertThat(s.tie()).isFalse();
        assertThat(s.runnerUp()).contains("node-2");
        assertThat(s.plugins()).containsOnlyKeys("node-3", "node-2");
        assertThat(s.plugins().get("node-3"))
                .containsEntry("TaintToleration", 300L)
                .containsEntry("NodeResourcesFit", 78L)
                .containsEntry("NodeResourcesBalancedAllocation", 83L)
                .containsEntry("ImageLocality", 0L);
        assertThat(s.extenders().get("node-3")).containsValue(10L);
        // the total is the plugins' weighted scores plus the extender's score x weight (20) x 10
        long plugins = s.plugins().get("node-3").values().stream()
                .mapToLong(Long::longValue)
                .sum();
        assertThat(plugins + 10 * 20 * 10).isEqualTo(2461L);
    }

    @Test
    void aReceiptKeepsEveryNodesPlugins() throws IOException {
        PodScoring s = read("scheduler-explain.log", Set.of("team-a/web-2"))
                .scoring("team-a/web-2")
                .orElseThrow();
        assertThat(s.plugins()).containsOnlyKeys("node-1", "node-2", "node-3");
    }

    @Test
    void anUnschedulableProbeHasNoBindingCycle() throws IOException {
        assertThat(read("scheduler-explain.log", Set.of()).scoring("team-a/web-2-probe-0"))
                .isEmpty();
    }

    @Test
    void aTieNamesEveryNodeWithTheTopScore() throws IOException {
        PodScoring s = read("scheduler-tie.log", Set.of()).scoring("default/p1").orElseThrow();
        assertThat(s.tie()).isTrue();
        assertThat(s.topNodes()).containsExactly("node-1", "node-2", "node-3");
        assertThat(s.node()).isIn(s.topNodes());
    }

    @Test
    void anAttemptStartsTheCycleAfresh() {
        SchedulerLog log = new SchedulerLog(Set.of());
        log.accept(line("Attempting to schedule pod", "pod=\"ns/p\""));
        log.accept(line("Calculated node's final score for pod", "pod=\"ns/p\" node=\"a\" score=5"));
        log.accept(line("Attempting to schedule pod", "pod=\"ns/p\""));
        log.accept(line("Calculated node's final score for pod", "pod=\"ns/p\" node=\"b\" score=7"));
        log.accept(line("Calculated node's final score for pod", "pod=\"ns/p\" node=\"c\" score=3"));
        log.accept(line("Successfully bound pod to node", "pod=\"ns/p\" node=\"b\" evaluatedNodes=3 feasibleNodes=2"));
        assertThat(log.scoring("ns/p").orElseThrow().totals()).containsOnlyKeys("b", "c");
        assertThat(log.lines()).isEqualTo(6);
    }

    @Test
    void aSingleFeasibleNodeIsNotScored() throws InterruptedException {
        SchedulerLog log = new SchedulerLog(Set.of());
        log.accept(line("Attempting to schedule pod", "pod=\"ns/p\""));
        log.accept(line("Successfully bound pod to node", "pod=\"ns/p\" node=\"b\" evaluatedNodes=3 feasibleNodes=1"));
        PodScoring s = log.await("ns/p", Duration.ofMillis(10)).orElseThrow();
        assertThat(s.scored()).isFalse();
        assertThat(s.tie()).isFalse();
        assertThat(s.topNodes()).containsExactly("b");
    }

    @Test
    void waitingForAPodTheLogNeverBindsEndsEmpty() throws InterruptedException {
        assertThat(new SchedulerLog(Set.of()).await("ns/none", Duration.ofMillis(20)))
                .isEmpty();
    }

    @Test
    void escapedQuotesInValuesAreRead() {
        KlogLine l = KlogLine.parse(
                        "I1127 22:16:30.281507   28348 schedule_one.go:1044] \"Unable to schedule pod; no fit; waiting\""
                                + " pod=\"team-a/web\" err=\"0/4 nodes: lack the label \\\"k\\\" x\"")
                .orElseThrow();
        assertThat(l.message()).isEqualTo("Unable to schedule pod; no fit; waiting");
        assertThat(l.value("err")).isEqualTo("0/4 nodes: lack the label \"k\" x");
        assertThat(KlogLine.parse("\tcontinuation of a multi-line value")).isEmpty();
    }

    private static String line(String message, String values) {
        return "I1127 22:16:30.068137   28348 schedule_one.go:782] \"" + message + "\" " + values;
    }
}
