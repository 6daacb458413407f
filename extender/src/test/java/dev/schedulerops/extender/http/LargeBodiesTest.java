package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Large bodies (full-node requests) are read into arrays that are kept for the next large body, so a body is often
 * shorter than its array, whose tail still holds an earlier request's bytes. Every answer must still be exactly that
 * of the request alone; the pool itself keeps only large arrays, the smallest going first.
 */
class LargeBodiesTest {
    private static final String KEY = "example.com/large";

    @Test
    void keepsLargeArraysUpToItsLimitsAndHandsOutTheSmallestThatFits() {
        LargeBodies pool = new LargeBodies(10L * LargeBodies.GRAIN);

        pool.giveBack(new byte[LargeBodies.FROM]); // not large
        pool.giveBack(new byte[11 * LargeBodies.GRAIN]); // more than the pool may hold
        assertThat(pool.idleBytes()).isZero();

        pool.giveBack(new byte[2 * LargeBodies.GRAIN]);
        pool.giveBack(new byte[3 * LargeBodies.GRAIN]);
        pool.giveBack(new byte[4 * LargeBodies.GRAIN]);
        assertThat(pool.idleBytes()).isEqualTo(9L * LargeBodies.GRAIN);
        pool.giveBack(new byte[5 * LargeBodies.GRAIN]); // 14 grains: the two smallest go
        assertThat(pool.idleBytes()).isEqualTo(9L * LargeBodies.GRAIN);

        assertThat(pool.take(4L * LargeBodies.GRAIN + 1)).hasSize(5 * LargeBodies.GRAIN);
        assertThat(pool.take(LargeBodies.GRAIN)).hasSize(4 * LargeBodies.GRAIN);
        assertThat(pool.take(1)).isNull();
    }

    @Test
    void roundsTheLastArrayOfALargeBodyToAWholeGrainWithinTheLimit() {
        assertThat(LargeBodies.rounded(LargeBodies.GRAIN + 1, 64L * LargeBodies.GRAIN))
                .isEqualTo(2 * LargeBodies.GRAIN);
        assertThat(LargeBodies.rounded(2L * LargeBodies.GRAIN, 64L * LargeBodies.GRAIN))
                .isEqualTo(2 * LargeBodies.GRAIN);
        assertThat(LargeBodies.rounded(5L * LargeBodies.GRAIN + 7, 5L * LargeBodies.GRAIN + 100))
                .isEqualTo(5 * LargeBodies.GRAIN + 100);
    }

    @Test
    void everyFullNodeRequestIsAnsweredAsItselfWhateverItsArrayHeldBefore() throws Exception {
        ExtenderVerbs verbs = new ExtenderVerbs(KEY, null, args -> BindResult.bound());
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (ExtenderServer server = TestServers.plainHttp(verbs, 64 * 1024 * 1024, new ExtenderMetrics())) {
            URI filter = URI.create("http://127.0.0.1:" + server.port() + "/filter");
            // Largest first: each later body lies in the first one's array, over the end of a longer request.
            for (int nodes : new int[] {3000, 2000, 2999, 1900, 3000}) {
                byte[] body = fullNodes(nodes);
                assertThat(body.length).isGreaterThan(LargeBodies.FROM);
                HttpResponse<String> got = client.send(
                        HttpRequest.newBuilder(filter)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

                assertThat(got.statusCode()).isEqualTo(200);
                assertThat(got.body())
                        .as("%d nodes", nodes)
                        .isEqualTo(verbs.answer(Verb.FILTER, body).reply().toString());
            }
        }
    }

    /** A full-node request of {@code count} nodes of about 750 bytes; every third lacks the label. */
    private static byte[] fullNodes(int count) {
        StringBuilder json = new StringBuilder("{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"}},"
                + "\"Nodes\":{\"metadata\":{},\"items\":[");
        for (int i = 0; i < count; i++) {
            json.append(i > 0 ? "," : "")
                    .append("{\"metadata\":{\"name\":\"node-")
                    .append(i)
                    .append("-of-")
                    .append(count)
                    .append("\",\"labels\":{")
                    .append(i % 3 == 0 ? "" : "\"" + KEY + "\":\"" + i + "\"")
                    .append("}},\"status\":{\"images\":[")
                    .append(String.join(
                            ",",
                            java.util.Collections.nCopies(
                                    8,
                                    "{\"names\":[\"registry.example/team/service@sha256:0123456789abcdef\"],"
                                            + "\"sizeBytes\":1}")))
                    .append("]}}");
        }
        return json.append("]},\"NodeNames\":null}").toString().getBytes(StandardCharsets.UTF_8);
    }
}
