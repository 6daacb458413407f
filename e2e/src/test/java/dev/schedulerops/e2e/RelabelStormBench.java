package dev.schedulerops.e2e;

import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.e2e.support.ResultsFile;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Relabel storms: STORM_RATE label changes a second across NODES KWOK nodes for STORM_SECONDS while POD_RATE pods a
 * second arrive, for each mode: the bundled extender's Filter and FilterOnlyOne (names only, mutual TLS, run as the
 * operator renders them) and, as the control, kube-scheduler's own NodeAffinity ({@code key Exists}) on the same storm.
 * Every change and every binding is recorded by a watch with its resource version, so the label state of the chosen
 * node "at the binding" is decided by etcd's order, not by clocks: a pod whose node lacked the label at its binding
 * (Filter), or did not carry the highest value then (FilterOnlyOne), is a violation. A violation is either a stale
 * decision or the race every scheduler has: the label changed between the decision and the binding. The report gives
 * how long before its binding the change that broke it happened, and the control's count under the same storm.
 * The extender's CPU per filter call during the storm is compared with a quiet run of the same pods. Not a test of the
 * suite: {@code bench/relabel-storm} runs it by name and writes {@code schedulerops.relabelStorm.results}.
 */
@ExtendWith(ClusterExtension.class)
class RelabelStormBench {
    static final String LABEL = "relabel-storm.schedulerops.dev/rank";
    private static final int NODES = Integer.getInteger("schedulerops.relabelStorm.nodes", 1000);
    private static final int STORM_RATE = Integer.getInteger("schedulerops.relabelStorm.rate", 100);
    private static final int STORM_SECONDS = Integer.getInteger("schedulerops.relabelStorm.seconds", 60);
    private static final int POD_RATE = Integer.getInteger("schedulerops.relabelStorm.podRate", 5);
    private static final int STORM_SENDERS = 32;

    /** A node's label value at a resource version, as the watch delivered it (null: no label). */
    private record NodeState(long version, String value, long seenNanos) {}

    private record Binding(String pod, String node, long version, long seenNanos) {}

    /** What the watches recorded during one mode's run. */
    private static final class Recorder implements AutoCloseable {
        final Map<String, TreeMap<Long, NodeState>> nodes = new ConcurrentHashMap<>();
        final Map<String, Binding> bindings = new ConcurrentHashMap<>();
        final Watch nodeWatch;
        final Watch podWatch;

        Recorder(KubernetesClient client, String namespace) {
            nodeWatch = client.nodes()
                    .withLabel("schedulerops.dev/e2e-pool", "relabel-storm")
                    .watch(new Watcher<>() {
                        @Override
                        public void eventReceived(Action action, Node node) {
                            long version = Long.parseLong(node.getMetadata().getResourceVersion());
                            String value = node.getMetadata().getLabels() == null
                                    ? null
                                    : node.getMetadata().getLabels().get(LABEL);
                            nodes.computeIfAbsent(node.getMetadata().getName(), n -> new TreeMap<>());
                            TreeMap<Long, NodeState> states =
                                    nodes.get(node.getMetadata().getName());
                            synchronized (states) {
                                states.put(version, new NodeState(version, value, System.nanoTime()));
                            }
                        }

                        @Override
                        public void onClose(WatcherException cause) {}
                    });
            podWatch = client.pods().inNamespace(namespace).watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, Pod pod) {
                    if (pod.getSpec().getNodeName() != null) {
                        bindings.putIfAbsent(
                                pod.getMetadata().getName(),
                                new Binding(
                                        pod.getMetadata().getName(),
                                        pod.getSpec().getNodeName(),
                                        Long.parseLong(pod.getMetadata().getResourceVersion()),
                                        System.nanoTime()));
                    }
                }

                @Override
                public void onClose(WatcherException cause) {}
            });
        }

        /** The node's state at {@code version}: its last change at or before it. */
        NodeState at(String node, long version) {
            TreeMap<Long, NodeState> states = nodes.get(node);
            if (states == null) {
                return null;
            }
            synchronized (states) {
                Map.Entry<Long, NodeState> entry = states.floorEntry(version);
                return entry == null ? null : entry.getValue();
            }
        }

        /** The highest numeric value any node carried at {@code version}. */
        long highestAt(long version) {
            long highest = -1;
            for (String node : nodes.keySet()) {
                NodeState state = at(node, version);
                if (state != null && state.value() != null) {
                    highest = Math.max(highest, Long.parseLong(state.value()));
                }
            }
            return highest;
        }

        @Override
        public void close() {
            nodeWatch.close();
            podWatch.close();
        }
    }

    /** One run: what was checked, and how long before its binding each violation's breaking change happened. */
    private record Run(
            String mode,
            boolean storm,
            int changes,
            int pods,
            int bound,
            List<Long> violationsMillisBeforeBinding,
            double extenderCpuSeconds,
            double filterCalls) {}

    @Test
    void relabelStorms(Cluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        ResultsFile results = new ResultsFile(
                "Relabel storm: " + STORM_RATE + " label changes a second across " + NODES + " nodes for "
                        + STORM_SECONDS + " s, " + POD_RATE + " pods a second",
                System.getProperty("schedulerops.relabelStorm.command", "?"));
        List<String> nodes = kwokNodes(client, NODES);
        client.nodes().list().getItems().stream()
                .map(n -> n.getMetadata().getName())
                .filter(n -> !nodes.contains(n))
                .forEach(n -> MergePatch.nodeLabel(client, n, LABEL, null));
        String namespace =
                cluster.createNamespace("relabel-storm").getMetadata().getName();
        List<Run> runs = new ArrayList<>();
        try (ProfileHarness harness = new ProfileHarness(cluster, "relabel-storm")) {
            for (String verbs : List.of("Filter", "FilterOnlyOne")) {
                String profile = "storm-" + verbs.toLowerCase(java.util.Locale.ROOT);
                try (ProfileHarness.Running running = harness.run(
                        profile, "labelKey: " + LABEL + "\nverbs: [" + verbs + "]\nextender: {replicas: 1}\n")) {
                    for (boolean storm : new boolean[] {false, true}) {
                        runs.add(run(client, namespace, nodes, verbs, profile, storm, running));
                    }
                }
            }
            // kube-scheduler asks the extender about the feasible nodes it found, and over 100 nodes it stops
            // looking at percentageOfNodesToScore (adaptive: 42% of 1000): FilterOnlyOne then keeps the highest of
            // those. Every node looked at, the highest of all.
            try (ProfileHarness.Running running = harness.run(
                    "storm-filteronlyone-all",
                    "labelKey: " + LABEL + "\nverbs: [FilterOnlyOne]\nextender: {replicas: 1}\n"
                            + "scheduler: {percentageOfNodesToScore: 100}\n")) {
                runs.add(run(
                        client,
                        namespace,
                        nodes,
                        "FilterOnlyOne, percentageOfNodesToScore 100",
                        "storm-filteronlyone-all",
                        true,
                        running));
            }
            runs.add(run(client, namespace, nodes, "NodeAffinity (control)", "default-scheduler", true, null));
        }
        Path file = Path.of(System.getProperty("schedulerops.relabelStorm.results", "target/relabel-storm.md"));
        results.write(file, report(runs));
        System.out.println("[relabel-storm] wrote " + file.toAbsolutePath());
    }

    /**
     * {@code n} KWOK nodes of the pool, created through the API eight at a time (e2e/cluster nodes, one kubectl call
     * a node, takes minutes for a thousand), and Ready.
     */
    private static List<String> kwokNodes(KubernetesClient client, int n) throws Exception {
        List<String> names = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<?>> created = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String name = String.format("storm-%04d", i);
                names.add(name);
                created.add(pool.submit(() -> {
                    if (client.nodes().withName(name).get() == null) {
                        client.resource(new io.fabric8.kubernetes.api.model.NodeBuilder()
                                        .withNewMetadata()
                                        .withName(name)
                                        .addToAnnotations("kwok.x-k8s.io/node", "fake")
                                        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                                        .addToLabels("kubernetes.io/hostname", name)
                                        .addToLabels("type", "kwok")
                                        .addToLabels("schedulerops.dev/e2e-pool", "relabel-storm")
                                        .endMetadata()
                                        .withNewStatus()
                                        .addToCapacity("cpu", new io.fabric8.kubernetes.api.model.Quantity("32"))
                                        .addToCapacity("memory", new io.fabric8.kubernetes.api.model.Quantity("256Gi"))
                                        .addToCapacity("pods", new io.fabric8.kubernetes.api.model.Quantity("110"))
                                        .addToAllocatable("cpu", new io.fabric8.kubernetes.api.model.Quantity("32"))
                                        .addToAllocatable(
                                                "memory", new io.fabric8.kubernetes.api.model.Quantity("256Gi"))
                                        .addToAllocatable("pods", new io.fabric8.kubernetes.api.model.Quantity("110"))
                                        .endStatus()
                                        .build())
                                .create();
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : created) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (System.nanoTime() < deadline) {
            long ready =
                    client.nodes().withLabel("schedulerops.dev/e2e-pool", "relabel-storm").list().getItems().stream()
                            .filter(node -> node.getSpec().getTaints() == null
                                    || node.getSpec().getTaints().isEmpty())
                            .filter(node -> node.getStatus().getConditions() != null
                                    && node.getStatus().getConditions().stream()
                                            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
                            .count();
            if (ready >= n) {
                return names;
            }
            Thread.sleep(2000);
        }
        throw new IllegalStateException("the storm's " + n + " KWOK nodes were not all Ready within 10 minutes");
    }

    private Run run(
            KubernetesClient client,
            String namespace,
            List<String> nodes,
            String mode,
            String scheduler,
            boolean storm,
            ProfileHarness.Running profile)
            throws Exception {
        Random random = new Random(mode.hashCode() * 31L + (storm ? 1 : 0));
        // The same start for every run: every node labelled 0..99.
        for (String node : nodes) {
            MergePatch.nodeLabel(client, node, LABEL, Integer.toString(random.nextInt(100)));
        }
        double cpuBefore = profile == null ? 0 : profile.extenderCpuSeconds();
        double callsBefore =
                profile == null ? 0 : profile.extenderMetric("schedulerops_extender_requests_total", "verb=\"filter");
        AtomicBoolean going = new AtomicBoolean(true);
        AtomicInteger changes = new AtomicInteger();
        List<String> created = new ArrayList<>();
        try (Recorder recorder = new Recorder(client, namespace)) {
            // Open loop: a change is due every 1/RATE s whatever the last one took, sent by a pool of its own over a
            // client that allows that many requests at once (fabric8's default is 5 a host: 11 changes a second
            // at 90 ms each under load, a tenth of the rate).
            KubernetesClient stormClient = new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                    .withConfig(new io.fabric8.kubernetes.client.ConfigBuilder(client.getConfiguration())
                            .withMaxConcurrentRequests(64)
                            .withMaxConcurrentRequestsPerHost(STORM_SENDERS)
                            .build())
                    .build();
            java.util.concurrent.ExecutorService senders =
                    java.util.concurrent.Executors.newFixedThreadPool(STORM_SENDERS);
            AtomicInteger inFlight = new AtomicInteger();
            AtomicInteger dropped = new AtomicInteger();
            Thread stormer = new Thread(() -> {
                long interval = TimeUnit.SECONDS.toNanos(1) / STORM_RATE;
                long next = System.nanoTime();
                while (going.get() && storm) {
                    String node = nodes.get(random.nextInt(nodes.size()));
                    int dice = random.nextInt(10);
                    // One change in ten removes the label (or gives it back); the others set a new value.
                    String value =
                            dice == 0 ? (random.nextBoolean() ? null : "0") : Integer.toString(random.nextInt(100));
                    if (inFlight.get() >= STORM_SENDERS) {
                        dropped.incrementAndGet(); // every sender busy: counted, not queued
                    } else {
                        inFlight.incrementAndGet();
                        senders.execute(() -> {
                            try {
                                MergePatch.nodeLabel(stormClient, node, LABEL, value);
                                changes.incrementAndGet();
                            } catch (RuntimeException e) {
                                System.out.println("[relabel-storm] change failed: " + e);
                            } finally {
                                inFlight.decrementAndGet();
                            }
                        });
                    }
                    next += interval;
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupportSleep.nanos(wait);
                    }
                }
            });
            stormer.start();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(STORM_SECONDS);
            long interval = TimeUnit.SECONDS.toNanos(1) / POD_RATE;
            long next = System.nanoTime();
            int i = 0;
            while (System.nanoTime() < end) {
                String name = "storm-" + mode.replaceAll("[^a-zA-Z]", "").toLowerCase(java.util.Locale.ROOT) + "-"
                        + (storm ? "s" : "q") + "-" + i++;
                client.resource(pod(namespace, name, scheduler)).create();
                created.add(name);
                next += interval;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupportSleep.nanos(wait);
                }
            }
            going.set(false);
            stormer.join();
            senders.shutdown();
            senders.awaitTermination(30, TimeUnit.SECONDS);
            stormClient.close();
            if (dropped.get() > 0) {
                System.out.println("[relabel-storm] " + dropped.get() + " changes not sent: all " + STORM_SENDERS
                        + " senders busy");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (recorder.bindings.keySet().size() < created.size() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            List<Long> violations = new ArrayList<>();
            for (Binding binding : recorder.bindings.values()) {
                NodeState state = recorder.at(binding.node(), binding.version());
                boolean ok = state != null && state.value() != null;
                if (ok && mode.startsWith("FilterOnlyOne")) {
                    ok = Long.parseLong(state.value()) == recorder.highestAt(binding.version());
                }
                if (!ok) {
                    long before =
                            state == null ? -1 : TimeUnit.NANOSECONDS.toMillis(binding.seenNanos() - state.seenNanos());
                    violations.add(before);
                }
            }
            double cpu = profile == null ? 0 : profile.extenderCpuSeconds() - cpuBefore;
            double calls = profile == null
                    ? 0
                    : profile.extenderMetric("schedulerops_extender_requests_total", "verb=\"filter") - callsBefore;
            System.out.printf(
                    "[relabel-storm] %s, storm %s: %d changes, %d pods, %d bound, %d violations %s, extender %.1f CPU s"
                            + " for %.0f filter calls%n",
                    mode,
                    storm,
                    changes.get(),
                    created.size(),
                    recorder.bindings.size(),
                    violations.size(),
                    violations,
                    cpu,
                    calls);
            return new Run(
                    mode, storm, changes.get(), created.size(), recorder.bindings.size(), violations, cpu, calls);
        } finally {
            for (String name : created) {
                client.pods()
                        .inNamespace(namespace)
                        .withName(name)
                        .withGracePeriod(0)
                        .delete();
            }
        }
    }

    private static Pod pod(String namespace, String name, String scheduler) {
        Pod pod = RestrictedPods.forScheduler(namespace, name, scheduler);
        if (!scheduler.equals("default-scheduler")) {
            return pod;
        }
        // The control: kube-scheduler's own NodeAffinity on the label's presence.
        return new PodBuilder(pod)
                .editSpec()
                .withNewAffinity()
                .withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm()
                .addNewMatchExpression()
                .withKey(LABEL)
                .withOperator("Exists")
                .endMatchExpression()
                .endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity()
                .endAffinity()
                .endSpec()
                .build();
    }

    private static String report(List<Run> runs) {
        StringBuilder body = new StringBuilder();
        body.append("A violation: the pod's node lacked the label at the resource version of its binding (Filter,"
                + " NodeAffinity), or did not carry the highest value of all nodes then (FilterOnlyOne). \"Changed before"
                + " the binding\" is how long before the binding the watch here saw the change that broke it: a change"
                + " after the extender's answer (a few ms before the binding) is the race every scheduler has.\n\n");
        body.append(
                "| mode | storm | label changes | changes a second | pods | bound | violations | their change, ms before the binding"
                        + " | extender CPU s | filter calls | extender CPU µs per call |\n");
        body.append("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
        for (Run r : runs) {
            body.append("| ")
                    .append(r.mode())
                    .append(" | ")
                    .append(r.storm() ? "yes" : "no")
                    .append(" | ")
                    .append(r.changes())
                    .append(" | ")
                    .append(String.format("%.1f", r.changes() / (double) STORM_SECONDS))
                    .append(" | ")
                    .append(r.pods())
                    .append(" | ")
                    .append(r.bound())
                    .append(" | ")
                    .append(r.violationsMillisBeforeBinding().size())
                    .append(" | ")
                    .append(r.violationsMillisBeforeBinding().stream().sorted().toList())
                    .append(" | ")
                    .append(String.format("%.1f", r.extenderCpuSeconds()))
                    .append(" | ")
                    .append(String.format("%.0f", r.filterCalls()))
                    .append(" | ")
                    .append(
                            r.filterCalls() == 0
                                    ? "-"
                                    : String.format("%.0f", 1e6 * r.extenderCpuSeconds() / r.filterCalls()))
                    .append(" |\n");
        }
        return body.toString();
    }

    /** Sleeps without an interrupt check per call site. */
    private static final class LockSupportSleep {
        static void nanos(long nanos) {
            java.util.concurrent.locks.LockSupport.parkNanos(nanos);
        }
    }
}
