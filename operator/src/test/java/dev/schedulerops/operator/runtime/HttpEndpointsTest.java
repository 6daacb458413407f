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
}
