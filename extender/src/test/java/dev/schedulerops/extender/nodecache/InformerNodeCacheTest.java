package dev.schedulerops.extender.nodecache;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The informer-fed cache against a local stand-in for the API server: one node list, then a watch with three events. */
class InformerNodeCacheTest {
    private static final String KEY = "priority.lixueduan.com";

    private final CountDownLatch done = new CountDownLatch(1);
    /** Once set, every request is refused as if the extender's permission to list and watch nodes was revoked. */
    private volatile boolean forbidden;
    /** Counted down to make the watch send a BOOKMARK (resource version 20) after its three events. */
    private final CountDownLatch bookmark = new CountDownLatch(1);

    /** Consistent reads are answered once this is open (it is, unless a test closes it first). */
    private volatile CountDownLatch readsAnswered = new CountDownLatch(0);

    /** The query and Accept header of each consistent read of the labelled nodes. */
    private final List<String> consistentReads = new CopyOnWriteArrayList<>();

    private HttpServer apiServer;
    private KubernetesClient client;
    private InformerNodeCache cache;

    private static String node(String name, String resourceVersion, String labelValue) {
        String labels = labelValue == null ? "{\"x\":\"y\"}" : "{\"x\":\"y\",\"" + KEY + "\":\"" + labelValue + "\"}";
        return "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + name + "\",\"resourceVersion\":\""
                + resourceVersion + "\",\"labels\":" + labels + "},\"status\":{\"capacity\":{\"cpu\":\"8\"},"
                + "\"nodeInfo\":{\"kubeletVersion\":\"v1.33.13\"}}}";
    }

    @BeforeEach
    void start() throws IOException {
        apiServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        apiServer.createContext("/api/v1/nodes", this::serveNodes);
        apiServer.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        apiServer.start();
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl("http://127.0.0.1:" + apiServer.getAddress().getPort())
                .withOnlyHttpWatches(true)
                .withRequestRetryBackoffLimit(0)
                .build();
        client = new KubernetesClientBuilder().withConfig(config).build();
    }

    private void serveNodes(HttpExchange exchange) throws IOException {
        if (forbidden) {
            byte[] status = ("{\"apiVersion\":\"v1\",\"kind\":\"Status\",\"status\":\"Failure\","
                            + "\"reason\":\"Forbidden\",\"code\":403}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(403, status.length);
            exchange.getResponseBody().write(status);
            exchange.close();
            return;
        }
        String query = exchange.getRequestURI().getRawQuery();
        if (query != null && query.contains("labelSelector=")) {
            consistentReads.add(
                    query + " Accept: " + exchange.getRequestHeaders().getFirst("Accept"));
            try {
                readsAnswered.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] list = ("{\"kind\":\"PartialObjectMetadataList\",\"metadata\":{\"resourceVersion\":\"30\"},"
                            + "\"items\":[{\"metadata\":{\"name\":\"n2\",\"resourceVersion\":\"29\",\"labels\":{\""
                            + KEY + "\":\"9\"}}}]}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, list.length);
            exchange.getResponseBody().write(list);
            exchange.close();
            return;
        }
        if (query == null || !query.contains("watch=true")) {
            byte[] list = ("{\"apiVersion\":\"v1\",\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\"},"
                            + "\"items\":[" + node("n1", "1", "7") + "," + node("n2", "2", null) + "]}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, list.length);
            exchange.getResponseBody().write(list);
            exchange.close();
            return;
        }
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        for (String event : new String[] {
            "{\"type\":\"MODIFIED\",\"object\":" + node("n2", "11", "3") + "}",
            "{\"type\":\"ADDED\",\"object\":" + node("n3", "12", "5") + "}",
            "{\"type\":\"DELETED\",\"object\":" + node("n1", "13", "7") + "}",
        }) {
            out.write((event + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
        try {
            if (bookmark.await(30, TimeUnit.SECONDS) && done.getCount() > 0) {
                out.write(("{\"type\":\"BOOKMARK\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Node\","
                                + "\"metadata\":{\"resourceVersion\":\"20\"}}}\n")
                        .getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            done.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        exchange.close();
    }

    @AfterEach
    void stop() {
        if (cache != null) {
            cache.close();
        }
        done.countDown();
        bookmark.countDown();
        readsAnswered.countDown();
        client.close();
        apiServer.stop(0);
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }

    @Test
    void followsTheListAndTheWatchKeepingOnlyNamesAndLabels() throws Exception {
        cache = InformerNodeCache.start(client, KEY, InformerNodeCache.Settings.DEFAULT);

        await(cache::synced);
        await(() -> cache.labelValue("n1") == NodeCache.UNKNOWN_NODE);

        assertThat(cache.labelValue("n2")).isEqualTo("3");
        assertThat(cache.labelValue("n3")).isEqualTo("5");
        byte[] n3 = "n3".getBytes(StandardCharsets.UTF_8);
        assertThat(cache.index().labelValue(n3, 0, n3.length)).isEqualTo("5");
        Node stored = cache.informer.getStore().getByKey("n3");
        assertThat(stored.getMetadata().getName()).isEqualTo("n3");
        assertThat(stored.getMetadata().getLabels()).containsEntry(KEY, "5");
        assertThat(stored.getStatus()).as("the informer keeps no node status").isNull();
    }

    @Test
    void tellsWhetherItsWatchIsOpenAndWhenItLastHeardFromTheApiServerBookmarksIncluded() throws Exception {
        double before = System.currentTimeMillis() / 1000.0;
        cache = InformerNodeCache.start(client, KEY, InformerNodeCache.Settings.DEFAULT, Duration.ofMillis(50));

        await(cache::synced);
        await(() -> cache.labelValue("n1") == NodeCache.UNKNOWN_NODE); // the watch's last event
        await(cache::watching);
        // The handler records the time just after it removes the node; a few polls see resource version 13 and,
        // having nothing new, leave the time alone.
        Thread.sleep(300);
        assertThat(cache.size()).isEqualTo(2);
        double listed = cache.lastEventEpochSeconds();
        assertThat(listed).isGreaterThanOrEqualTo(Math.floor(before));
        Thread.sleep(300);
        assertThat(cache.lastEventEpochSeconds())
                .as("polls of an unchanged resource version")
                .isEqualTo(listed);

        bookmark.countDown(); // no node changes, but the API server says the watch is alive
        await(() -> cache.lastEventEpochSeconds() > listed);
        assertThat(cache.informer.lastSyncResourceVersion()).isEqualTo("20");
        double heard = cache.lastEventEpochSeconds();
        assertThat(cache.labelValue("n3")).isEqualTo("5");

        forbidden = true;
        done.countDown(); // the API server ends the watch; the informer's next watch and list are refused
        await(() -> !cache.watching());
        Thread.sleep(1_000);
        assertThat(cache.watching()).as("still not watching a second later").isFalse();
        assertThat(cache.lastEventEpochSeconds())
                .as("no event, so the time it last heard of a node stays")
                .isEqualTo(heard);
        assertThat(cache.labelValue("n3")).as("the cache keeps what it knew").isEqualTo("5");
    }

    @Test
    void catchesUpWithAConsistentReadOfTheLabelledNodesMetadataThatTheWatchCannotThenUndo() throws Exception {
        cache = InformerNodeCache.start(client, KEY, InformerNodeCache.Settings.DEFAULT);
        await(cache::synced);
        await(() -> cache.labelValue("n1") == NodeCache.UNKNOWN_NODE); // the watch's last event, version 13
        assertThat(cache.labelValue("n2")).isEqualTo("3");
        assertThat(cache.catchesUp()).isTrue();

        assertThat(cache.catchUp(System.nanoTime()).get(10, TimeUnit.SECONDS)).isTrue();

        assertThat(cache.labelValue("n2")).as("the read's state, version 29").isEqualTo("9");
        assertThat(cache.labelValue("n3"))
                .as("labelled in the cache, not in the read")
                .isNull();
        assertThat(consistentReads).singleElement().satisfies(read -> assertThat(read)
                .startsWith("labelSelector=" + KEY.replace("/", "%2F") + " ")
                .doesNotContain("resourceVersion")
                .contains("Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"));
        assertThat(cache.consistentReads()).isEqualTo(1);
        assertThat(cache.consistentReadCorrections()).isEqualTo(2);
        assertThat(cache.consistentReadFailures()).isZero();
    }

    @Test
    void aCatchUpThatTheApiServerRefusesAnswersFalseAndKeepsTheCache() throws Exception {
        cache = InformerNodeCache.start(client, KEY, InformerNodeCache.Settings.DEFAULT);
        await(cache::synced);
        await(() -> cache.labelValue("n1") == NodeCache.UNKNOWN_NODE);
        forbidden = true;

        assertThat(cache.catchUp(System.nanoTime()).get(10, TimeUnit.SECONDS)).isFalse();

        assertThat(cache.labelValue("n2")).isEqualTo("3");
        assertThat(cache.consistentReadFailures()).isEqualTo(1);
    }

    @Test
    void theVerifyPeriodsReadRepairsWhatTheWatchMissedWithoutAnyRequest() throws Exception {
        // The reads wait until the watch's events are in: a read (version 30) applied before the watch's deletion of
        // n1 (version 13) rightly keeps n1 as an unlabelled node, and the test would wait for "unknown" in vain.
        readsAnswered = new CountDownLatch(1);
        cache = InformerNodeCache.start(
                client, KEY, new InformerNodeCache.Settings(Duration.ofSeconds(1), Duration.ofMillis(200)));
        await(cache::synced);
        await(() -> cache.labelValue("n1") == NodeCache.UNKNOWN_NODE);
        readsAnswered.countDown();

        await(() -> "9".equals(cache.labelValue("n2")));

        assertThat(consistentReads).as("reads the periodic check made").isNotEmpty();
        assertThat(cache.consistentReadCorrections()).isEqualTo(2);
    }
}
