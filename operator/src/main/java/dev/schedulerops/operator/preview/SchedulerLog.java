package dev.schedulerops.operator.preview;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads a sandbox kube-scheduler's log as it is written, line by line, and keeps for each pod what its binding cycle
 * scored. The sandbox runs kube-scheduler with {@code --vmodule=schedule_one=10}: only pkg/scheduler/schedule_one.go
 * logs at level 10, where {@code prioritizeNodes} logs "Plugin scored node for pod" (each score plugin's weighted
 * score), "Extender scored node for pod" (each extender's raw score) and "Calculated node's final score for pod" (the
 * total). "Attempting to schedule pod" (level 3) starts a cycle and "Successfully bound pod to node" (level 2) ends it;
 * an unschedulable cycle scores nothing. The live scheduler never needs this verbosity. Pure and thread-safe: a
 * follower thread feeds it, the driver reads it.
 */
public final class SchedulerLog {
    static final String ATTEMPTING = "Attempting to schedule pod";
    static final String PLUGIN_SCORED = "Plugin scored node for pod";
    static final String EXTENDER_SCORED = "Extender scored node for pod";
    static final String FINAL_SCORE = "Calculated node's final score for pod";
    static final String BOUND = "Successfully bound pod to node";
    static final String SOURCE = "schedule_one.go:";

    /** Every message read, each logged by pkg/scheduler/schedule_one.go of kube-scheduler 1.30 to 1.37. */
    public static final java.util.List<String> MESSAGES =
            java.util.List.of(ATTEMPTING, PLUGIN_SCORED, EXTENDER_SCORED, FINAL_SCORE, BOUND);

    static final String PLUGIN_SCORED_QUOTED = "\"" + PLUGIN_SCORED + "\"";
    static final String EXTENDER_SCORED_QUOTED = "\"" + EXTENDER_SCORED + "\"";
    static final String POD_KEY = " pod=\"";

    private final Set<String> detailedPods;
    private final Map<String, Cycle> open = new HashMap<>();
    private final Map<String, PodScoring> bound = new HashMap<>();
    private long lines;

    /**
     * @param detailedPods pods (namespace/name) whose per-plugin scores are kept on every node (a receipt); for the
     *     others only the chosen node's and the runner-up's are kept, and every node's total
     */
    public SchedulerLog(Set<String> detailedPods) {
        this.detailedPods = Set.copyOf(detailedPods);
    }

    public synchronized void accept(String line) {
        lines++;
        if (!line.contains(SOURCE)) {
            return;
        }
        // Most lines are one plugin's score on one node: kept as they are, read at the cycle's end only for the nodes
        // kept (a cycle on 400 nodes logs about 3000 of them).
        if (line.contains(PLUGIN_SCORED_QUOTED) || line.contains(EXTENDER_SCORED_QUOTED)) {
            String pod = podOf(line);
            if (pod != null) {
                cycle(pod).scoreLines.add(line);
            }
            return;
        }
        Optional<KlogLine> parsed = KlogLine.parse(line);
        if (parsed.isEmpty()) {
            return;
        }
        KlogLine l = parsed.get();
        String pod = l.value("pod");
        if (pod == null) {
            return;
        }
        switch (l.message()) {
            case ATTEMPTING -> open.put(pod, new Cycle());
            case FINAL_SCORE -> cycle(pod).totals.put(l.value("node"), l.number("score"));
            case BOUND -> {
                Cycle cycle = open.remove(pod);
                bound.put(pod, (cycle == null ? new Cycle() : cycle).finish(l, detailedPods.contains(pod)));
                notifyAll();
            }
            default -> {
                // other lines of schedule_one.go
            }
        }
    }

    /** The pod="namespace/name" of a line, read without parsing the rest. */
    static String podOf(String line) {
        int at = line.indexOf(POD_KEY);
        if (at < 0) {
            return null;
        }
        int end = line.indexOf('"', at + POD_KEY.length());
        return end < 0 ? null : line.substring(at + POD_KEY.length(), end);
    }

    private Cycle cycle(String pod) {
        return open.computeIfAbsent(pod, p -> new Cycle());
    }

    /** What the log says of the cycle that bound the pod, once its binding line is read. */
    public synchronized Optional<PodScoring> scoring(String pod) {
        return Optional.ofNullable(bound.get(pod));
    }

    /** Waits up to {@code timeout} for the pod's binding line (the log can lag behind the API). */
    public synchronized Optional<PodScoring> await(String pod, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!bound.containsKey(pod)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return Optional.of(bound.get(pod));
    }

    /** How many lines were read (the cost of the verbosity, in the result). */
    public synchronized long lines() {
        return lines;
    }

    private static final class Cycle {
        final java.util.List<String> scoreLines = new java.util.ArrayList<>();
        final Map<String, Long> totals = new LinkedHashMap<>();

        PodScoring finish(KlogLine bound, boolean everyNode) {
            String node = bound.value("node");
            int evaluated = Integer.parseInt(bound.values().getOrDefault("evaluatedNodes", "0"));
            int feasible = Integer.parseInt(bound.values().getOrDefault("feasibleNodes", "0"));
            PodScoring byTotals = new PodScoring(node, evaluated, feasible, totals, Map.of(), Map.of());
            java.util.Set<String> kept = new java.util.HashSet<>();
            kept.add(node);
            byTotals.runnerUp().ifPresent(kept::add);
            Map<String, Map<String, Long>> plugins = new HashMap<>();
            Map<String, Map<String, Long>> extenders = new HashMap<>();
            for (String line : scoreLines) {
                if (!everyNode && kept.stream().noneMatch(n -> line.contains(" node=\"" + n + "\""))) {
                    continue;
                }
                KlogLine l = KlogLine.parse(line).orElse(null);
                if (l == null || l.value("node") == null || (!everyNode && !kept.contains(l.value("node")))) {
                    continue;
                }
                if (l.message().equals(PLUGIN_SCORED)) {
                    plugins.computeIfAbsent(l.value("node"), n -> new TreeMap<>())
                            .put(l.value("plugin"), l.number("score"));
                } else {
                    extenders
                            .computeIfAbsent(l.value("node"), n -> new TreeMap<>())
                            .put(l.value("extender"), l.number("score"));
                }
            }
            return new PodScoring(node, evaluated, feasible, totals, plugins, extenders);
        }
    }
}
