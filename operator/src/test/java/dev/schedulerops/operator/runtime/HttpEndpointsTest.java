package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
     * The review's finding: two connections that send their headers slowly held both threads of the JDK HttpServer,
     * and the kubelet's liveness probe timed out. Now many such connections do not delay a probe, and each is closed
     * once it has been silent for the idle timeout.
     */
    @Test
    void slowClientsNeitherDelayTheProbesNorStayConnected() throws Exception {
        try (HttpEndpoints endpoints = HttpEndpoints.start("127.0.0.1", 0, () -> true, () -> true, () -> "")) {
            java.util.List<java.net.Socket> slow = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    java.net.Socket socket = new java.net.Socket("127.0.0.1", endpoints.port());
                    socket.getOutputStream()
                            .write("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "
                                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                    slow.add(socket);
                }
                long start = System.nanoTime();
                HttpResponse<String> probe = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + "/healthz"))
                                .timeout(java.time.Duration.ofSeconds(3))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(probe.statusCode()).isEqualTo(200);
                assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
                        .as("a probe beside 20 slow clients")
                        .isLessThan(java.time.Duration.ofSeconds(2));

                for (java.net.Socket socket : slow) {
                    socket.setSoTimeout(
                            (int) HttpEndpoints.IDLE_TIMEOUT.plusSeconds(5).toMillis());
                    // The server answers the unfinished request with an error or just closes: either way, the
                    // connection ends (read reaches end of stream) within the idle timeout.
                    java.io.InputStream in = socket.getInputStream();
                    while (in.read() >= 0) {
                        // drain an error answer, if any
                    }
                }
            } finally {
                for (java.net.Socket socket : slow) {
                    socket.close();
                }
            }
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
