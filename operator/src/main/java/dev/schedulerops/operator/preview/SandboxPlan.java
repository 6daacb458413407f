package dev.schedulerops.operator.preview;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a sandbox needs to know, decided before it starts (by the operator for a preview request, or by the
 * {@code sandbox local} command): which pods, and the runs, each a kube-scheduler configuration as the operator
 * renders it for the cluster with the images it would run. Serialised into the sandbox pod.
 *
 * @param mode a preview (pods placed under each run and compared) or an explanation (one pod, one run, a receipt)
 * @param selection which pods are placed
 * @param runs the current configuration first (when the profile exists and is valid), then the proposal
 * @param limits time and size bounds
 * @param notes what the planner wants the reader of the result to know (e.g. the profile is new)
 */
public record SandboxPlan(Mode mode, PodSelection selection, List<Run> runs, Limits limits, List<String> notes) {
    public enum Mode {
        PREVIEW,
        EXPLAIN
    }

    /** The sandbox's names of the runs, also their containers' suffixes. */
    public static final String CURRENT = "current";

    public static final String PROPOSAL = "proposal";

    public SandboxPlan {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(selection, "selection");
        runs = List.copyOf(runs);
        notes = notes == null ? List.of() : List.copyOf(notes);
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("a sandbox needs at least one run");
        }
    }

    /** The pods whose scores are kept on every node: an explanation's one pod. */
    public java.util.Set<String> detailedPods() {
        return mode == Mode.EXPLAIN
                ? java.util.Set.of(selection.namespace() + "/" + selection.name())
                : java.util.Set.of();
    }

    /**
     * The run whose extender serves {@code run}: its own, or the current run's when the proposal runs the very same
     * extender (same image, same environment: a weight, verb-order or plugin change) and does not bind (a bind names
     * its scheduler). One extender then answers both schedulers, one after the other: one JVM less to start.
     */
    public String extenderServing(Run run) {
        Optional<Run> current = run(CURRENT);
        if (run.name().equals(PROPOSAL)
                && run.extender() != null
                && current.isPresent()
                && current.get().extender() != null
                && run.extender().image().equals(current.get().extender().image())
                && withoutSchedulerName(run.extender().env())
                        .equals(withoutSchedulerName(current.get().extender().env()))
                && !binds(run)
                && !binds(current.get())) {
            return CURRENT;
        }
        return run.name();
    }

    private static boolean binds(Run run) {
        return java.util.Arrays.asList(run.extender()
                        .env()
                        .getOrDefault("SCHEDULEROPS_VERBS", "")
                        .split(","))
                .contains("Bind");
    }

    private static Map<String, String> withoutSchedulerName(Map<String, String> env) {
        Map<String, String> copy = new java.util.HashMap<>(env);
        copy.remove("SCHEDULEROPS_SCHEDULER_NAME");
        return copy;
    }

    /** Whether the run starts an extender of its own. */
    public boolean startsExtender(Run run) {
        return run.extender() != null && extenderServing(run).equals(run.name());
    }

    public Optional<Run> run(String name) {
        return runs.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    /**
     * One configuration the pods are placed under.
     *
     * @param name {@link #CURRENT} or {@link #PROPOSAL}
     * @param profile the SchedulerProfile's name
     * @param schedulerName the profile's schedulerName in the live cluster
     * @param schedulerImage the kube-scheduler image the operator runs for it
     * @param schedulerFlags its flags beyond --config and --v (feature gates, extra arguments)
     * @param schedulerConfig the KubeSchedulerConfiguration the operator renders, unchanged
     * @param extender the bundled extender, null for a plugins-only profile
     */
    public record Run(
            String name,
            String profile,
            String schedulerName,
            String schedulerImage,
            List<String> schedulerFlags,
            String schedulerConfig,
            Extender extender) {
        public Run {
            schedulerFlags = List.copyOf(schedulerFlags);
        }

        /** The name pods of this run carry in the sandbox (both runs may have the same live schedulerName). */
        public String sandboxSchedulerName() {
            return "schedulerops-preview-" + name;
        }
    }

    /**
     * @param image the extender image the operator runs for the profile
     * @param env its environment as rendered (values only)
     * @param weight its prioritize weight (the extender's score counts score x weight x 10)
     */
    public record Extender(String image, Map<String, String> env, long weight) {
        public Extender {
            env = Map.copyOf(env);
        }
    }

    /**
     * @param timeoutSeconds the whole sandbox, start to result
     * @param podTimeoutSeconds how long one pod may wait for a verdict (bound, unschedulable)
     * @param probedNodes an explanation probes at most this many nodes, one at a time (see {@link NodeProbes})
     */
    public record Limits(int timeoutSeconds, int podTimeoutSeconds, int probedNodes) {
        public static final Limits DEFAULT = new Limits(600, 30, 100);
    }
}
