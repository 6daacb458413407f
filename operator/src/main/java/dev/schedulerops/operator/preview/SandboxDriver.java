package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Places the pods once under each run, one pod at a time in their order, each run from the same start: before the
 * next run the pods the previous one placed are deleted and the pods its preemptions evicted are put back. An
 * explanation then asks about every other node ({@link NodeProbes}). Everything it does is in the sandbox.
 */
public final class SandboxDriver {
    private final KubernetesClient sandbox;
    private final SandboxPlan plan;
    private final SandboxContents contents;
    private final Map<String, SchedulerLog> logs;
    private final Deadline deadline;
    private final Map<String, Long> timings = new LinkedHashMap<>();

    /**
     * @param logs each run's scheduler log, read as it is written
     * @param deadline when the whole sandbox must be done
     */
    public SandboxDriver(
            KubernetesClient sandbox,
            SandboxPlan plan,
            SandboxContents contents,
            Map<String, SchedulerLog> logs,
            Deadline deadline) {
        this.sandbox = sandbox;
        this.plan = plan;
        this.contents = contents;
        this.logs = logs;
        this.deadline = deadline;
    }

    public SandboxResult drive(Snapshot.Size size, Map<String, Long> earlierTimings) {
        timings.putAll(earlierTimings);
        List<SandboxResult.RunPlacements> runs = new ArrayList<>();
        List<NodeVerdict> verdicts = List.of();
        int unprobed = 0;
        try (SandboxPodWatch pods = new SandboxPodWatch(sandbox)) {
            PodPlacer placer = new PodPlacer(
                    sandbox, pods, Duration.ofSeconds(plan.limits().podTimeoutSeconds()));
            for (int i = 0; i < plan.runs().size(); i++) {
                SandboxPlan.Run run = plan.runs().get(i);
                long start = System.nanoTime();
                List<Placement> placements = placeAll(placer, run);
                timings.put("run-" + run.name(), millisSince(start));
                runs.add(new SandboxResult.RunPlacements(
                        run.name(),
                        run.profile(),
                        run.extender() == null ? 0 : run.extender().weight(),
                        logs.get(run.name()).lines(),
                        placements));
                if (plan.mode() == SandboxPlan.Mode.EXPLAIN) {
                    start = System.nanoTime();
                    List<NodeVerdict> probed = new ArrayList<>();
                    unprobed = probe(placer, run, placements.get(0), probed);
                    verdicts = probed;
                    timings.put("probes", millisSince(start));
                }
                if (i + 1 < plan.runs().size()) {
                    reset(placer, placements);
                }
            }
        }
        return new SandboxResult(
                plan.mode(),
                size,
                contents.podsToPlace().stream().map(SandboxResult.PodInfo::of).toList(),
                runs,
                verdicts,
                unprobed,
                plan.notes(),
                timings);
    }

    private List<Placement> placeAll(PodPlacer placer, SandboxPlan.Run run) {
        List<Placement> placements = new ArrayList<>();
        for (PodToPlace pod : contents.podsToPlace()) {
            if (deadline.passed()) {
                throw new SandboxException(
                        "the preview ran out of time (" + plan.limits().timeoutSeconds()
                                + " s) placing the pods under the " + run.name() + " configuration");
            }
            placements.add(placer.place(
                    run.sandboxSchedulerName(),
                    pod.namespace(),
                    pod.name(),
                    pod.forScheduler(run.sandboxSchedulerName()),
                    logs.get(run.name())));
        }
        return placements;
    }

    /** Back to the snapshot: the run's pods go, the pods its preemptions evicted come back. */
    private void reset(PodPlacer placer, List<Placement> placements) {
        Set<String> evicted = new TreeSet<>();
        for (Placement p : placements) {
            String[] key = p.pod().split("/", 2);
            placer.remove(key[0], key[1]);
            evicted.addAll(p.preempted());
        }
        Map<String, ObjectNode> bound = new HashMap<>();
        for (ObjectNode pod : contents.boundPods()) {
            bound.put(SandboxApi.name(pod), pod);
        }
        for (String pod : evicted) {
            if (bound.containsKey(pod)) {
                SandboxApi.create(sandbox, bound.get(pod));
            }
        }
    }

    /**
     * Every node's verdict for the explained pod: a feasible node that was scored gets its total, any other is probed
     * (at most {@link SandboxPlan.Limits#probedNodes}); returns how many were left unprobed.
     */
    private int probe(PodPlacer placer, SandboxPlan.Run run, Placement explained, List<NodeVerdict> verdicts) {
        PodToPlace pod = contents.podsToPlace().get(0);
        boolean approximate = NodeProbes.approximate(pod.pod());
        Map<String, Long> totals =
                explained.scoring() == null ? Map.of() : explained.scoring().totals();
        List<String> toProbe = new ArrayList<>();
        for (JsonNode node : contents.nodes()) {
            String name = node.at("/metadata/name").asText();
            if (name.equals(explained.node())) {
                continue;
            }
            if (totals.containsKey(name)) {
                verdicts.add(new NodeVerdict(
                        name,
                        true,
                        null,
                        "passes every filter; scored " + totals.get(name) + " against "
                                + totals.getOrDefault(explained.node(), 0L) + " for " + explained.node(),
                        false));
            } else {
                toProbe.add(name);
            }
        }
        toProbe.sort(String::compareTo);
        int probed = Math.min(toProbe.size(), plan.limits().probedNodes());
        for (int i = 0; i < probed; i++) {
            if (deadline.passed()) {
                return toProbe.size() - i;
            }
            String node = toProbe.get(i);
            ObjectNode probe = NodeProbes.probe(pod.forScheduler(run.sandboxSchedulerName()), node, i);
            String name = probe.at("/metadata/name").asText();
            Placement outcome =
                    placer.place(run.sandboxSchedulerName(), pod.namespace(), name, probe, logs.get(run.name()));
            placer.remove(pod.namespace(), name);
            verdicts.add(NodeProbes.verdict(node, outcome, approximate));
        }
        return toProbe.size() - probed;
    }

    /**
     * What every sandbox does once its components are starting, wherever they run: reads the live cluster, fills the
     * sandbox's API server, waits until each run's extender and kube-scheduler hold all of it, places the pods.
     *
     * @param start when the sandbox started ({@link System#nanoTime}), for the timings
     * @param alive fails when a component the caller started has exited
     */
    static SandboxResult fillAndDrive(
            KubernetesClient live,
            SandboxPlan plan,
            SandboxLayout layout,
            Map<String, SchedulerLog> logs,
            Deadline deadline,
            long start,
            Runnable alive)
            throws java.io.IOException {
        Map<String, Long> timings = new LinkedHashMap<>();
        Snapshot snapshot = new SnapshotReader(live).read(plan.selection());
        timings.put("read", millisSince(start));
        SandboxContents contents = SandboxContents.of(snapshot, plan.selection());
        try (KubernetesClient sandbox = SandboxApi.client(layout, SandboxFiles.token(layout))) {
            SandboxApi.awaitReady(sandbox, deadline.left(), alive);
            timings.put("apiserver", millisSince(start));
            long loading = System.nanoTime();
            SandboxLoader.load(sandbox, contents);
            timings.put("load", millisSince(loading));
            long readying = System.nanoTime();
            SandboxReadiness readiness = new SandboxReadiness();
            for (SandboxPlan.Run run : plan.runs()) {
                readiness.awaitRun(
                        layout,
                        run,
                        plan.startsExtender(run),
                        contents.nodes().size(),
                        contents.boundPods().size(),
                        deadline,
                        alive);
            }
            timings.put("ready", millisSince(readying));
            return new SandboxDriver(sandbox, plan, contents, logs, deadline).drive(snapshot.size(), timings);
        }
    }

    static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
