package dev.schedulerops.operator.preview;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A preview's answer, from a sandbox's result: for each pod the node today, under the current configuration and
 * under the proposal, what changes, the totals and the verdict. Pure; {@link PreviewTable} prints it for people, and
 * it is the JSON {@code -o json} prints.
 *
 * @param rows one per pod, in the order they were placed
 * @param totals counts of rows by change, and of ties
 * @param verdict {@code Pass}, or {@code Fail} when the proposal leaves unschedulable a pod that schedules today
 * @param verdictMessage the verdict in a sentence
 * @param notes what the reader should know (new profile, limits that applied)
 * @param snapshot how big the live cluster was
 * @param timings milliseconds per phase
 */
public record PreviewReport(
        List<Row> rows,
        Totals totals,
        String verdict,
        String verdictMessage,
        List<String> notes,
        Snapshot.Size snapshot,
        Map<String, Long> timings) {

    public static final String PASS = "Pass";
    public static final String FAIL = "Fail";

    public PreviewReport {
        rows = List.copyOf(rows);
        notes = List.copyOf(notes);
        timings = Map.copyOf(timings);
    }

    public enum Change {
        UNCHANGED("unchanged"),
        MOVED("moved"),
        NEWLY_UNSCHEDULABLE("newly unschedulable"),
        NO_LONGER_UNSCHEDULABLE("no longer unschedulable"),
        STILL_UNSCHEDULABLE("still unschedulable"),
        /** A new profile: no current configuration to compare with. */
        NEW("new");

        private final String text;

        Change(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    /**
     * Where one configuration put a pod.
     *
     * @param node the node, null when not placed
     * @param state "bound", "unschedulable", "no verdict", "refused", or "pending" (today, not bound)
     * @param tiedWith every node tied at the top score, the chosen one included (empty without a tie)
     * @param reason why it was not placed
     * @param preempted pods its preemption evicted
     */
    public record Outcome(String node, String state, List<String> tiedWith, String reason, List<String> preempted) {
        public Outcome {
            tiedWith = tiedWith == null ? List.of() : List.copyOf(tiedWith);
            preempted = preempted == null ? List.of() : List.copyOf(preempted);
        }

        public boolean bound() {
            return node != null;
        }

        public boolean tie() {
            return tiedWith.size() > 1;
        }

        static Outcome of(Placement p) {
            String state =
                    switch (p.verdict()) {
                        case BOUND -> "bound";
                        case UNSCHEDULABLE -> "unschedulable";
                        case NO_VERDICT -> "no verdict";
                        case REFUSED -> "refused";
                    };
            return new Outcome(p.node(), state, p.tiedNodes(), p.message(), p.preempted());
        }
    }

    /**
     * @param pod namespace/name
     * @param sample whether the user gave it
     * @param today where it is in the live cluster (null for a sample)
     * @param current where the sandbox put it under the current configuration (null for a new profile)
     * @param proposal where the sandbox put it under the proposal
     * @param change what the proposal changes
     * @param replayDiffers whether the current configuration's replay put a pod bound today elsewhere, without a tie
     * @param notes what the sandbox did not replay for it
     */
    public record Row(
            String pod,
            boolean sample,
            Outcome today,
            Outcome current,
            Outcome proposal,
            Change change,
            boolean replayDiffers,
            List<String> notes) {
        public Row {
            notes = notes == null ? List.of() : List.copyOf(notes);
        }

        /** Whether the outcome compared is uncertain: a tie in either configuration. */
        public boolean tie() {
            return (current != null && current.tie()) || proposal.tie();
        }
    }

    public record Totals(
            int pods,
            int unchanged,
            int moved,
            int newlyUnschedulable,
            int noLongerUnschedulable,
            int stillUnschedulable,
            int newlyPlaced,
            int ties,
            int replayDiffers) {}

    public static PreviewReport of(SandboxResult result) {
        SandboxResult.RunPlacements current = result.run(SandboxPlan.CURRENT);
        SandboxResult.RunPlacements proposal = result.run(SandboxPlan.PROPOSAL);
        if (proposal == null) {
            throw new IllegalArgumentException("a preview's result without a proposal run");
        }
        List<Row> rows = new ArrayList<>();
        int[] counts = new int[Change.values().length];
        int ties = 0;
        int replayDiffers = 0;
        for (int i = 0; i < result.pods().size(); i++) {
            SandboxResult.PodInfo pod = result.pods().get(i);
            Outcome today = pod.sample()
                    ? null
                    : new Outcome(pod.today(), pod.today() == null ? "pending" : "bound", List.of(), null, List.of());
            Outcome now =
                    current == null ? null : Outcome.of(current.placements().get(i));
            Outcome proposed = Outcome.of(proposal.placements().get(i));
            Change change = change(today, now, proposed);
            boolean differs = today != null
                    && today.bound()
                    && now != null
                    && now.bound()
                    && !now.tie()
                    && !today.node().equals(now.node());
            Row row = new Row(pod.pod(), pod.sample(), today, now, proposed, change, differs, pod.omissions());
            rows.add(row);
            counts[change.ordinal()]++;
            ties += row.tie() ? 1 : 0;
            replayDiffers += differs ? 1 : 0;
        }
        Totals totals = new Totals(
                rows.size(),
                counts[Change.UNCHANGED.ordinal()],
                counts[Change.MOVED.ordinal()],
                counts[Change.NEWLY_UNSCHEDULABLE.ordinal()],
                counts[Change.NO_LONGER_UNSCHEDULABLE.ordinal()],
                counts[Change.STILL_UNSCHEDULABLE.ordinal()],
                counts[Change.NEW.ordinal()],
                ties,
                replayDiffers);
        List<String> notes = new ArrayList<>(result.notes());
        long windowed = result.runs().stream()
                .flatMap(r -> r.placements().stream())
                .filter(p -> p.scoring() != null
                        && p.scoring().evaluatedNodes() < result.snapshot().nodes())
                .count();
        if (windowed > 0) {
            notes.add(windowed + " placement(s) looked at fewer nodes than the cluster has (percentageOfNodesToScore):"
                    + " kube-scheduler stops once it has found enough feasible nodes, starting where its last cycle"
                    + " stopped, so the live scheduler may look at others (docs/preview.md, Limits).");
        }
        boolean fail = totals.newlyUnschedulable() > 0;
        String message = fail
                ? totals.newlyUnschedulable() + " pod(s) that schedule today would be unschedulable under the proposal"
                : "no pod that schedules today would be unschedulable under the proposal";
        return new PreviewReport(rows, totals, fail ? FAIL : PASS, message, notes, result.snapshot(), result.timings());
    }

    /**
     * What the proposal changes for one pod. "Schedules today": a live pod bound today, or a sample pod the current
     * configuration places. A pod both configurations place is compared between the two sandbox runs (a live pod may
     * be pending today for reasons the replay does not have, e.g. no scheduler ran).
     */
    static Change change(Outcome today, Outcome current, Outcome proposal) {
        Outcome before = current != null ? current : today;
        boolean schedulesToday = today != null ? today.bound() : before != null && before.bound();
        if (!proposal.bound()) {
            return schedulesToday ? Change.NEWLY_UNSCHEDULABLE : Change.STILL_UNSCHEDULABLE;
        }
        if (before == null) {
            return Change.NEW;
        }
        if (!before.bound()) {
            return Change.NO_LONGER_UNSCHEDULABLE;
        }
        return before.node().equals(proposal.node()) ? Change.UNCHANGED : Change.MOVED;
    }
}
