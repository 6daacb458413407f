package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Quick verbs are answered on the thread that read the request; Bind, which waits on the API server, and large
 * bodies go to the thread pool, so neither may hold up the quick answers on other connections. (Whether a quick
 * answer really stays on its thread is what {@code bench/http-cpu} measures, in CPU per request.) Whatever a verb
 * throws, wherever it runs, the request gets an answer.
 */
class QuickAnswersTest {
    private static final String KEY = "example.com/pool";
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void filtersAreAnsweredWhileABindWaitsAndALargeBodyIsBeingAnswered() throws Exception {
        CountDownLatch bindMayFinish = new CountDownLatch(1);
        CountDownLatch bindStarted = new CountDownLatch(1);
        StaticNodeCache cache = new StaticNodeCache().put("n1", "1");
        ExtenderVerbs verbs = new ExtenderVerbs(KEY, cache, args -> {
            bindStarted.countDown();
            try {
                return bindMayFinish.await(30, TimeUnit.SECONDS)
                        ? BindResult.bound()
                        : new BindResult.BindingFailed("timed out");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new BindResult.BindingFailed("interrupted");
            }
        });
        try (ExtenderServer server = TestServers.plainHttp(verbs, 8 * 1024 * 1024, new ExtenderMetrics())) {
            CompletableFuture<HttpResponse<String>> bind = post(
                    server, "/bind", "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"PodUID\":\"u\",\"Node\":\"n1\"}");
            assertThat(bindStarted.await(10, TimeUnit.SECONDS))
                    .as("the bind is waiting")
                    .isTrue();

            for (int i = 0; i < 20; i++) {
                HttpResponse<String> filter = post(server, "/filter", "{\"Pod\":{},\"NodeNames\":[\"n1\"]}")
                        .get(5, TimeUnit.SECONDS);
                assertThat(filter.statusCode()).isEqualTo(200);
                assertThat(filter.body()).contains("\"NodeNames\":[\"n1\"]");
            }
            HttpResponse<String> large =
                    post(server, "/filter", largeNamesOnlyBody()).get(30, TimeUnit.SECONDS);
            assertThat(large.statusCode()).isEqualTo(200);
            assertThat(large.body()).contains("\"NodeNames\":[\"n1\"]");
            assertThat(bind).as("the bind still waits").isNotDone();

            bindMayFinish.countDown();
            assertThat(bind.get(10, TimeUnit.SECONDS).body()).isEqualTo("{\"Error\":\"\"}");
        }
    }

    @Test
    void aVerbThatThrowsAnErrorOffTheRequestThreadIsAnswered500() throws Exception {
        ExtenderVerbs verbs = new ExtenderVerbs(KEY, new StaticNodeCache(), args -> {
            throw new AssertionError("the binder broke");
        });
        try (ExtenderServer server = TestServers.plainHttp(verbs, 1024 * 1024, new ExtenderMetrics())) {
            HttpResponse<String> bind = post(
                            server,
                            "/bind",
                            "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"PodUID\":\"u\",\"Node\":\"n1\"}")
                    .get(10, TimeUnit.SECONDS);

            assertThat(bind.statusCode()).isEqualTo(500);
            assertThat(bind.body()).contains("internal error").contains("the binder broke");
            assertThat(post(server, "/filter", "{\"Pod\":{},\"NodeNames\":[]}")
                            .get(10, TimeUnit.SECONDS)
                            .statusCode())
                    .as("and the server goes on")
                    .isEqualTo(200);
        }
    }

    /** A names-only body over {@link ExtenderHandler#INLINE_BODY_BYTES}: n1 and many unknown nodes. */
    private static String largeNamesOnlyBody() {
        StringBuilder body = new StringBuilder("{\"Pod\":{},\"NodeNames\":[\"n1\"");
        while (body.length() <= ExtenderHandler.INLINE_BODY_BYTES) {
            body.append(",\"unknown-").append(body.length()).append('"');
        }
        return body.append("]}").toString();
    }

    private CompletableFuture<HttpResponse<String>> post(ExtenderServer server, String path, String body) {
        return client.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
