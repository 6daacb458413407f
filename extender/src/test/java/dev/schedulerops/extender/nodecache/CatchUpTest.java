package dev.schedulerops.extender.nodecache;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CatchUpTest {
    private final StaticNodeCache cache = new StaticNodeCache();
    private final List<CompletableFuture<LabelledNodes>> started = new ArrayList<>();
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private CatchUp catchUp(Duration spacing) {
        return new CatchUp(
                () -> {
                    CompletableFuture<LabelledNodes> read = new CompletableFuture<>();
                    synchronized (started) {
                        started.add(read);
                    }
                    return read;
                },
                cache,
                spacing,
                timer,
                now::get);
    }

    private int reads() {
        synchronized (started) {
            return started.size();
        }
    }

    private CompletableFuture<LabelledNodes> read(int i) {
        synchronized (started) {
            return started.get(i);
        }
    }

    private void awaitReads(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reads() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(reads()).isEqualTo(n);
    }

    private static LabelledNodes labelled(long version, String node, String value) {
        return new LabelledNodes(version, Map.of(node, new LabelledNodes.Node(value, version)));
    }

    @Test
    void callersWhoAskBeforeAReadStartsShareItAndSeeItsResultInTheCache() throws Exception {
        CatchUp catchUp = catchUp(Duration.ZERO);
        cache.observe("node-1", null, 5);

        CompletableFuture<Boolean> first = catchUp.after(now.get());
        CompletableFuture<Boolean> second = catchUp.after(now.get());
        awaitReads(1);
        assertThat(first).isNotDone();
        read(0).complete(labelled(10, "node-1", "7"));

        assertThat(first.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(second.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(cache.labelValue("node-1")).isEqualTo("7");
        assertThat(catchUp.reads()).isEqualTo(1);
        assertThat(catchUp.corrections()).isEqualTo(1);
    }

    @Test
    void aCallerWhoAsksAfterTheReadInFlightStartedWaitsForTheNextOneWhichLaterCallersShare() throws Exception {
        CatchUp catchUp = catchUp(Duration.ZERO);
        CompletableFuture<Boolean> early = catchUp.after(now.get());
        awaitReads(1);

        now.addAndGet(1_000);
        CompletableFuture<Boolean> late = catchUp.after(now.get());
        CompletableFuture<Boolean> later = catchUp.after(now.get());
        assertThat(late).isSameAs(later);
        Thread.sleep(50);
        assertThat(reads()).as("one read at a time").isEqualTo(1);

        read(0).complete(labelled(10, "node-1", "1"));
        assertThat(early.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(late).as("the read it waits for had started before it asked").isNotDone();
        awaitReads(2);
        read(1).complete(labelled(11, "node-1", "2"));
        assertThat(late.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(cache.labelValue("node-1")).isEqualTo("2");
    }

    @Test
    void readsStartAtLeastTheSpacingApart() throws Exception {
        CatchUp catchUp = catchUp(Duration.ofMillis(300));
        catchUp.after(now.get());
        awaitReads(1);
        read(0).complete(labelled(10, "node-1", "1"));

        long asked = System.nanoTime();
        now.addAndGet(1_000); // the fake clock moved 1 µs: the real timer waits out the rest of the spacing
        CompletableFuture<Boolean> next = catchUp.after(now.get());
        Thread.sleep(100);
        assertThat(reads()).as("not before the spacing").isEqualTo(1);
        awaitReads(2);
        assertThat(System.nanoTime() - asked).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
        read(1).complete(labelled(11, "node-1", "2"));
        assertThat(next.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aFailedReadTellsItsCallersFalseAndLeavesTheCacheAsItWas() throws Exception {
        CatchUp catchUp = catchUp(Duration.ZERO);
        cache.observe("node-1", "3", 5);
        CompletableFuture<Boolean> waiting = catchUp.after(now.get());
        awaitReads(1);

        read(0).completeExceptionally(new java.io.IOException("HTTP 403"));

        assertThat(waiting.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(cache.labelValue("node-1")).isEqualTo("3");
        assertThat(catchUp.failures()).isEqualTo(1);
        // The next caller gets a new read.
        now.addAndGet(1_000);
        CompletableFuture<Boolean> again = catchUp.after(now.get());
        awaitReads(2);
        read(1).complete(labelled(10, "node-1", "4"));
        assertThat(again.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(cache.labelValue("node-1")).isEqualTo("4");
    }
}
