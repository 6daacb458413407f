package dev.schedulerops.extender.nodecache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StaticNodeCacheTest {
    private final StaticNodeCache cache = new StaticNodeCache();

    /** Looks a name up the way names-only requests do: by its bytes inside a larger body. */
    private String byBytes(String name) {
        byte[] body = ("[\"" + name + "\"]").getBytes(StandardCharsets.UTF_8);
        return cache.index().labelValue(body, 2, body.length - 2);
    }

    @Test
    void bytesAndStringLookupsGiveTheSameThreeAnswers() {
        cache.put("labelled", "7").put("bare", null);

        assertThat(byBytes("labelled")).isEqualTo("7").isEqualTo(cache.labelValue("labelled"));
        assertThat(byBytes("bare")).isNull();
        assertThat(cache.labelValue("bare")).isNull();
        assertThat(byBytes("never-seen")).isSameAs(NodeCache.UNKNOWN_NODE);
        assertThat(cache.labelValue("never-seen")).isSameAs(NodeCache.UNKNOWN_NODE);
    }

    @Test
    void byteLookupsSeeEveryWriteThatChangedSomething() {
        cache.put("n", "1");
        assertThat(byBytes("n")).isEqualTo("1");

        cache.put("n", "2");
        assertThat(byBytes("n")).isEqualTo("2");

        cache.put("n", null);
        assertThat(byBytes("n")).isNull();

        cache.remove("n");
        assertThat(byBytes("n")).isSameAs(NodeCache.UNKNOWN_NODE);
    }

    @Test
    void lookupsThatArriveWhileTheIndexIsRebuiltWaitForItInsteadOfReadingTheOldOne() throws Exception {
        for (int i = 0; i < 50_000; i++) {
            cache.put("node-" + i, "1");
        }
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<String>> answers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return byBytes("node-49999");
                }));
            }
            start.countDown();
            for (Future<String> answer : answers) {
                assertThat(answer.get(30, TimeUnit.SECONDS))
                        .as("not the empty first index")
                        .isEqualTo("1");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void findsEveryNodeOfALargeClusterAndNoPrefixOrExtensionOfThem() {
        IntStream.range(0, 5000).forEach(i -> cache.put(String.format("node-%05d", i), Integer.toString(i % 7)));

        IntStream.range(0, 5000)
                .forEach(i -> assertThat(byBytes(String.format("node-%05d", i))).isEqualTo(Integer.toString(i % 7)));
        assertThat(byBytes("node-0000")).isSameAs(NodeCache.UNKNOWN_NODE);
        assertThat(byBytes("node-000001")).isSameAs(NodeCache.UNKNOWN_NODE);
        assertThat(byBytes("node-05000")).isSameAs(NodeCache.UNKNOWN_NODE);
        assertThat(byBytes("")).isSameAs(NodeCache.UNKNOWN_NODE);
    }

    @Test
    void namesAreMatchedByTheirUtf8Bytes() {
        cache.put("nœud-ü", "3");

        assertThat(byBytes("nœud-ü")).isEqualTo("3");
        assertThat(byBytes("noeud-u")).isSameAs(NodeCache.UNKNOWN_NODE);
    }

    @Test
    void theWatchNeverTakesTheCacheBackToAStateItHasPassed() {
        cache.observe("n", "1", 10);
        cache.observe("n", "2", 9);
        assertThat(cache.labelValue("n")).as("an older state is dropped").isEqualTo("1");

        cache.observe("n", null, 11);
        assertThat(cache.labelValue("n")).isNull();

        cache.forget("n", 10);
        assertThat(cache.labelValue("n"))
                .as("a deletion older than the state held")
                .isNull();
        cache.forget("n", 12);
        assertThat(cache.labelValue("n")).isSameAs(NodeCache.UNKNOWN_NODE);
    }

    @Test
    void aConsistentReadAppliesWhatTheWatchHasNotDeliveredAndTheWatchThenCannotUndoIt() {
        cache.observe("late", null, 5);
        cache.observe("gone", "3", 6);
        cache.observe("same", "4", 7);

        int changed = cache.apply(new LabelledNodes(
                20,
                Map.of(
                        "late", new LabelledNodes.Node("9", 15),
                        "new", new LabelledNodes.Node("1", 16),
                        "same", new LabelledNodes.Node("4", 7))));

        assertThat(changed)
                .as("late labelled, new added, gone unlabelled; same unchanged")
                .isEqualTo(3);
        assertThat(cache.labelValue("late")).isEqualTo("9");
        assertThat(cache.labelValue("new")).isEqualTo("1");
        assertThat(cache.labelValue("gone"))
                .as("labelled, but not among the read's labelled nodes")
                .isNull();
        assertThat(cache.labelValue("same")).isEqualTo("4");

        // The watch now delivers the events the read had overtaken: none goes back.
        cache.observe("late", "8", 12);
        cache.observe("gone", "3", 6);
        cache.observe("gone", null, 14);
        assertThat(cache.labelValue("late")).isEqualTo("9");
        assertThat(cache.labelValue("gone")).isNull();
        // A later change still goes through.
        cache.observe("late", null, 21);
        assertThat(cache.labelValue("late")).isNull();
    }

    @Test
    void aReadNoNewerThanWhatTheWatchDeliveredChangesNothing() {
        cache.observe("n", null, 30);

        int changed = cache.apply(new LabelledNodes(25, Map.of("n", new LabelledNodes.Node("1", 24))));

        assertThat(changed).isZero();
        assertThat(cache.labelValue("n")).isNull();
    }

    @Test
    void aReadThatTheWatchHadPassedDoesNotBringBackADeletedNode() {
        cache.observe("n", "1", 10);
        cache.forget("n", 12);

        cache.apply(new LabelledNodes(11, Map.of("n", new LabelledNodes.Node("1", 10))));

        assertThat(cache.labelValue("n")).isSameAs(NodeCache.UNKNOWN_NODE);
    }

    @Test
    void versionsThatAreNotNumbersAreAlwaysApplied() {
        cache.observe("n", "1", ResourceVersion.parse("10"));
        cache.observe("n", "2", ResourceVersion.parse("opaque"));
        assertThat(cache.labelValue("n")).isEqualTo("2");
        assertThat(ResourceVersion.parse("123456789012345678")).isEqualTo(123456789012345678L);
        assertThat(ResourceVersion.parse("1234567890123456789")).isEqualTo(ResourceVersion.UNKNOWN);
        assertThat(ResourceVersion.parse("")).isEqualTo(ResourceVersion.UNKNOWN);
        assertThat(ResourceVersion.parse(null)).isEqualTo(ResourceVersion.UNKNOWN);
    }
}
