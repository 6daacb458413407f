package dev.schedulerops.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The label-to-bind bound as the tests assert it, and its results file as {@code bench/label-to-bind} asks for it. */
public final class LabelToBindReport {
    /** The promise: p99 at most 1 s and max at most 2 s from the label to the binding. */
    public static final long P99_MILLIS = 1000;

    /**
     * The p99 bound on {@code kubernetesVersion}: 1 s from 1.33 on. Before 1.33 kube-scheduler has no
     * SchedulerPopFromBackoffQ: a pod retried within its backoff (1 s after its first rejection) waits that out even
     * when nothing else is queued, so a label within a second of the rejection waits for the rest of that second, and
     * only the 2 s bound holds.
     */
    public static long p99Millis(String kubernetesVersion) {
        return minor(kubernetesVersion) >= 33 ? P99_MILLIS : MAX_MILLIS;
    }

    public static final long MAX_MILLIS = 2000;

    /**
     * The most a trial may take on {@code kubernetesVersion}: {@link #MAX_MILLIS} from 1.33 on; before 1.33
     * {@link #MAX_MILLIS_BEFORE_POP_FROM_BACKOFF}.
     */
    public static long maxMillis(String kubernetesVersion) {
        return minor(kubernetesVersion) >= 33 ? MAX_MILLIS : MAX_MILLIS_BEFORE_POP_FROM_BACKOFF;
    }

    /**
     * Before 1.33 (no SchedulerPopFromBackoffQ, KEP-5142) the label moves the pod to the backoff queue when its backoff
     * has not run out, and kube-scheduler moves the backoff queue to the active queue only once a second. The backoff
     * is 1 s after the first rejection and doubles with each retry (another cluster event retries the pod too), so a
     * pod rejected three times waits up to 4 s from its last rejection, plus that second. Two matrix runs on 1.32.5
     * failed the 2 s bound at 2271 and 3048 ms (e2e/results/matrix/20261128-1.32.5-second.md, -third.md); docs/profiles.md
     * says what users see.
     */
    public static final long MAX_MILLIS_BEFORE_POP_FROM_BACKOFF = 5000;

    private static int minor(String kubernetesVersion) {
        return Integer.parseInt(kubernetesVersion.replaceFirst("^v", "").split("\\.")[1]);
    }

    /** The most a removed label may still place a pod: the extender's cache seeing it, from before the write. */
    public static final long WINDOW_MAX_MILLIS = 1000;

    private LabelToBindReport() {}

    /** How long the extender's cache took to show a label set ({@code add}) or removed, from before the write. */
    public record Lag(boolean add, long micros) {}

    /** Asserts the window that remains: every change seen by the extender's cache within {@link #WINDOW_MAX_MILLIS}. */
    public static void assertTheWindow(List<Lag> lags) {
        System.out.println("[label-to-bind] the extender's cache saw label changes after (µs): " + lags);
        assertThat(lags)
                .as("label changes the extender's cache saw more than " + WINDOW_MAX_MILLIS + " ms after the write")
                .allMatch(l -> l.micros() <= WINDOW_MAX_MILLIS * 1000);
    }

    private static long microsAt(List<Long> sorted, double quantile) {
        if (sorted.isEmpty()) {
            return -1;
        }
        return sorted.get(Math.max(0, (int) Math.ceil(quantile * sorted.size()) - 1));
    }

    /** Fewer trials than this cannot show a p99: the tests then hold every trial to the max bound instead. */
    public static final int TRIALS_FOR_P99 = 100;

    /**
     * Asserts the promise for one mode's trials: every pod bound, and the times of the quiet trials (nothing else on
     * the cluster changed between the label and the binding, so nothing but the label made kube-scheduler retry the pod)
     * within the bound: every one within {@link #MAX_MILLIS}, and with at least {@link #TRIALS_FOR_P99} of them the
     * p99 within {@link #p99Millis}. A trial another event may have rescued is reported and left out, never counted
     * as a pass; at least half the trials must be quiet. Pods placed by a label removed just before they were created
     * are reported, not asserted: that window is kube-scheduler's own too (see {@link #assertTheWindow}).
     */
    public static void assertThePromise(String mode, List<LabelToBind.Trial> trials, String kubernetesVersion) {
        List<LabelToBind.Trial> quiet =
                trials.stream().filter(t -> t.otherEvents().isEmpty()).toList();
        LabelToBind.Summary summary = LabelToBind.Summary.of(quiet);
        long p99Bound = p99Millis(kubernetesVersion);
        System.out.println("[label-to-bind] " + mode + ": " + summary + "; left out (another event in between): "
                + trials.stream()
                        .filter(t -> !t.otherEvents().isEmpty())
                        .map(LabelToBind.Trial::describe)
                        .toList());
        assertThat(trials)
                .as("pods not bound within " + LabelToBind.BIND_LIMIT + " of the label")
                .allMatch(LabelToBind.Trial::bound);
        assertThat(quiet.size() * 2)
                .as(
                        "twice the trials with nothing else happening between the label and the binding, of %d",
                        trials.size())
                .isGreaterThanOrEqualTo(trials.size());
        assertThat(summary.max())
                .as(mode + ": the slowest label-to-bind, ms")
                .isLessThanOrEqualTo(maxMillis(kubernetesVersion));
        if (quiet.size() >= TRIALS_FOR_P99) {
            assertThat(summary.p99()).as(mode + ": p99 label-to-bind, ms").isLessThanOrEqualTo(p99Bound);
        }
    }

    /** A results file started now, for {@link #writeIfAsked}. */
    public static ResultsFile start(String setup) {
        return new ResultsFile("Label to bind: " + setup, System.getProperty("schedulerops.labelToBind.command", "?"));
    }

    /** Writes the results file when {@code schedulerops.labelToBind.results} names one. */
    public static void writeIfAsked(ResultsFile results, String setup, List<LabelToBind.Trial> trials, List<Lag> lags) {
        String target = System.getProperty("schedulerops.labelToBind.results");
        if (target == null || target.isBlank() || trials.isEmpty()) {
            return;
        }
        Map<String, List<LabelToBind.Trial>> byMode = new LinkedHashMap<>();
        trials.forEach(t -> byMode.computeIfAbsent(t.mode(), m -> new java.util.ArrayList<>())
                .add(t));
        StringBuilder body = new StringBuilder();
        body.append("- setup: ").append(setup).append("\n");
        body.append("- kube-scheduler defaults: podInitialBackoffSeconds 1, podMaxBackoffSeconds 10,"
                + " podMaxInUnschedulablePodsDuration 5m (not shortened)\n");
        body.append("- each trial: the previous trial's label removed and a pod created at once (when the removed label"
                + " places it, that is a stale placement, counted, and the trial starts again with a new pod); the"
                + " scheduler's rejection; a random 0-3000 ms; `kubectl label`-equivalent merge patch; the time until a"
                + " watch here sees the pod bound\n\n");
        body.append(
                "Stale placements: of the pods created right after the previous trial's label was removed (one a trial,"
                        + " and one more for each stale placement), those the removed label placed.\n\n");
        body.append("| mode | trials | p50 ms | p99 ms | max ms | over 1 s | not bound in ")
                .append(LabelToBind.BIND_LIMIT.toSeconds())
                .append(" s | stale placements | trials with other events |\n");
        body.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        byMode.forEach((mode, list) -> {
            LabelToBind.Summary s = LabelToBind.Summary.of(list);
            long over = list.stream()
                    .filter(t -> t.bound() && t.labelToBindMillis() > 1000)
                    .count();
            body.append("| ")
                    .append(mode)
                    .append(" | ")
                    .append(s.trials())
                    .append(" | ")
                    .append(s.p50())
                    .append(" | ")
                    .append(s.p99())
                    .append(" | ")
                    .append(s.max())
                    .append(" | ")
                    .append(over)
                    .append(" | ")
                    .append(s.notBound())
                    .append(" | ")
                    .append(s.stale())
                    .append(" | ")
                    .append(s.withOtherEvents())
                    .append(" |\n");
        });
        if (!lags.isEmpty()) {
            body.append("\n## The window that remains\n\nHow long the extender's node cache took to show a label"
                    + " change, from just before the write (an upper bound) until a names-only `/prioritize` of the"
                    + " node (which never waits for a catch-up) answered with the new state, polled over one kept-alive"
                    + " connection. A pod created in that window after a label was removed can still be placed by it"
                    + " (while the label was set, a rejected pod is caught up instead). Measured with the"
                    + " Filter + Prioritize names-only profile.\n\n");
            body.append("| change | samples | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|\n");
            for (boolean add : new boolean[] {true, false}) {
                List<Long> sorted = lags.stream()
                        .filter(l -> l.add() == add)
                        .map(Lag::micros)
                        .sorted()
                        .toList();
                body.append(String.format(
                        "| %s | %d | %.1f | %.1f | %.1f |%n",
                        add ? "label set" : "label removed",
                        sorted.size(),
                        microsAt(sorted, 0.5) / 1000.0,
                        microsAt(sorted, 0.99) / 1000.0,
                        microsAt(sorted, 1.0) / 1000.0));
            }
            body.append("\nEvery sample (µs), set then removed:\n\n```\n")
                    .append(lags.stream()
                            .map(l -> (l.add() ? "+" : "-") + l.micros())
                            .collect(Collectors.joining(" ")))
                    .append("\n```\n");
        }
        body.append("\n## Every trial\n\nmode, trial, delay after the rejection (ms), label to bind (ms), bound,"
                + " stale placements before it, other events\n\n```\n");
        body.append(trials.stream()
                .map(t -> String.join(
                        ",",
                        t.mode(),
                        Integer.toString(t.number()),
                        Long.toString(t.delayMillis()),
                        Long.toString(t.labelToBindMillis()),
                        Boolean.toString(t.bound()),
                        Integer.toString(t.stalePlacements()),
                        String.join(" ", t.otherEvents())))
                .collect(Collectors.joining("\n")));
        body.append("\n```\n");
        Path file = Path.of(target);
        results.write(file, body.toString());
        System.out.println("[label-to-bind] wrote " + file);
    }
}
