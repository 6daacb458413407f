package dev.schedulerops.operator.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * JOSDK's metrics (kept as they were, {@code operator_sdk_*}) plus the operator's own, named as Prometheus would
 * have them: {@code schedulerops_reconcile_duration_seconds{operation}} (a histogram of each reconcile and cleanup,
 * successful or not), {@code schedulerops_reconcile_errors_total{operation}}, {@code
 * schedulerops_reconcile_queue_depth} (reconciles handed to the executor and not started: every thread is busy) and
 * {@code schedulerops_reconciles_running}.
 */
final class ReconcileMetrics implements Metrics {
    private static final Duration[] BUCKETS = {
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
    };

    static final String RECONCILE = "reconcile";
    static final String CLEANUP = "cleanup";

    private final Metrics delegate;
    private final Map<String, Timer> durations;
    private final Map<String, Counter> errors;
    private final AtomicLong submitted = new AtomicLong();
    /** Left the queue: started, or skipped (JOSDK found the resource gone from its cache and ran nothing). */
    private final AtomicLong dequeued = new AtomicLong();

    private final AtomicLong running = new AtomicLong();
    /**
     * JOSDK calls "finished" in a finally block, also after a skip for which it never called "started"; counting the
     * two calls blindly let a skip hide a reconcile that still runs. Both calls come from the one executor thread.
     */
    private final ThreadLocal<Boolean> startedHere = ThreadLocal.withInitial(() -> false);

    ReconcileMetrics(Metrics delegate, MeterRegistry registry) {
        this.delegate = delegate;
        this.durations = Map.of(RECONCILE, timer(registry, RECONCILE), CLEANUP, timer(registry, CLEANUP));
        this.errors = Map.of(RECONCILE, errors(registry, RECONCILE), CLEANUP, errors(registry, CLEANUP));
        Gauge.builder(
                        "schedulerops.reconcile.queue.depth",
                        this,
                        m -> Math.max(0, m.submitted.get() - m.dequeued.get()))
                .description("Reconciles waiting for a reconcile thread (SCHEDULEROPS_RECONCILE_THREADS are all busy)")
                // Micrometer holds a gauge's object weakly; JOSDK keeps no reference to this one that it would see.
                .strongReference(true)
                .register(registry);
        Gauge.builder("schedulerops.reconciles.running", this, ReconcileMetrics::running)
                .description("Reconciles running now")
                .strongReference(true)
                .register(registry);
    }

    private static Timer timer(MeterRegistry registry, String operation) {
        return Timer.builder("schedulerops.reconcile.duration")
                .description("Time one reconcile (or cleanup of a deleted profile) took, failed ones included")
                .tag("operation", operation)
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }

    private static Counter errors(MeterRegistry registry, String operation) {
        return Counter.builder("schedulerops.reconcile.errors")
                .description("Reconciles that ended in an exception (JOSDK retries them with backoff): a refused"
                        + " apply, an unreachable API server")
                .tag("operation", operation)
                .register(registry);
    }

    /** Reconciles started and not finished: one stuck past JOSDK's stop may still write. */
    long running() {
        return running.get();
    }

    /** Waits up to {@code limit} for no reconcile to be running; returns how many still run. */
    long awaitNoneRunning(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (running() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return running();
    }

    @Override
    public void controllerRegistered(Controller<? extends HasMetadata> controller) {
        delegate.controllerRegistered(controller);
    }

    @Override
    public void receivedEvent(Event event, Map<String, Object> metadata) {
        delegate.receivedEvent(event, metadata);
    }

    @Override
    public void reconcileCustomResource(HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
        submitted.incrementAndGet();
        delegate.reconcileCustomResource(resource, retryInfo, metadata);
    }

    @Override
    public void failedReconciliation(HasMetadata resource, Exception exception, Map<String, Object> metadata) {
        delegate.failedReconciliation(resource, exception, metadata);
    }

    @Override
    public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
        startedHere.set(true);
        running.incrementAndGet();
        dequeued.incrementAndGet();
        delegate.reconciliationExecutionStarted(resource, metadata);
    }

    @Override
    public void reconciliationExecutionFinished(HasMetadata resource, Map<String, Object> metadata) {
        if (startedHere.get()) {
            startedHere.remove();
            running.decrementAndGet();
        } else {
            dequeued.incrementAndGet();
        }
        delegate.reconciliationExecutionFinished(resource, metadata);
    }

    @Override
    public void cleanupDoneFor(ResourceID resourceID, Map<String, Object> metadata) {
        delegate.cleanupDoneFor(resourceID, metadata);
    }

    @Override
    public void finishedReconciliation(HasMetadata resource, Map<String, Object> metadata) {
        delegate.finishedReconciliation(resource, metadata);
    }

    @Override
    public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
        String operation = CLEANUP.equals(execution.name()) ? CLEANUP : RECONCILE;
        long start = System.nanoTime();
        try {
            return delegate.timeControllerExecution(execution);
        } catch (Exception | Error e) {
            errors.get(operation).increment();
            throw e;
        } finally {
            durations.get(operation).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public <T extends Map<?, ?>> T monitorSizeOf(T map, String name) {
        return delegate.monitorSizeOf(map, name);
    }
}
