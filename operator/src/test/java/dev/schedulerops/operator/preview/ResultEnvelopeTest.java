package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultEnvelopeTest {
    @Test
    void aLargeResultTravelsInShortLinesBetweenOtherLogLines() {
        List<SandboxResult.PodInfo> pods = new ArrayList<>();
        List<Placement> placements = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            pods.add(new SandboxResult.PodInfo("team/pod-" + i, false, "node-" + i, "bound", List.of()));
            placements.add(new Placement(
                    "team/pod-" + i, Placement.Verdict.BOUND, "node-" + (i * 7919 % 1000), null, null, List.of()));
        }
        SandboxResult result = new SandboxResult(
                SandboxPlan.Mode.PREVIEW,
                new Snapshot.Size(1000, 3000, 3000),
                pods,
                List.of(new SandboxResult.RunPlacements("proposal", "lp", 1, 10, placements)),
                List.of(),
                0,
                List.of("a note"),
                Map.of("load", 5L));
        List<String> lines = ResultEnvelope.lines(result);
        assertThat(lines).hasSizeGreaterThan(1).allMatch(l -> l.length() <= ResultEnvelope.CHUNK + 50);
        String log = "22:00 starting\n" + String.join("\n", lines) + "\n22:01 done\n";
        ResultEnvelope.Read read = ResultEnvelope.read(log).orElseThrow();
        assertThat(read).isInstanceOf(ResultEnvelope.Found.class);
        assertThat(((ResultEnvelope.Found) read).result()).isEqualTo(result);
        assertThat(ResultEnvelope.read(String.join("\n", lines.subList(1, lines.size()))))
                .as("incomplete")
                .isEmpty();
        assertThat(ResultEnvelope.read("nothing")).isEmpty();
    }

    @Test
    void aFailureIsReadWithItsMessage() {
        String log = "x\n" + ResultEnvelope.failure("load: the sandbox refused\nNode n1") + "\n";
        assertThat(ResultEnvelope.read(log)).contains(new ResultEnvelope.Failed("load: the sandbox refused Node n1"));
    }
}
