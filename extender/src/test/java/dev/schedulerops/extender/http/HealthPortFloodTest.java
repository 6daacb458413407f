package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.httpguard.ConnectionGuard;
import dev.schedulerops.httpguard.GuardLimits;
import dev.schedulerops.httpguard.HealthPortFlood;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The second review's finding: 32 silent connections to the health port, reopened, made the extender unready (one
 * missed readiness probe is enough). Now the limit plus 50 silent and trickling connections, from one address and then
 * spread over 30 addresses, held past the guard's lifetime, delay no probe beyond a second; the flood's connections are
 * closed, and the metrics say why.
 */
class HealthPortFloodTest {

    @Test
    void probesAreAnsweredWithinASecondThroughAFloodOfSilentAndTricklingConnections() throws Exception {
        ExtenderMetrics metrics = new ExtenderMetrics();
        try (ExtenderServer server = TestServers.plainHttp(
                new ExtenderVerbs("k", new StaticNodeCache(), args -> BindResult.bound()),
                HttpLimits.NAMES_ONLY_MAX_BODY_BYTES,
                metrics)) {
            int connections = GuardLimits.HEALTH_PORT.total() + 50;
            InetSocketAddress target = new InetSocketAddress("127.0.0.1", server.healthPort());
            HealthPortFlood oneSource = new HealthPortFlood(
                            target, InetAddress.getByName("127.0.0.2"), connections, Duration.ofMillis(100))
                    .start();
            probeFor(server, Duration.ofSeconds(7));
            HealthPortFlood.Stats one = oneSource.stop();
            assertThat(one.mostOpen())
                    .as("the flood held at times more than a source's share (%s)", one)
                    .isGreaterThan(GuardLimits.HEALTH_PORT.perSource());
            assertThat(one.closedByServer()).as("closed by the server: %s", one).isGreaterThan(connections);

            List<HealthPortFlood> manySources = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                manySources.add(new HealthPortFlood(
                                target,
                                InetAddress.getByName("127.0.0." + (10 + i)),
                                (connections + 29) / 30,
                                Duration.ofMillis(100))
                        .start());
            }
            probeFor(server, Duration.ofSeconds(7));
            for (HealthPortFlood flood : manySources) {
                flood.stop();
            }
            assertLifetimeEndsAFewQuietConnections(target, server.healthGuard());
            ConnectionGuard guard = server.healthGuard();
            for (ConnectionGuard.Reason reason : ConnectionGuard.Reason.values()) {
                assertThat(guard.closed(reason)).as("closed for %s", reason).isGreaterThan(0);
                assertThat(metrics.scrape())
                        .contains("schedulerops_extender_health_connections_closed_total{reason=\""
                                + reason.name().toLowerCase(java.util.Locale.ROOT) + "\"} " + guard.closed(reason));
            }
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
    private static void probeFor(ExtenderServer server, Duration period) throws Exception {
        probe(server.healthPort(), "/healthz"); // the first connection of this JVM loads classes: not timed
        long end = System.nanoTime() + period.toNanos();
        int probes = 0;
        while (System.nanoTime() < end) {
            for (String path : List.of("/healthz", "/readyz")) {
                long start = System.nanoTime();
                String statusLine = probe(server.healthPort(), path);
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
}
