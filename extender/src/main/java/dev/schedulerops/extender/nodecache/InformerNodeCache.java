package dev.schedulerops.extender.nodecache;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches Nodes through a fabric8 informer and keeps, per node, only the value of the configured label. The informer's
 * own store is reduced to each node's name and labels (plus the resource version it needs), not whole Node objects
 * with their status and image lists. It is synced once the informer's initial list has been delivered; list or watch
 * failures are retried by the informer, and a warning is logged every 30 s while the cache has not synced (readiness
 * stays 503 meanwhile).
 *
 * <p>The watch can be behind what kube-scheduler knows: both hear of a node's new label from the API server, and
 * kube-scheduler, which retries a waiting pod the moment it hears, may ask before the watch here has delivered. So
 * before a filter rejects every node, it {@link #catchUp catches up}: a consistent read of the labelled nodes, one at a
 * time however many requests want one ({@link CatchUp}), applied to the cache where it is newer than what the watch
 * delivered. Every {@link Settings#verifyPeriod} the same read checks the cache, so that a watch that silently stopped
 * delivering leaves it stale for at most that long.
 */
public final class InformerNodeCache implements NodeCache {
    private static final Logger LOG = LoggerFactory.getLogger(InformerNodeCache.class);
    private static final long LIST_PAGE_SIZE = 500;
    /**
     * The least time between the starts of two consistent reads: while requests keep rejecting every node (pods that
     * no labelled node can take, retried on every cluster event), the API server gets at most ten reads a second.
     */
    static final Duration CATCH_UP_SPACING = Duration.ofMillis(100);

    /**
     * @param catchUpLimit how long a request waits for a consistent read (and how long one read's page may take)
     *     before it is answered from the cache as the watch left it; kube-scheduler's httpTimeout must leave room for
     *     it (the operator sets it to at most half the profile's)
     * @param verifyPeriod how often a consistent read checks the cache whatever the requests; zero for never
     */
    public record Settings(Duration catchUpLimit, Duration verifyPeriod) {
        public static final Settings DEFAULT = new Settings(Duration.ofSeconds(1), Duration.ofSeconds(60));

        public Settings {
            if (catchUpLimit.isNegative() || catchUpLimit.isZero()) {
                throw new IllegalArgumentException("the catch-up limit must be positive");
            }
            if (verifyPeriod.isNegative()) {
                throw new IllegalArgumentException("the verify period must not be negative");
            }
        }
    }

    private final Settings settings;
    private final CatchUp catchUp;

    private final StaticNodeCache labels = new StaticNodeCache();
    /** Package-private for tests. */
    final SharedIndexInformer<Node> informer;

    private final String labelKey;
    private volatile boolean closed;
    /** Whether the handler had taken in the first list when {@link #synced()} last looked; never false again. */
    private final AtomicBoolean handlerCaughtUp = new AtomicBoolean();
    /**
     * The API server sends a watch that allows them a bookmark about once a minute (its cacher's bookmarkFrequency),
     * carrying the node watch's current resource version; it moves with node writes and with etcd's progress
     * notifications, so the informer's resource version can move while no event reaches the handlers.
     */
    private static final Duration RESOURCE_VERSION_POLL = Duration.ofSeconds(10);

    /** When the last list, watch event or bookmark arrived, in ms since the epoch; 0 before the first list. */
    private final AtomicLong lastEventMillis = new AtomicLong();
    /** The informer's resource version as last polled; read and written by the watchdog thread only. */
    private String lastResourceVersion;

    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "node-cache-watchdog");
        thread.setDaemon(true);
        return thread;
    });

    private InformerNodeCache(KubernetesClient client, String labelKey, Settings settings) {
        this.labelKey = labelKey;
        // Lists in pages of 500 (client-go's default): one unpaged list of all nodes is a single response body that
        // fabric8 reads into one byte[] and then parses whole, and the JDK HttpClient keeps the exchange that opened
        // its HTTP/2 connection, body and all, for as long as the connection lives (the watch keeps it open). Unpaged,
        // 20000 nodes did not fit the Deployment's 512Mi (bench/results/20261124-node-cache.node-cache.md).
        this.informer = client.nodes().withLimit(LIST_PAGE_SIZE).runnableInformer(0);
        // Handlers get the listed or watched Node on add and as the new one on update; a stored, reduced one only as
        // the old one on update and on deletions noticed by a relist. Either way name and labels, all that remember
        // and remove read, are there. Label keys contain dots, so the whole labels map is kept.
        informer.itemStore(new ReducedStateItemStore<>(
                ReducedStateItemStore.NAME_KEY_STATE,
                Node.class,
                client.getKubernetesSerialization(),
                "metadata.labels"));
        informer.exceptionHandler((started, error) -> {
            LOG.warn("node watch failed, retrying: {}", error.toString());
            return true;
        });
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                remember(node);
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                remember(newNode);
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                // A deletion a relist noticed carries the node's last known version, older than a consistent read
                // may have applied since: it is removed whatever the version.
                labels.forget(
                        node.getMetadata().getName(),
                        deletedFinalStateUnknown
                                ? ResourceVersion.UNKNOWN
                                : ResourceVersion.parse(node.getMetadata().getResourceVersion()));
                lastEventMillis.set(System.currentTimeMillis());
            }
        });
        this.catchUp = new CatchUp(
                new LabelledNodesReader(client, labelKey, settings.catchUpLimit()),
                labels,
                CATCH_UP_SPACING,
                watchdog,
                System::nanoTime);
        this.settings = settings;
    }

    /** Starts watching; the returned cache reports {@link #synced()} once the first list has arrived. */
    public static InformerNodeCache start(KubernetesClient client, String labelKey, Settings settings) {
        return start(client, labelKey, settings, RESOURCE_VERSION_POLL);
    }

    /** As {@link #start(KubernetesClient, String, Settings)}, noticing bookmarks every {@code poll} (tests make it short). */
    static InformerNodeCache start(KubernetesClient client, String labelKey, Settings settings, Duration poll) {
        InformerNodeCache cache = new InformerNodeCache(client, labelKey, settings);
        long started = System.nanoTime();
        cache.watchdog.scheduleWithFixedDelay(
                cache::noticeResourceVersion, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
        long verify = settings.verifyPeriod().toMillis();
        if (verify > 0) {
            cache.watchdog.scheduleWithFixedDelay(
                    () -> {
                        if (cache.synced()) {
                            cache.catchUp.after(System.nanoTime());
                        }
                    },
                    verify,
                    verify,
                    TimeUnit.MILLISECONDS);
        }
        ScheduledFuture<?> notSyncedWarning = cache.watchdog.scheduleWithFixedDelay(
                () -> {
                    if (!cache.synced()) {
                        LOG.warn(
                                "node cache not synced after {} s, /readyz answers 503: is the API server {}"
                                        + " reachable, and may this identity list and watch nodes?",
                                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
                                client.getMasterUrl());
                    }
                },
                10,
                30,
                TimeUnit.SECONDS);
        cache.informer.start().whenComplete((ignored, error) -> {
            if (error == null) {
                notSyncedWarning.cancel(false);
                // An empty first list delivers no event; otherwise the events already set it (and may be newer).
                cache.lastEventMillis.compareAndSet(0, System.currentTimeMillis());
                LOG.info(
                        "node cache's first list: {} nodes (synced once the index has taken them all in)",
                        cache.informer.getStore().listKeys().size());
            } else if (!cache.closed) {
                LOG.warn("first node list failed, the informer keeps retrying: {}", error.toString());
            }
        });
        return cache;
    }

    private void remember(Node node) {
        Map<String, String> nodeLabels = node.getMetadata().getLabels();
        labels.observe(
                node.getMetadata().getName(),
                nodeLabels == null ? null : nodeLabels.get(labelKey),
                ResourceVersion.parse(node.getMetadata().getResourceVersion()));
        lastEventMillis.set(System.currentTimeMillis());
    }

    /** A bookmark (or an event) moved the informer's resource version since the last poll: the watch delivers. */
    private void noticeResourceVersion() {
        try {
            String version = informer.lastSyncResourceVersion();
            if (version != null && !version.equals(lastResourceVersion)) {
                // The first version seen is the list's, whose arrival is already recorded.
                if (lastResourceVersion != null) {
                    lastEventMillis.set(System.currentTimeMillis());
                }
                lastResourceVersion = version;
            }
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again: log, and keep polling.
            LOG.warn("reading the node informer's resource version failed: {}", e.toString());
        }
    }

    /** How many nodes the cache holds. */
    public int size() {
        return labels.size();
    }

    /**
     * Whether the informer's watch is open now. False while it relists or retries after a failure (the API server gone,
     * the permission to watch nodes revoked); a connection cut without a word can keep it true, which is why
     * {@link #lastEventEpochSeconds()} exists too.
     */
    public boolean watching() {
        return informer.isWatching();
    }

    /**
     * When the cache last heard from the API server (the first list, a watch event, or a bookmark with a new resource
     * version, noticed within {@link #RESOURCE_VERSION_POLL}), in seconds since the epoch; 0 before the first list.
     * Every kubelet writes its Node at least every 5 minutes (nodeStatusReportFrequency), so on a cluster of real nodes
     * an age well beyond that means the watch has stopped delivering.
     */
    public double lastEventEpochSeconds() {
        return lastEventMillis.get() / 1000.0;
    }

    /**
     * Synced once the informer's first list is in its store and the handler, which fills the index on another thread
     * after the store, has taken in every node of it; from then on, for good. Before the handler has, a node of the
     * list would read as unknown.
     */
    @Override
    public boolean synced() {
        if (handlerCaughtUp.get()) {
            return true;
        }
        if (!informer.hasSynced()) {
            return false;
        }
        for (String name : informer.getStore().listKeys()) {
            if (labels.labelValue(name) == NodeCache.UNKNOWN_NODE) {
                return false;
            }
        }
        if (handlerCaughtUp.compareAndSet(false, true)) {
            LOG.info(
                    "node cache synced with {} nodes",
                    informer.getStore().listKeys().size());
        }
        return true;
    }

    @Override
    public boolean catchesUp() {
        return true;
    }

    @Override
    public CompletableFuture<Boolean> catchUp(long askedAtNanos) {
        return catchUp.after(askedAtNanos)
                .copy()
                .completeOnTimeout(false, settings.catchUpLimit().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Consistent reads started (to catch up before rejecting every node, or to verify the cache). */
    public long consistentReads() {
        return catchUp.reads();
    }

    /** Consistent reads that failed. */
    public long consistentReadFailures() {
        return catchUp.failures();
    }

    /** Node states that a consistent read found before the watch delivered them. */
    public long consistentReadCorrections() {
        return catchUp.corrections();
    }

    @Override
    public String labelValue(String nodeName) {
        return labels.labelValue(nodeName);
    }

    @Override
    public NodeLabelIndex index() {
        return labels.index();
    }

    @Override
    public void close() {
        closed = true;
        watchdog.shutdownNow();
        informer.stop();
    }
}
