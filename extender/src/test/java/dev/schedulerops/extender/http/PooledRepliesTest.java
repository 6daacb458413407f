package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Names-only filter replies are written into arrays that go back to a pool once sent. If an array served two replies
 * at once, concurrent answers would carry each other's bytes: here many clients at once send different node lists,
 * and every answer must be exactly its own. ({@code ReplyWriterTest} checks that an array goes back only once its
 * reply is written.)
 */
class PooledRepliesTest {
    private static final String KEY = "example.com/pool";
    private static final int NODES = 3000;

    @Test
    void concurrentNamesOnlyFiltersEachGetTheirOwnAnswer() throws Exception {
        StaticNodeCache cache = new StaticNodeCache();
        for (int i = 0; i < NODES; i++) {
            cache.put("node-" + i, i % 3 == 0 ? null : Integer.toString(i));
        }
        ExtenderVerbs served = new ExtenderVerbs(KEY, cache, args -> BindResult.bound());
        ExtenderVerbs expected = new ExtenderVerbs(KEY, cache, args -> BindResult.bound());
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try (ExtenderServer server = TestServers.plainHttp(served, 8 * 1024 * 1024, new ExtenderMetrics())) {
            URI filter = URI.create("http://127.0.0.1:" + server.port() + "/filter");
            List<Future<Integer>> results = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                long seed = c;
                results.add(clients.submit(() -> {
                    Random random = new Random(seed);
                    for (int r = 0; r < 40; r++) {
                        byte[] body = body(random);
                        String want = expected.answer(Verb.FILTER, body).reply().toString();
                        HttpResponse<String> got = client.send(
                                HttpRequest.newBuilder(filter)
                                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                        .timeout(Duration.ofSeconds(30))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        assertThat(got.statusCode()).isEqualTo(200);
                        assertThat(got.body()).isEqualTo(want);
                    }
                    return 40;
                }));
            }
            int answered = 0;
            for (Future<Integer> result : results) {
                answered += result.get();
            }
            assertThat(answered).isEqualTo(320);
        } finally {
            clients.shutdownNow();
        }
    }

    /** A names-only body of 1 to NODES random names, some unknown: replies of very different lengths. */
    private static byte[] body(Random random) {
        int count = 1 + random.nextInt(NODES);
        StringBuilder json = new StringBuilder("{\"Pod\":{},\"NodeNames\":[");
        for (int i = 0; i < count; i++) {
            json.append(i == 0 ? "\"" : ",\"")
                    .append(random.nextInt(20) == 0 ? "unknown-" : "node-")
                    .append(random.nextInt(NODES))
                    .append('"');
        }
        return json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }
}
