package dev.schedulerops.extender.http;

import dev.schedulerops.httpguard.ConnectionGuard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;

/**
 * The extender's Prometheus metrics: {@code schedulerops_extender_requests_total{verb,code}},
 * {@code schedulerops_extender_request_seconds} (histogram per verb), {@code
 * schedulerops_extender_nodes_in_total{verb}} and {@code schedulerops_extender_nodes_out_total{verb}}, plus JVM
 * basics. With TLS: {@code schedulerops_extender_tls_reloads_total{result="success"|"failure"}} and {@code
 * schedulerops_extender_tls_certificate_expiry_timestamp_seconds} (the serving certificate's notAfter).
 */
public final class ExtenderMetrics {
    private static final Duration[] BUCKETS = {
        Duration.ofNanos(250_000),
        Duration.ofNanos(500_000),
        Duration.ofMillis(1),
        Duration.ofMillis(2),
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
        // Above kube-scheduler's default httpTimeout: a profile may set a longer one, and SchedulerOpsExtenderSlow
        // compares the p99 with half of it.
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
    };

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<Route, Timer> latency = new EnumMap<>(Route.class);
    private final Map<Route, Counter> nodesIn = new EnumMap<>(Route.class);
    private final Map<Route, Counter> nodesOut = new EnumMap<>(Route.class);
    private volatile Counter tlsReloadSuccess;
    private volatile Counter tlsReloadFailure;
    /** HTTP statuses are below this; the request counters are kept per route (plus unknown paths) and status. */
    private static final int STATUSES = 600;

    private static final int UNKNOWN_ROUTE = Route.values().length;

    /** The request counter of (route, status) at {@code slot(route, status)}, registered on first use. */
    private final AtomicReferenceArray<Counter> requests = new AtomicReferenceArray<>((UNKNOWN_ROUTE + 1) * STATUSES);

    /** The catch-up counters by outcome, registered on first use (three fixed values). */
    private final Map<String, Counter> catchUps = new ConcurrentHashMap<>();

    /** The bind counters by outcome, registered on first use (four fixed values). */
    private final Map<String, Counter> binds = new ConcurrentHashMap<>();
    /** What the registry's function counters read, held here because the registry holds them weakly. */
    private final List<Object> keptAlive = new java.util.concurrent.CopyOnWriteArrayList<>();

    public ExtenderMetrics() {
        for (Route route : Route.values()) {
            if (route.extenderVerb == null) {
                continue;
            }
            latency.put(
                    route,
                    Timer.builder("schedulerops.extender.request")
                            .description("Time to answer one extender call, from request to last byte written")
                            .tag("verb", route.verb)
                            .serviceLevelObjectives(BUCKETS)
                            .register(registry));
            nodesIn.put(
                    route,
                    Counter.builder("schedulerops.extender.nodes.in")
                            .description("Nodes received in extender calls")
                            .tag("verb", route.verb)
                            .register(registry));
            nodesOut.put(
                    route,
                    Counter.builder("schedulerops.extender.nodes.out")
                            .description("Nodes kept (filter, preempt), scored (prioritize) or bound (bind)")
                            .tag("verb", route.verb)
                            .register(registry));
        }
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /** Records one request; {@code route} is null for unknown paths. */
    void request(Route route, int status, long nanos) {
        requestCounter(route, status).increment();
        if (route != null && route.extenderVerb != null) {
            latency.get(route).record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Without allocating once the counter exists. */
    private Counter requestCounter(Route route, int status) {
        if (status < 0 || status >= STATUSES) {
            return registerRequestCounter(route, status);
        }
        int slot = (route == null ? UNKNOWN_ROUTE : route.ordinal()) * STATUSES + status;
        Counter counter = requests.get(slot);
        if (counter == null) {
            // Threads racing here register the same meter: the registry keeps one per name and tags.
            counter = registerRequestCounter(route, status);
            requests.set(slot, counter);
        }
        return counter;
    }

    private Counter registerRequestCounter(Route route, int status) {
        return Counter.builder("schedulerops.extender.requests")
                .description("HTTP requests by verb and status code")
                .tag("verb", route == null ? "other" : route.verb)
                .tag("code", Integer.toString(status))
                .register(registry);
    }

    /**
     * Registers the TLS metrics: the reload counters (both results, from 0) and the serving certificate's expiry as a
     * gauge read from {@code expiryEpochSeconds}.
     */
    void tls(DoubleSupplier expiryEpochSeconds) {
        tlsReloadSuccess = tlsReloads("success");
        tlsReloadFailure = tlsReloads("failure");
        Gauge.builder("schedulerops.extender.tls.certificate.expiry.timestamp", expiryEpochSeconds::getAsDouble)
                .description("notAfter of the verb port's serving certificate, in seconds since the epoch")
                .baseUnit("seconds")
                .strongReference(true)
                .register(registry);
    }

    /**
     * A listener for the verb port's TLS handshakes that counts the failed ones: a missing, untrusted or expired client
     * certificate, a protocol error, or a connection closed or cut off (header timeout) during the handshake. These
     * never reach the handler, so no request counter sees them.
     */
    SslHandshakeListener tlsHandshakeFailures() {
        Counter failures = Counter.builder("schedulerops.extender.tls.handshake.failures")
                .description("TLS handshakes on the verb port that failed (no, untrusted or expired client"
                        + " certificate; protocol error; closed or timed out during the handshake)")
                .register(registry);
        return new SslHandshakeListener() {
            @Override
            public void handshakeFailed(Event event, Throwable failure) {
                failures.increment();
            }
        };
    }

    /** Counts one bind by its outcome ({@code bound}, {@code refused}, {@code pod_unreadable}, {@code failed}). */
    public void bindOutcome(String outcome) {
        binds.computeIfAbsent(outcome, o -> Counter.builder("schedulerops.extender.binds")
                        .description("Binds by outcome: bound, refused (not a pod of this scheduler with that UID),"
                                + " pod_unreadable (the API server did not answer the read), failed (the Binding was"
                                + " refused)")
                        .tag("outcome", o)
                        .register(registry))
                .increment();
    }

    private Counter tlsReloads(String result) {
        return Counter.builder("schedulerops.extender.tls.reloads")
                .description("Attempts to load changed TLS files, by result (a failure keeps the old material)")
                .tag("result", result)
                .register(registry);
    }

    /**
     * Registers the gauges of the server's limits: the bytes request bodies hold now, and the connections closed
     * because a request's headers or body arrived too slowly.
     */
    void limits(BodyBudget budget, ReadDeadlines deadlines) {
        Gauge.builder("schedulerops.extender.body.bytes.held", budget::reserved)
                .description("Memory the request bodies being read or answered hold now (at most the body budget)")
                .baseUnit("bytes")
                .strongReference(true)
                .register(registry);
        Gauge.builder("schedulerops.extender.body.budget", budget::capacity)
                .description("The most memory request bodies may hold together")
                .baseUnit("bytes")
                .strongReference(true)
                .register(registry);
        FunctionCounter.builder(
                        "schedulerops.extender.slow.connections.closed", deadlines, ReadDeadlines::headerTimeouts)
                .description("Connections closed because a request arrived too slowly, by the part that was late")
                .tag("part", "headers")
                .register(registry);
        FunctionCounter.builder("schedulerops.extender.slow.connections.closed", deadlines, ReadDeadlines::bodyTimeouts)
                .description("Connections closed because a request arrived too slowly, by the part that was late")
                .tag("part", "body")
                .register(registry);
    }

    /** The health port's connections, and those its guard closed, by why. */
    void healthPortGuard(ConnectionGuard guard) {
        Gauge.builder("schedulerops.extender.health.connections", guard::open)
                .description("Connections the health port holds now")
                .strongReference(true)
                .register(registry);
        for (ConnectionGuard.Reason reason : ConnectionGuard.Reason.values()) {
            FunctionCounter.builder("schedulerops.extender.health.connections.closed", guard, g -> g.closed(reason))
                    .description("Health-port connections the guard closed: per_source (a source past its share),"
                            + " total (the port full), lifetime (open too long)")
                    .tag("reason", reason.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry);
        }
    }

    /**
     * Registers the node cache's gauges: its size, whether its watch is open and when it last heard from the API
     * server (seconds since the epoch).
     */
    public void nodeCache(IntSupplier nodes, BooleanSupplier watching, DoubleSupplier lastEventEpochSeconds) {
        Gauge.builder("schedulerops.extender.node.cache.nodes", nodes::getAsInt)
                .description("Nodes in the extender's node cache")
                .strongReference(true)
                .register(registry);
        Gauge.builder("schedulerops.extender.node.cache.watching", () -> watching.getAsBoolean() ? 1 : 0)
                .description("1 while the node cache's watch on the API server is open, 0 while it relists or retries")
                .strongReference(true)
                .register(registry);
        Gauge.builder("schedulerops.extender.node.cache.last.event.timestamp", lastEventEpochSeconds::getAsDouble)
                .description("When the node cache last heard from the API server (list, watch event or bookmark), in"
                        + " seconds since the epoch; 0 before the first list")
                .baseUnit("seconds")
                .strongReference(true)
                .register(registry);
    }

    /**
     * Registers the counters of the node cache's consistent reads: started, failed, and node states they found before
     * the watch delivered them.
     */
    public void consistentReads(LongSupplier reads, LongSupplier failures, LongSupplier corrections) {
        // A FunctionCounter holds its object weakly: these suppliers are often made for the call (method references).
        keptAlive.addAll(List.of(reads, failures, corrections));
        FunctionCounter.builder("schedulerops.extender.node.cache.consistent.reads", reads, LongSupplier::getAsLong)
                .description("Consistent reads of the labelled nodes: before a filter rejects every node, and every"
                        + " verify period")
                .register(registry);
        FunctionCounter.builder(
                        "schedulerops.extender.node.cache.consistent.read.failures", failures, LongSupplier::getAsLong)
                .description("Consistent reads of the labelled nodes that failed (answered from the watch's cache)")
                .register(registry);
        FunctionCounter.builder(
                        "schedulerops.extender.node.cache.consistent.read.corrections",
                        corrections,
                        LongSupplier::getAsLong)
                .description("Node states a consistent read found before the watch delivered them")
                .register(registry);
    }

    /**
     * Counts one filter call that would have rejected every node and was answered after the node cache caught up:
     * {@code kept} (it then kept a node), {@code rejected} (it still rejected every node), {@code unavailable} (the
     * read failed or took too long: answered from the cache as it was).
     */
    void catchUp(String outcome) {
        catchUps.computeIfAbsent(outcome, o -> Counter.builder("schedulerops.extender.catch.ups")
                        .description("Filter calls that would have rejected every node, answered after a consistent"
                                + " read: kept (a node was kept then), rejected, unavailable (no read in time)")
                        .tag("outcome", o)
                        .register(registry))
                .increment();
    }

    void tlsReloaded(boolean success) {
        (success ? tlsReloadSuccess : tlsReloadFailure).increment();
    }

    void nodes(Route route, int in, int out) {
        nodesIn.get(route).increment(in);
        nodesOut.get(route).increment(out);
    }

    String scrape() {
        return registry.scrape();
    }
}
