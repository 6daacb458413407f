package dev.schedulerops.extender.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The extender's Prometheus metrics: {@code schedulerops_extender_requests_total{verb,code}},
 * {@code schedulerops_extender_request_seconds} (histogram per verb), {@code
 * schedulerops_extender_nodes_in_total{verb}} and {@code schedulerops_extender_nodes_out_total{verb}}, plus JVM
 * basics.
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
    };

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<Route, Timer> latency = new EnumMap<>(Route.class);
    private final Map<Route, Counter> nodesIn = new EnumMap<>(Route.class);
    private final Map<Route, Counter> nodesOut = new EnumMap<>(Route.class);
    private final Map<Integer, Counter> requests = new ConcurrentHashMap<>();

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
        int key = (route == null ? Route.values().length : route.ordinal()) * 1000 + status;
        requests.computeIfAbsent(key, k -> Counter.builder("schedulerops.extender.requests")
                        .description("HTTP requests by verb and status code")
                        .tag("verb", route == null ? "other" : route.verb)
                        .tag("code", Integer.toString(status))
                        .register(registry))
                .increment();
        if (route != null && route.extenderVerb != null) {
            latency.get(route).record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    void nodes(Route route, int in, int out) {
        nodesIn.get(route).increment(in);
        nodesOut.get(route).increment(out);
    }

    String scrape() {
        return registry.scrape();
    }
}
