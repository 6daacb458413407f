package dev.schedulerops.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.preview.LoopbackPorts;
import dev.schedulerops.operator.tls.CertificateIssuer;
import dev.schedulerops.operator.tls.Issued;
import dev.schedulerops.operator.tls.RotationPolicy;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReleaseLeaseCommandTest {
    private static final String POD = "gpu-scheduler-7d9f-abcde";
    /** As the API server writes and reads a Lease (made once: it indexes every model class first). */
    private static final KubernetesSerialization API_SERVER_JSON = new KubernetesSerialization();

    private static Lease lease(String holder, String version) {
        return new LeaseBuilder()
                .withNewMetadata()
                .withName("gpu-scheduler")
                .withNamespace("schedulerops-system")
                .withResourceVersion(version)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(15)
                .withRenewTime(ZonedDateTime.parse("2026-11-29T19:00:00Z"))
                .withLeaseTransitions(2)
                .endSpec()
                .build();
    }

    /** Answers GETs from a queue of leases and updates from a queue of statuses; records what was written. */
    private static final class ScriptedApi implements ReleaseLeaseCommand.LeaseApi {
        final Deque<Lease> reads = new ArrayDeque<>();
        final Deque<Integer> statuses = new ArrayDeque<>();
        final List<Lease> written = new ArrayList<>();

        @Override
        public Lease get() throws IOException {
            if (reads.isEmpty()) {
                throw new IOException("connection refused");
            }
            return reads.poll();
        }

        @Override
        public int replace(Lease lease, boolean dryRun) {
            assertThat(dryRun).as("giving back is no dry run").isFalse();
            written.add(lease);
            return statuses.poll();
        }
    }

    @Test
    void givesBackALeaseItsPodHoldsAndRereadsOnAConflict() {
        ScriptedApi api = new ScriptedApi();
        api.reads.add(lease(POD + "_0c1d", "41"));
        api.reads.add(lease(POD + "_0c1d", "42"));
        api.statuses.add(409);
        api.statuses.add(200);

        String outcome = ReleaseLeaseCommand.giveBack(api, POD, 3);

        assertThat(outcome)
                .startsWith("gave back the lease held by " + POD + "_0c1d")
                .contains("attempt 2");
        assertThat(api.written).hasSize(2);
        Lease last = api.written.get(1);
        assertThat(last.getMetadata().getResourceVersion())
                .as("the second write carries the version read again")
                .isEqualTo("42");
        assertThat(last.getSpec().getHolderIdentity()).isNull();
        assertThat(last.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
        assertThat(last.getMetadata().getAnnotations())
                .containsEntry(Labels.LEASE_RELEASED_BY, "release-lease for " + POD + "_0c1d");
    }

    @Test
    void leavesAloneALeaseAnotherPodHoldsOrThatIsAlreadyGivenBack() {
        ScriptedApi api = new ScriptedApi();
        api.reads.add(lease("gpu-scheduler-7d9f-xyzzy_9e8f", "41"));
        assertThat(ReleaseLeaseCommand.giveBack(api, POD, 3))
                .startsWith("lease not held by a process of " + POD)
                .contains("gpu-scheduler-7d9f-xyzzy_9e8f");
        api.reads.add(lease(null, "43"));
        assertThat(ReleaseLeaseCommand.giveBack(api, POD, 3))
                .startsWith("lease not held")
                .contains("holder: nobody (given back)");
        assertThat(api.written).isEmpty();
    }

    @Test
    void saysSoWhenTheApiServerCannotBeReachedInItsAttempts() {
        ScriptedApi api = new ScriptedApi();
        assertThat(ReleaseLeaseCommand.giveBack(api, POD, 3))
                .startsWith("could not give back the lease after 3 attempts")
                .contains("connection refused")
                .contains("the operator gives it back");
    }

    @Test
    void speaksToTheApiServerWithTheTokenAsReadEachTimeAndAConditionalPut(@TempDir Path dir) throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "first-token\n");
        Map<String, String> seen = new ConcurrentHashMap<>();
        Lease stored = lease(POD + "_0c1d", "41");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/apis/coordination.k8s.io/v1/namespaces/schedulerops-system/leases/", exchange -> {
            String method = exchange.getRequestMethod();
            seen.put(method + " path", exchange.getRequestURI().getPath());
            seen.put(method + " auth", exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] body = exchange.getRequestBody().readAllBytes();
            if (method.equals("PUT")) {
                seen.put("PUT query", String.valueOf(exchange.getRequestURI().getQuery()));
                seen.put("PUT body", new String(body, StandardCharsets.UTF_8));
                exchange.sendResponseHeaders(200, -1);
            } else if (exchange.getRequestURI().getPath().endsWith("/gpu-scheduler")) {
                byte[] json = API_SERVER_JSON.asJson(stored).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, json.length);
                exchange.getResponseBody().write(json);
            } else {
                exchange.sendResponseHeaders(404, -1);
            }
            exchange.close();
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            HttpClient client = HttpClient.newHttpClient();
            var missing = new ReleaseLeaseCommand.InCluster(
                    () -> client, ReleaseLeaseCommand.InCluster.leaseUri(base, "schedulerops-system", "other"), token);
            assertThat(missing.get()).as("no lease yet is no error").isNull();

            var api = new ReleaseLeaseCommand.InCluster(
                    () -> client,
                    ReleaseLeaseCommand.InCluster.leaseUri(base, "schedulerops-system", "gpu-scheduler"),
                    token);
            assertThat(api.get().getSpec().getHolderIdentity()).isEqualTo(POD + "_0c1d");
            assertThat(seen).containsEntry("GET auth", "Bearer first-token");
            assertThat(api.replace(api.get(), true)).isEqualTo(200);
            assertThat(seen).as("the warm-up's update stores nothing").containsEntry("PUT query", "dryRun=All");

            Files.writeString(token, "rotated-token\n");
            String outcome = ReleaseLeaseCommand.giveBack(api, POD, 1);

            assertThat(outcome).startsWith("gave back");
            assertThat(seen)
                    .containsEntry(
                            "PUT path",
                            "/apis/coordination.k8s.io/v1/namespaces/schedulerops-system/leases/gpu-scheduler")
                    .containsEntry("PUT auth", "Bearer rotated-token")
                    .containsEntry("PUT query", "null");
            // As the API server would read it: fabric8's own serialization, which knows every field's format.
            Lease sent = API_SERVER_JSON.unmarshal(seen.get("PUT body"), Lease.class);
            assertThat(sent.getMetadata().getResourceVersion()).isEqualTo("41");
            assertThat(sent.getSpec().getHolderIdentity()).isNull();
            assertThat(sent.getSpec().getLeaseTransitions()).isEqualTo(2);
            assertThat(seen.get("PUT body"))
                    .as("times as the API server's MicroTime reads them (RFC 3339, six fractional digits)")
                    .containsPattern("\"renewTime\":\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z\"")
                    .doesNotContain("null");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void atTheSigtermWaitsUntilKubeSchedulersPortRefusesThenGivesBack() throws Exception {
        ScriptedApi api = new ScriptedApi();
        api.reads.add(lease(POD + "_0c1d", "41"));
        api.statuses.add(200);
        try (ServerSocket scheduler = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = scheduler.getLocalPort();
            assertThat(ReleaseLeaseCommand.onStop(api, POD, port, Duration.ofMillis(300)))
                    .as("a kube-scheduler that still listens (outlived a short grace period, or frozen)")
                    .contains("still listens")
                    .contains("leaving the lease alone");
            assertThat(api.written).isEmpty();

            Instant start = Instant.now();
            CompletableFuture.runAsync(
                    () -> {
                        try {
                            scheduler.close();
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    },
                    CompletableFuture.delayedExecutor(400, TimeUnit.MILLISECONDS));
            String outcome = ReleaseLeaseCommand.onStop(api, POD, port, Duration.ofSeconds(10));

            assertThat(outcome).startsWith("gave back");
            assertThat(Duration.between(start, Instant.now()))
                    .as("not before the port closed")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(350));
            assertThat(api.written).hasSize(1);
        }
    }

    @Test
    void aPortNothingListensOnIsRefusedAtOnce() throws Exception {
        int port = LoopbackPorts.free();
        Instant start = Instant.now();
        assertThat(ReleaseLeaseCommand.awaitRefused(port, Duration.ofSeconds(5)))
                .isTrue();
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(1));
        try (ServerSocket scheduler = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
            assertThat(ReleaseLeaseCommand.awaitRefused(port, Duration.ofMillis(300)))
                    .as("a process listens")
                    .isFalse();
        }
    }

    @Test
    void trustsTheClusterCaAsTheFileHasItNow(@TempDir Path dir) throws Exception {
        CertificateIssuer issuer = new CertificateIssuer();
        Instant now = Instant.now();
        RotationPolicy.Validity valid = new RotationPolicy.Validity(now.minusSeconds(60), now.plusSeconds(3600));
        Issued ca = issuer.ca("cluster-ca", valid);
        Issued other = issuer.ca("another-ca", valid);
        Issued serving = issuer.serving(ca, List.of("localhost"), valid);
        SSLContext serverContext =
                AwaitExtenderCommand.sslContext(ca.certificatePem(), serving.certificatePem(), serving.keyPem());
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverContext));
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        server.start();
        Path caFile = dir.resolve("ca.crt");
        Path token = dir.resolve("token");
        Files.writeString(token, "t");
        try {
            Files.writeString(caFile, other.certificatePem());
            var clients = new ReleaseLeaseCommand.TrustingTheClusterCa(caFile);
            var api = new ReleaseLeaseCommand.InCluster(
                    clients,
                    ReleaseLeaseCommand.InCluster.leaseUri(
                            "https://localhost:" + server.getAddress().getPort(), "ns", "l"),
                    token);
            assertThatThrownBy(api::get)
                    .as("a server the CA in the file did not sign")
                    .isInstanceOf(IOException.class);

            Files.writeString(caFile, ca.certificatePem());
            assertThat(api.get())
                    .as("the rotated CA, read again: a 404 is no lease")
                    .isNull();
        } finally {
            server.stop(0);
        }
    }
}
