package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.httpguard.ConnectionGuard;
import dev.schedulerops.httpguard.GuardLimits;
import dev.schedulerops.httpguard.HealthPortFlood;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HttpEndpointsTest {
    final HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> get(HttpEndpoints endpoints, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void probesFollowTheirChecksAndMetricsAreServed() throws Exception {
        AtomicBoolean live = new AtomicBoolean(true);
        AtomicBoolean ready = new AtomicBoolean(false);
        try (HttpEndpoints endpoints =
                HttpEndpoints.start("127.0.0.1", 0, live::get, ready::get, () -> "some_metric 1\n")) {
            assertThat(get(endpoints, "/healthz").statusCode()).isEqualTo(200);
            assertThat(get(endpoints, "/readyz").statusCode()).isEqualTo(503);

            ready.set(true);
            live.set(false);
            assertThat(get(endpoints, "/readyz").statusCode()).isEqualTo(200);
            assertThat(get(endpoints, "/healthz").statusCode()).isEqualTo(503);

            HttpResponse<String> metrics = get(endpoints, "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).isEqualTo("some_metric 1\n");
            assertThat(metrics.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        }
    }

    @Test
    void aFailingCheckIsUnhealthyNotAnError() throws Exception {
        try (HttpEndpoints endpoints = HttpEndpoints.start(
                "127.0.0.1",
                0,
                () -> {
                    throw new IllegalStateException("boom");
                },
                () -> true,
                () -> "")) {
            assertThat(get(endpoints, "/healthz").statusCode()).isEqualTo(503);
        }
    }

    /**
     * The second review's finding: 64 trickling connections took every slot and the kubelet's liveness probe timed
     * out. Now the limit plus 50 silent and trickling connections, from one address and then spread over 30, held past
     * the guard's lifetime, delay no probe beyond a second, and the flood's connections are closed.
     */
    @Test
    void probesAreAnsweredWithinASecondThroughAFloodOfSilentAndTricklingConnections() throws Exception {
        try (HttpEndpoints endpoints = HttpEndpoints.start("127.0.0.1", 0, () -> true, () -> true, () -> "")) {
            int connections = GuardLimits.HEALTH_PORT.total() + 50;
            InetSocketAddress target = new InetSocketAddress("127.0.0.1", endpoints.port());
            HealthPortFlood oneSource = new HealthPortFlood(
                            target, InetAddress.getByName("127.0.0.2"), connections, Duration.ofMillis(100))
                    .start();
            probeFor(endpoints, Duration.ofSeconds(7));
            HealthPortFlood.Stats one = oneSource.stop();
            assertThat(one.mostOpen())
                    .as("the flood held at times more than a source's share (%s)", one)
                    .isGreaterThan(GuardLimits.HEALTH_PORT.perSource());
            assertThat(one.closedByServer()).as("closed by the server: %s", one).isGreaterThan(connections);
            assertThat(endpoints.guard().closed(ConnectionGuard.Reason.PER_SOURCE))
                    .isGreaterThan(0);

            List<HealthPortFlood> manySources = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                manySources.add(new HealthPortFlood(
                                target,
                                InetAddress.getByName("127.0.0." + (10 + i)),
                                (connections + 29) / 30,
                                Duration.ofMillis(100))
                        .start());
            }
            probeFor(endpoints, Duration.ofSeconds(7));
            for (HealthPortFlood flood : manySources) {
                flood.stop();
            }
            assertThat(endpoints.guard().closed(ConnectionGuard.Reason.TOTAL))
                    .as("the port was full: the sources that held the most lost their oldest")
                    .isGreaterThan(0);
            assertLifetimeEndsAFewQuietConnections(target, endpoints.guard());
        }
    }

    /**
     * Two silent and two trickling connections, within every limit, never reopened: each is closed once it is as old
     * as the guard's lifetime (the extender's own header deadline may close a trickling one at the same moment).
     */
    private static void assertLifetimeEndsAFewQuietConnections(InetSocketAddress target, ConnectionGuard guard)
            throws Exception {
        long before = guard.closed(ConnectionGuard.Reason.LIFETIME);
        HealthPortFlood few =
                new HealthPortFlood(target, InetAddress.getByName("127.0.0.99"), 4, Duration.ofMinutes(10)).start();
        Duration lifetime = GuardLimits.HEALTH_PORT.lifetime();
        Thread.sleep(lifetime.minusSeconds(1).toMillis());
        assertThat(few.stats().closedByServer())
                .as("closed before the lifetime")
                .isZero();
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (few.stats().closedByServer() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        HealthPortFlood.Stats stats = few.stop();
        assertThat(stats.opened()).isEqualTo(4);
        assertThat(stats.closedByServer())
                .as("closed by the lifetime's end: %s", stats)
                .isEqualTo(4);
        assertThat(guard.closed(ConnectionGuard.Reason.LIFETIME) - before)
                .as("closed by the guard for their age")
                .isGreaterThanOrEqualTo(2);
    }

    /**
     * /healthz and /readyz every 200 ms for {@code period} from 127.0.0.1 (the kubelet's place), each on a connection
     * of its own as the kubelet's: 200 within 1 s.
     */
    private static void probeFor(HttpEndpoints endpoints, Duration period) throws Exception {
        probe(endpoints.port(), "/healthz"); // the first connection of this JVM loads classes: not timed
        long end = System.nanoTime() + period.toNanos();
        int probes = 0;
        while (System.nanoTime() < end) {
            for (String path : List.of("/healthz", "/readyz")) {
                long start = System.nanoTime();
                String statusLine = probe(endpoints.port(), path);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(statusLine).as("%s, probe %d", path, probes).isEqualTo("HTTP/1.1 200 OK");
                assertThat(took).as("%s, probe %d", path, probes).isLessThan(Duration.ofSeconds(1));
                probes++;
            }
            Thread.sleep(200);
        }
    }

    private static String probe(int port, String path) throws java.io.IOException {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(1000);
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII)
                    .lines()
                    .findFirst()
                    .orElse("");
        }
    }

    @Test
    void oversizedHeadersAndOtherMethodsAreRefused() throws Exception {
        try (HttpEndpoints endpoints = HttpEndpoints.start("127.0.0.1", 0, () -> true, () -> true, () -> "")) {
            HttpResponse<String> big = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + "/healthz"))
                            .header("X-Big", "x".repeat(8192))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(big.statusCode()).isEqualTo(431);
            HttpResponse<String> post = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + "/metrics"))
                            .POST(HttpRequest.BodyPublishers.ofString("x"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(get(endpoints, "/other").statusCode()).isEqualTo(404);
        }
    }
}
