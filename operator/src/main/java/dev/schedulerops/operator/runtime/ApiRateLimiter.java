package dev.schedulerops.operator.runtime;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The operator's client-side limit on requests to the API server: a token bucket like client-go's (QPS and burst),
 * applied to every request the Kubernetes client sends, watches and lists of informers included. A request over the
 * limit waits on the thread that sends it, as client-go's {@code Wait} does. fabric8 has no limit of its own, and an
 * operator upgrade that changes every profile at once would otherwise send as fast as the API server answers.
 */
public final class ApiRateLimiter implements Interceptor, MeterBinder {
    /** The interceptor's name in the HTTP client. */
    public static final String NAME = "schedulerops-rate-limit";

    private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

    private final double qps;
    private final int burst;
    private final LongSupplier clock;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();
    /** Tokens in the bucket at {@link #updated}; negative when requests have reserved tokens not yet refilled. */
    private double tokens;

    private long updated;

    public ApiRateLimiter(double qps, int burst) {
        this(qps, burst, System::nanoTime);
    }

    ApiRateLimiter(double qps, int burst, LongSupplier nanoClock) {
        if (!(qps > 0) || burst < 1) {
            throw new IllegalArgumentException("qps must be positive and burst at least 1");
        }
        this.qps = qps;
        this.burst = burst;
        this.clock = nanoClock;
        this.tokens = burst;
        this.updated = nanoClock.getAsLong();
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        long wait = reserve();
        if (wait > 0) {
            waitedNanos.addAndGet(wait);
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                // The request is being cancelled (shutdown): let it go and keep the interrupt for the caller.
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Takes one token and returns how long the request must wait for it: 0 while the bucket has tokens, otherwise the
     * time until the tokens already promised to earlier waiters and this one have been refilled.
     */
    synchronized long reserve() {
        requests.incrementAndGet();
        long now = clock.getAsLong();
        tokens = Math.min(burst, tokens + (now - updated) * qps / NANOS_PER_SECOND);
        updated = now;
        tokens -= 1;
        return tokens >= 0 ? 0 : (long) Math.ceil(-tokens / qps * NANOS_PER_SECOND);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("schedulerops.api.requests", requests, AtomicLong::doubleValue)
                .description("Requests the operator sent the API server (each passes its client-side rate limit)")
                .register(registry);
        FunctionCounter.builder("schedulerops.api.rate.limit.wait", waitedNanos, w -> w.doubleValue() / 1e9)
                .description("Time requests waited for the client-side rate limit (SCHEDULEROPS_API_QPS and _BURST)")
                .baseUnit("seconds")
                .register(registry);
    }

    @Override
    public String toString() {
        return qps + " requests/s, burst " + burst;
    }
}
