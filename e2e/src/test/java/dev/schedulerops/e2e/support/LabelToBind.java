package dev.schedulerops.e2e.support;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The experiment the product exists for, timed as a user meets it: a pod of the profile waits because no node carries
 * the label; a node gets the label ({@code kubectl label node}); the pod lands there. Nothing else touches the pod or
 * the cluster: the time is from the label's write to the pod's binding, both as a watch here sees them.
 *
 * <p>One {@link #trial} after another on one node: the label of the previous trial is removed and the next pod is
 * created at once. That is also the opposite direction, a pod created right after a label went: when such a pod is
 * placed by the removed label it is counted ({@link Trial#stalePlacements}) and the trial starts again with a new pod,
 * so that every timed trial starts from a rejection. Between the scheduler's rejection and the label the trial waits a
 * random 0 to 3 s, so that the pod is retried from kube-scheduler's backoff queue (within its 1 s initial backoff) as
 * well as from its unschedulable pool.
 *
 * <p>A watch on every Node and Pod records what else happened between the label and the binding: an event that could
 * have made kube-scheduler retry the pod then (another node's or another pod's change) is reported with the trial
 * ({@link Trial#otherEvents}), so a fast result on a busy cluster is not mistaken for the product's. (Before the label a
 * retry finds no labelled node: whatever caused it, the pod waits on.)
 */
public final class LabelToBind implements AutoCloseable {
    /** How long a trial waits for the binding before it counts it as not bound: past any retry but the 5-minute one. */
    public static final Duration BIND_LIMIT = Duration.ofSeconds(60);

    /**
     * One run of the experiment; times in milliseconds.
     *
     * @param stalePlacements pods created right after the previous label was removed that were placed by it, before
     *     the one that was rejected and timed
     */
    public record Trial(
            String mode,
            int number,
            long delayMillis,
            long labelToBindMillis,
            boolean bound,
            int stalePlacements,
            List<String> otherEvents) {
        public String describe() {
            return mode + " #" + number + ": label " + delayMillis + " ms after the rejection, "
                    + (bound ? "bound " + labelToBindMillis + " ms after it" : "NOT bound within " + BIND_LIMIT)
                    + (stalePlacements == 0
                            ? ""
                            : "; before it " + stalePlacements
                                    + " pod(s) created right after the label's removal were placed by it")
                    + (otherEvents.isEmpty() ? "" : ", other events meanwhile: " + otherEvents);
        }
    }

    /** A change the watch delivered, with when it arrived here. */
    private record Seen(long nanos, String kind, Watcher.Action action, Object object) {}

    private final KubernetesClient client;
    private final String namespace;
    private final String labelKey;
    private final String node;
    private final Random random;
    private final List<Seen> seen = new ArrayList<>();
    private final Watch nodes;
    private final Watch pods;
    private int podCounter;

    /**
     * @param namespace where the trial pods go
     * @param node the node that gets the label; no other node may carry {@code labelKey}
     */
    public LabelToBind(KubernetesClient client, String namespace, String labelKey, String node, long seed) {
        this.client = client;
        this.namespace = namespace;
        this.labelKey = labelKey;
        this.node = node;
        this.random = new Random(seed);
        this.nodes = client.nodes().watch(recorder("node"));
        this.pods = client.pods().inAnyNamespace().watch(recorder("pod"));
        MergePatch.nodeLabel(client, node, labelKey, null);
    }

    private <T> Watcher<T> recorder(String kind) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, T object) {
                long now = System.nanoTime();
                synchronized (seen) {
                    seen.add(new Seen(now, kind, action, object));
                    seen.notifyAll();
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                // A closed watch shows as a trial that never sees its pod: it fails with that.
            }
        };
    }

    /**
     * One trial with {@code schedulerName}'s scheduler: removes the label, creates a pod at once, waits for the
     * scheduler's rejection, waits 0 to 3 s, labels the node and times the binding. Leaves the label on the node (the
     * next trial removes it) and deletes its pod.
     */
    public Trial trial(String mode, String schedulerName, int number) {
        int stale = 0;
        while (true) {
            MergePatch.nodeLabel(client, node, labelKey, null);
            String name = "label-to-bind-" + ++podCounter + "-" + Long.toString(System.nanoTime() % 100_000, 36);
            long created = System.nanoTime();
            client.resource(RestrictedPods.forScheduler(namespace, name, schedulerName))
                    .create();
            Seen first = await(
                    Duration.ofSeconds(60),
                    created,
                    s -> isPod(s, name) && (isBound((Pod) s.object) || isUnschedulable((Pod) s.object)),
                    "pod " + name + " rejected or bound");
            if (isBound((Pod) first.object)) {
                delete(name);
                if (++stale > 10) {
                    throw new AssertionError(
                            "10 pods in a row were placed by a label removed before they were created");
                }
                continue;
            }
            return timed(mode, number, name, first.nanos, stale);
        }
    }

    private Trial timed(String mode, int number, String name, long rejected, int stale) {
        long delay = random.nextInt(3001);
        Await.sleep(delay);
        long labelled = System.nanoTime();
        MergePatch.nodeLabel(client, node, labelKey, "10");
        Seen bound;
        try {
            bound = await(BIND_LIMIT, labelled, s -> isPod(s, name) && isBound((Pod) s.object), name + " bound");
        } catch (AssertionError notBound) {
            delete(name);
            return new Trial(
                    mode,
                    number,
                    delay,
                    BIND_LIMIT.toMillis(),
                    false,
                    stale,
                    otherEvents(labelled, System.nanoTime(), name));
        }
        if (!node.equals(((Pod) bound.object).getSpec().getNodeName())) {
            throw new AssertionError(name + " went to "
                    + ((Pod) bound.object).getSpec().getNodeName() + ", not to the only labelled node " + node);
        }
        List<String> others = otherEvents(labelled, bound.nanos, name);
        delete(name);
        return new Trial(
                mode, number, delay, TimeUnit.NANOSECONDS.toMillis(bound.nanos - labelled), true, stale, others);
    }

    /**
     * How long the extender's node cache takes to show a label set ({@code add}) or removed: from just before the write
     * (an upper bound: the API server commits it a little later) until {@code probe} answers with the new state. Each
     * probe is one request over a kept-alive connection, a millisecond or so.
     */
    public long cacheLagMicros(ExtenderProbe probe, boolean add) {
        int before = add ? 0 : 10;
        int after = add ? 10 : 0;
        MergePatch.nodeLabel(client, node, labelKey, add ? null : "10");
        Await.until(
                Duration.ofSeconds(30),
                "the extender's cache shows the starting state",
                () -> probe.score(node) == before);
        long written = System.nanoTime();
        MergePatch.nodeLabel(client, node, labelKey, add ? "10" : null);
        long deadline = written + TimeUnit.SECONDS.toNanos(30);
        while (probe.score(node) != after) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the extender's cache did not show the change within 30 s");
            }
        }
        return TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - written);
    }

    /** The node and pod changes between {@code from} and {@code to} other than the trial's pod's and the label's. */
    private List<String> otherEvents(long from, long to, String pod) {
        List<String> others = new ArrayList<>();
        synchronized (seen) {
            for (Seen s : seen) {
                if (s.nanos <= from || s.nanos >= to || isPod(s, pod)) {
                    continue;
                }
                if (s.kind.equals("node")
                        && ((Node) s.object).getMetadata().getName().equals(node)) {
                    continue; // the label itself (and the trial's own removal before it)
                }
                var meta = s.kind.equals("node") ? ((Node) s.object).getMetadata() : ((Pod) s.object).getMetadata();
                others.add(s.kind + " " + s.action + " "
                        + (meta.getNamespace() == null ? "" : meta.getNamespace() + "/") + meta.getName());
            }
            // What no later trial looks at any more.
            seen.removeIf(s -> s.nanos < from);
        }
        return others;
    }

    private void delete(String name) {
        long asked = System.nanoTime();
        client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
        await(
                Duration.ofSeconds(60),
                asked,
                s -> isPod(s, name) && s.action == Watcher.Action.DELETED,
                name + " deleted");
    }

    private Seen await(Duration timeout, long since, Predicate<Seen> which, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (seen) {
            while (true) {
                for (Seen s : seen) {
                    if (s.nanos >= since && which.test(s)) {
                        return s;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("timed out after " + timeout + " waiting until " + what);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(seen, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
        }
    }

    private boolean isPod(Seen s, String name) {
        return s.kind.equals("pod")
                && namespace.equals(((Pod) s.object).getMetadata().getNamespace())
                && name.equals(((Pod) s.object).getMetadata().getName());
    }

    private static boolean isBound(Pod pod) {
        return pod.getSpec().getNodeName() != null;
    }

    private static boolean isUnschedulable(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "PodScheduled".equals(c.getType())
                                && "False".equals(c.getStatus())
                                && "Unschedulable".equals(c.getReason()));
    }

    /** The experiment's profile modes: the verbs that make a pod wait, each with names only and with whole nodes. */
    public record Mode(String name, String specYaml) {
        public static List<Mode> all(String labelKey) {
            List<Mode> modes = new ArrayList<>();
            for (boolean namesOnly : new boolean[] {true, false}) {
                for (String verbs : new String[] {"Filter", "FilterOnlyOne", "Filter, Prioritize"}) {
                    modes.add(new Mode(
                            verbs.replace(", ", "+") + (namesOnly ? " names-only" : " full-node"),
                            "labelKey: " + labelKey + "\nverbs: [" + verbs + "]\n"
                                    + (verbs.contains("Prioritize") ? "weight: 20\n" : "")
                                    + "extender: {replicas: 1, nodeCacheCapable: " + namesOnly + "}\n"));
                }
            }
            return modes;
        }

        /** Every mode, or those {@code schedulerops.labelToBind.modes} names (slugs, comma-separated; MODES=). */
        public static List<Mode> selected(String labelKey) {
            String only = System.getProperty("schedulerops.labelToBind.modes", "");
            return all(labelKey).stream()
                    .filter(m -> only.isBlank() || List.of(only.split(",")).contains(m.slug()))
                    .toList();
        }

        /** A name usable in object names: "filter-prioritize-names-only". */
        public String slug() {
            return name.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        }
    }

    /** p50, p99 and max of the bound trials' times, the nearest-rank way; and how many trials went wrong. */
    public record Summary(int trials, int notBound, int stale, long p50, long p99, long max, int withOtherEvents) {
        public static Summary of(List<Trial> trials) {
            List<Long> times = trials.stream()
                    .filter(Trial::bound)
                    .map(Trial::labelToBindMillis)
                    .sorted()
                    .toList();
            return new Summary(
                    trials.size(),
                    (int) trials.stream().filter(t -> !t.bound()).count(),
                    trials.stream().mapToInt(Trial::stalePlacements).sum(),
                    rank(times, 0.50),
                    rank(times, 0.99),
                    times.isEmpty() ? -1 : times.get(times.size() - 1),
                    (int) trials.stream()
                            .filter(t -> !t.otherEvents().isEmpty())
                            .count());
        }

        private static long rank(List<Long> sorted, double quantile) {
            if (sorted.isEmpty()) {
                return -1;
            }
            int rank = (int) Math.ceil(quantile * sorted.size());
            return sorted.get(Math.max(0, rank - 1));
        }
    }

    @Override
    public void close() {
        nodes.close();
        pods.close();
        if (Objects.nonNull(client.nodes().withName(node).get())) {
            MergePatch.nodeLabel(client, node, labelKey, null);
        }
    }
}
