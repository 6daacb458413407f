package dev.schedulerops.operator.preview;

import java.util.List;
import java.util.Map;

/**
 * What a sandbox found, as it hands it back (the JSON a sandbox pod prints, {@link ResultEnvelope}): the pods, where
 * each run put them, and for an explanation each node's verdict.
 *
 * @param mode preview or explanation
 * @param snapshot how big the live cluster was
 * @param pods the pods placed, in order
 * @param runs each run's placements, in the order of {@code pods}
 * @param verdicts an explanation's verdict on every node probed, and on every feasible node
 * @param unprobedNodes nodes left without a verdict (beyond {@link SandboxPlan.Limits#probedNodes})
 * @param notes what the reader should know
 * @param timings milliseconds spent per phase (read, load, start, each run, probes)
 */
public record SandboxResult(
        SandboxPlan.Mode mode,
        Snapshot.Size snapshot,
        List<PodInfo> pods,
        List<RunPlacements> runs,
        List<NodeVerdict> verdicts,
        int unprobedNodes,
        List<String> notes,
        Map<String, Long> timings) {

    public SandboxResult {
        pods = List.copyOf(pods);
        runs = List.copyOf(runs);
        verdicts = verdicts == null ? List.of() : List.copyOf(verdicts);
        notes = notes == null ? List.of() : List.copyOf(notes);
        timings = timings == null ? Map.of() : Map.copyOf(timings);
    }

    /**
     * @param pod namespace/name
     * @param sample whether the user gave it
     * @param today the node it is on in the live cluster, null when not bound
     * @param todayState "bound", "Pending: ..." or "sample"
     * @param omissions what the sandbox did not replay for it
     */
    public record PodInfo(String pod, boolean sample, String today, String todayState, List<String> omissions) {
        public PodInfo {
            omissions = omissions == null ? List.of() : List.copyOf(omissions);
        }

        static PodInfo of(PodToPlace p) {
            return new PodInfo(p.key(), p.sample(), p.today(), p.todayState(), p.omissions());
        }
    }

    /**
     * @param run {@link SandboxPlan#CURRENT} or {@link SandboxPlan#PROPOSAL}
     * @param profile the profile's name
     * @param extenderWeight the bundled extender's prioritize weight (0 without Prioritize or extender)
     * @param schedulerLogLines how many lines its kube-scheduler logged
     * @param placements one per pod, in the order of the pods
     */
    public record RunPlacements(
            String run, String profile, long extenderWeight, long schedulerLogLines, List<Placement> placements) {
        public RunPlacements {
            placements = List.copyOf(placements);
        }
    }

    public RunPlacements run(String name) {
        return runs.stream().filter(r -> r.run().equals(name)).findFirst().orElse(null);
    }
}
