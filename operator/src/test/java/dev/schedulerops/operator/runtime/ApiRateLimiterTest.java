package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ApiRateLimiterTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    /** A clock the test moves by hand. */
    private static final class Clock {
        long now = 1_000 * SECOND;
    }

    @Test
    void aBurstGoesAtOnceThenRequestsAreSpacedByTheRate() {
        Clock clock = new Clock();
        ApiRateLimiter limiter = new ApiRateLimiter(10, 3, () -> clock.now);

        assertThat(limiter.reserve()).isZero();
        assertThat(limiter.reserve()).isZero();
        assertThat(limiter.reserve()).isZero();
        // The bucket is empty: the 4th request waits one token's time (0.1 s), the 5th two, as client-go's Wait would.
        assertThat(limiter.reserve()).isEqualTo(SECOND / 10);
        assertThat(limiter.reserve()).isEqualTo(2 * SECOND / 10);
    }

    @Test
    void tokensRefillWithTimeButNeverAboveTheBurst() {
        Clock clock = new Clock();
        ApiRateLimiter limiter = new ApiRateLimiter(10, 3, () -> clock.now);
        for (int i = 0; i < 3; i++) {
            limiter.reserve();
        }

        clock.now += SECOND / 5; // two tokens back
        assertThat(limiter.reserve()).isZero();
        assertThat(limiter.reserve()).isZero();
        assertThat(limiter.reserve()).isEqualTo(SECOND / 10);

        clock.now += 3600 * SECOND; // an idle hour refills only the burst
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.reserve()).isZero();
        }
        assertThat(limiter.reserve()).isPositive();
    }

    @Test
    void aClientWithTheLimiterSendsNoFasterThanItAllows() throws Exception {
        AtomicInteger served = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/api/v1/namespaces/default/configmaps/c", exchange -> {
            served.incrementAndGet();
            byte[] body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        ApiRateLimiter limiter = new ApiRateLimiter(2, 1);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        limiter.bindTo(registry);
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        try (KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(new io.fabric8.kubernetes.client.ConfigBuilder()
                        .withMasterUrl(url)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor(ApiRateLimiter.NAME, limiter))
                .build()) {
            long start = System.nanoTime();
            for (int i = 0; i < 4; i++) {
                assertThat(client.configMaps()
                                .inNamespace("default")
                                .withName("c")
                                .get())
                        .isNotNull();
            }
            double seconds = (System.nanoTime() - start) / 1e9;

            // One at once, then three more at 2/s: 1.5 s; without the limiter 4 loopback GETs take milliseconds.
            assertThat(seconds).isGreaterThanOrEqualTo(1.4);
            assertThat(served.get()).isEqualTo(4);
            assertThat(registry.scrape()).contains("schedulerops_api_requests_total 4.0");
            // How long they waited depends on how long each GET took on a busy machine; that they waited does not.
            assertThat(registry.get("schedulerops.api.rate.limit.wait")
                            .functionCounter()
                            .count())
                    .isGreaterThan(0.2);
        } finally {
            server.stop(0);
        }
    }
}
