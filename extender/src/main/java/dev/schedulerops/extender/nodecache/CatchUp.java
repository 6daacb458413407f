package dev.schedulerops.extender.nodecache;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consistent reads of the labelled nodes, one at a time, shared by everyone who needs one. A caller asks for a read
 * that started no earlier than a moment of its own (when its request arrived) and waits for it: the read in flight if
 * it started late enough, otherwise the next one, which all callers that arrive meanwhile share. So however many
 * requests need a read at once, the API server gets at most one at a time, and reads start at least {@link #spacing}
 * apart. A read's result is applied to the cache before its waiters are told.
 *
 * <p>A read that fails is logged (once per run of failures) and counted; its waiters are told all the same and answer
 * from the cache as it is: a read is an extra check, and the watch still delivers.
 */
final class CatchUp {
    private static final Logger LOG = LoggerFactory.getLogger(CatchUp.class);

    private final Supplier<CompletableFuture<LabelledNodes>> source;
    private final StaticNodeCache cache;
    private final Duration spacing;
    private final ScheduledExecutorService timer;
    private final LongSupplier clock;

    private final LongAdder reads = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder corrections = new LongAdder();

    /** The read in flight, or null; guarded by this. */
    private Read inFlight;
    /** Completed when the next read (not started yet) has finished, or null when none is wanted; guarded by this. */
    private CompletableFuture<Boolean> next;
    /** When the last read started, in {@link #clock} nanoseconds; guarded by this. */
    private long lastStart;

    /** Whether the last read failed: failures are logged once a run. Reads finish one after another. */
    private volatile boolean failing;

    /**
     * @param source starts one consistent read
     * @param spacing the least time between the starts of two reads
     * @param timer where a read that must wait for {@code spacing} is started
     * @param clock {@link System#nanoTime} but in tests
     */
    CatchUp(
            Supplier<CompletableFuture<LabelledNodes>> source,
            StaticNodeCache cache,
            Duration spacing,
            ScheduledExecutorService timer,
            LongSupplier clock) {
        this.source = source;
        this.cache = cache;
        this.spacing = spacing;
        this.timer = timer;
        this.clock = clock;
        this.lastStart = clock.getAsLong() - spacing.toNanos();
    }

    /**
     * Completes (never exceptionally) once a read that started at or after {@code askedAtNanos} (a {@link #clock}
     * time) has been applied to the cache (true), or has failed (false).
     */
    synchronized CompletableFuture<Boolean> after(long askedAtNanos) {
        if (inFlight != null && inFlight.started - askedAtNanos >= 0) {
            return inFlight.finished;
        }
        if (next == null) {
            next = new CompletableFuture<>();
            if (inFlight == null) {
                scheduleNext();
            }
        }
        return next;
    }

    /** Starts the next read now or once {@link #spacing} has passed since the last one started; holds the lock. */
    private void scheduleNext() {
        long wait = lastStart + spacing.toNanos() - clock.getAsLong();
        if (wait <= 0) {
            timer.execute(this::startNext);
        } else {
            timer.schedule(this::startNext, wait, TimeUnit.NANOSECONDS);
        }
    }

    private void startNext() {
        Read read;
        synchronized (this) {
            if (inFlight != null || next == null) {
                return;
            }
            lastStart = clock.getAsLong();
            read = new Read(lastStart, next);
            inFlight = read;
            next = null;
        }
        reads.increment();
        CompletableFuture<LabelledNodes> started;
        try {
            started = source.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        started.whenComplete((nodes, error) -> finish(read, nodes, error));
    }

    private void finish(Read read, LabelledNodes nodes, Throwable error) {
        boolean applied = false;
        try {
            if (error == null) {
                int changed = cache.apply(nodes);
                corrections.add(changed);
                if (changed > 0) {
                    LOG.info(
                            "a consistent read of the labelled nodes (resource version {}) changed {} node(s) the"
                                    + " watch had not delivered yet",
                            nodes.version(),
                            changed);
                }
                applied = true;
                if (failing) {
                    LOG.info("consistent reads of the labelled nodes succeed again");
                    failing = false;
                }
            } else {
                failures.increment();
                if (!failing) {
                    LOG.warn(
                            "a consistent read of the labelled nodes failed; answering from the watch's cache as it is"
                                    + " (logged once until a read succeeds): {}",
                            error.toString());
                    failing = true;
                }
            }
        } catch (RuntimeException e) {
            failures.increment();
            LOG.warn("applying a consistent read of the labelled nodes failed", e);
        } finally {
            synchronized (this) {
                inFlight = null;
                if (next != null) {
                    scheduleNext();
                }
            }
            read.finished.complete(applied);
        }
    }

    /** Reads started. */
    long reads() {
        return reads.sum();
    }

    /** Reads that failed (the API server refused or did not answer, or the answer could not be read). */
    long failures() {
        return failures.sum();
    }

    /** Node states that a read applied because the watch had not delivered them yet. */
    long corrections() {
        return corrections.sum();
    }

    private record Read(long started, CompletableFuture<Boolean> finished) {}
}
