package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PreviewReportTest {
    static Placement bound(String pod, String node) {
        return new Placement(pod, Placement.Verdict.BOUND, node, null, null, List.of());
    }

    static Placement tie(String pod, String node, String other) {
        PodScoring scoring = new PodScoring(node, 2, 2, Map.of(node, 50L, other, 50L), Map.of(), Map.of());
        return new Placement(pod, Placement.Verdict.BOUND, node, null, scoring, List.of());
    }

    static Placement unschedulable(String pod) {
        return new Placement(
                pod,
                Placement.Verdict.UNSCHEDULABLE,
                null,
                "0/2 nodes are available: 2 Insufficient cpu.",
                null,
                List.of());
    }

    static SandboxResult result(List<SandboxResult.PodInfo> pods, List<Placement> current, List<Placement> proposal) {
        return new SandboxResult(
                SandboxPlan.Mode.PREVIEW,
                new Snapshot.Size(2, 5, 4),
                pods,
                current == null
                        ? List.of(new SandboxResult.RunPlacements("proposal", "lp", 20, 100, proposal))
                        : List.of(
                                new SandboxResult.RunPlacements("current", "lp", 20, 100, current),
                                new SandboxResult.RunPlacements("proposal", "lp", 20, 100, proposal)),
                List.of(),
                0,
                List.of(),
                Map.of("run-current", 10L));
    }

    static SandboxResult.PodInfo live(String pod, String today) {
        return new SandboxResult.PodInfo(pod, false, today, today == null ? "Pending" : "bound", List.of());
    }

    @Test
    void eachChangeIsCountedAndANewlyUnschedulablePodFailsThePreview() {
        SandboxResult r = result(
                List.of(live("a/same", "n1"), live("a/moves", "n1"), live("a/lost", "n2"), live("a/found", null)),
                List.of(bound("a/same", "n1"), bound("a/moves", "n1"), bound("a/lost", "n2"), unschedulable("a/found")),
                List.of(
                        bound("a/same", "n1"),
                        bound("a/moves", "n2"),
                        unschedulable("a/lost"),
                        bound("a/found", "n1")));
        PreviewReport report = PreviewReport.of(r);
        assertThat(report.rows())
                .extracting(PreviewReport.Row::change)
                .containsExactly(
                        PreviewReport.Change.UNCHANGED,
                        PreviewReport.Change.MOVED,
                        PreviewReport.Change.NEWLY_UNSCHEDULABLE,
                        PreviewReport.Change.NO_LONGER_UNSCHEDULABLE);
        assertThat(report.totals()).isEqualTo(new PreviewReport.Totals(4, 1, 1, 1, 1, 0, 0, 0, 0));
        assertThat(report.verdict()).isEqualTo(PreviewReport.FAIL);
        String table = PreviewTable.render(report);
        assertThat(table)
                .contains("a/moves", "moved", "newly unschedulable", "Insufficient cpu", "Verdict: Fail: 1 pod(s)")
                .contains("Totals: 4 pods: 1 moved, 1 newly unschedulable, 1 no longer unschedulable, 1 unchanged");
    }

    @Test
    void aPodPendingTodayThatBothConfigurationsPlaceIsComparedBetweenThem() {
        PreviewReport report = PreviewReport.of(
                result(List.of(live("a/p", null)), List.of(bound("a/p", "n1")), List.of(bound("a/p", "n2"))));
        assertThat(report.rows().get(0).change()).isEqualTo(PreviewReport.Change.MOVED);
    }

    @Test
    void aTieIsReportedAsATieWithEveryTiedNode() {
        PreviewReport report = PreviewReport.of(
                result(List.of(live("a/p", "n2")), List.of(tie("a/p", "n1", "n2")), List.of(bound("a/p", "n1"))));
        PreviewReport.Row row = report.rows().get(0);
        assertThat(row.tie()).isTrue();
        assertThat(row.current().tiedWith()).containsExactly("n1", "n2");
        assertThat(row.replayDiffers()).as("a tie is not a replay that differs").isFalse();
        assertThat(report.totals().ties()).isEqualTo(1);
        assertThat(PreviewTable.render(report)).contains("n1 (tie: n1,n2)", "(tie)");
    }

    @Test
    void aReplayThatDiffersFromTodayIsFlagged() {
        PreviewReport report = PreviewReport.of(
                result(List.of(live("a/p", "n2")), List.of(bound("a/p", "n1")), List.of(bound("a/p", "n1"))));
        assertThat(report.rows().get(0).replayDiffers()).isTrue();
        assertThat(report.totals().replayDiffers()).isEqualTo(1);
        assertThat(report.verdict()).isEqualTo(PreviewReport.PASS);
    }

    @Test
    void samplePodsCompareWithTheCurrentConfigurationAndANewProfileWithNothing() {
        SandboxResult.PodInfo sample = new SandboxResult.PodInfo("a/s", true, null, "sample", List.of());
        PreviewReport lost =
                PreviewReport.of(result(List.of(sample), List.of(bound("a/s", "n1")), List.of(unschedulable("a/s"))));
        assertThat(lost.rows().get(0).change()).isEqualTo(PreviewReport.Change.NEWLY_UNSCHEDULABLE);
        PreviewReport fresh = PreviewReport.of(result(List.of(sample), null, List.of(bound("a/s", "n1"))));
        assertThat(fresh.rows().get(0).change()).isEqualTo(PreviewReport.Change.NEW);
        assertThat(fresh.verdict()).isEqualTo(PreviewReport.PASS);
        assertThat(PreviewTable.render(fresh)).contains("(sample)", "placed by a new profile");
    }

    @Test
    void theReportIsJson() {
        PreviewReport report = PreviewReport.of(
                result(List.of(live("a/p", "n1")), List.of(bound("a/p", "n1")), List.of(bound("a/p", "n2"))));
        var json = Json.tree(Json.write(report));
        assertThat(json.at("/verdict").asText()).isEqualTo("Pass");
        assertThat(json.at("/rows/0/proposal/node").asText()).isEqualTo("n2");
        assertThat(json.at("/rows/0/change").asText()).isEqualTo("MOVED");
        assertThat(json.at("/totals/moved").asInt()).isEqualTo(1);
    }
}
