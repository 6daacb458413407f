package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.NodeCache;
import dev.schedulerops.extender.nodecache.NodeLabelIndex;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A filter that would reject every node is answered only after the node cache has caught up with the API server; every
 * other answer is given at once. The cache here stands in for the watch's: it holds what the watch delivered, and its
 * catch-up applies what "the API server" has meanwhile, 50 ms later, on another thread.
 */
class CatchUpAnswersTest {
    private static final String KEY = "priority.lixueduan.com";

    /** The watch's view, behind the API server's. */
    private final StaticNodeCache watched =
            new StaticNodeCache().put("n1", null).put("n2", null).put("n3", "5");
    /** What a consistent read would return, applied by the next catch-up; null: the read fails. */
    private volatile String[] apiServer = {"n1", "7"};

    private final List<Long> catchUps = new CopyOnWriteArrayList<>();
    private final ExtenderMetrics metrics = new ExtenderMetrics();
    private final HttpClient client = HttpClient.newHttpClient();
    private ExtenderServer server;

    private final NodeCache cache = new NodeCache() {
        @Override
        public boolean synced() {
            return true;
        }

        @Override
        public String labelValue(String nodeName) {
            return watched.labelValue(nodeName);
        }

        @Override
        public NodeLabelIndex index() {
            return watched.index();
        }

        @Override
        public boolean catchesUp() {
            return true;
        }

        @Override
        public CompletableFuture<Boolean> catchUp(long askedAtNanos) {
            catchUps.add(askedAtNanos);
            String[] read = apiServer;
            return CompletableFuture.supplyAsync(
                    () -> {
                        if (read == null) {
                            return false;
                        }
                        watched.put(read[0], read[1]);
                        return true;
                    },
                    CompletableFuture.delayedExecutor(50, java.util.concurrent.TimeUnit.MILLISECONDS));
        }
    };

    @BeforeEach
    void start() throws Exception {
        server = TestServers.plainHttp(
                new dev.schedulerops.extender.verbs.ExtenderVerbs(KEY, cache, args -> BindResult.bound()),
                HttpLimits.withMaxBody(64 * 1024),
                metrics);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private HttpResponse<String> post(String verb, String body) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/" + verb))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String names(String... names) {
        return "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"}},\"Nodes\":null,\"NodeNames\":[\""
                + String.join("\",\"", names) + "\"]}";
    }

    private String catchUpCount(String outcome) {
        return metrics.scrape()
                .lines()
                .filter(l -> l.startsWith("schedulerops_extender_catch_ups_total{outcome=\"" + outcome + "\"}"))
                .map(l -> l.substring(l.lastIndexOf(' ') + 1))
                .findFirst()
                .orElse("absent");
    }

    @Test
    void aFilterThatWouldRejectEveryNodeIsAnsweredFromTheCaughtUpCache() throws Exception {
        long before = System.nanoTime();

        HttpResponse<String> answer = post("filter", names("n1", "n2"));

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).startsWith("{\"Nodes\":null,\"NodeNames\":[\"n1\"],");
        assertThat(catchUps).singleElement().satisfies(asked -> assertThat(asked)
                .isGreaterThanOrEqualTo(before));
        assertThat(catchUpCount("kept")).isEqualTo("1.0");
    }

    @Test
    void filterOnlyOneCatchesUpTooAndStillKeepsOnlyTheBestNode() throws Exception {
        apiServer = new String[] {"n2", "9"};
        watched.put("n1", "3");
        watched.put("n3", null);
        // n1 is labelled already: nothing to catch up on, answered at once.
        assertThat(post("filter_onlyone", names("n1", "n2")).body()).contains("\"NodeNames\":[\"n1\"]");
        assertThat(catchUps).isEmpty();

        watched.put("n1", null);
        HttpResponse<String> answer = post("filter_onlyone", names("n1", "n2"));

        assertThat(answer.body()).contains("\"NodeNames\":[\"n2\"]");
        assertThat(catchUps).hasSize(1);
    }

    @Test
    void aRejectionThatSurvivesTheCatchUpIsTheAnswer() throws Exception {
        apiServer = new String[] {"n3", "6"};

        HttpResponse<String> answer = post("filter", names("n1", "n2"));

        assertThat(answer.body())
                .contains("\"NodeNames\":[]")
                .contains("\"n1\":\"node(s) lack the label")
                .contains("\"n2\":\"node(s) lack the label");
        assertThat(catchUps).hasSize(1);
        assertThat(catchUpCount("rejected")).isEqualTo("1.0");
    }

    @Test
    void whenTheReadFailsTheCacheAnswersAsItIs() throws Exception {
        apiServer = null;

        HttpResponse<String> answer = post("filter", names("n1"));

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"NodeNames\":[]").contains("\"n1\":\"node(s) lack the label");
        assertThat(catchUpCount("unavailable")).isEqualTo("1.0");
    }

    @Test
    void answersThatKeepANodeAndCallsThatCarryTheLabelsThemselvesNeverWait() throws Exception {
        assertThat(post("filter", names("n2", "n3")).body()).contains("\"NodeNames\":[\"n3\"]");
        assertThat(post("prioritize", names("n1", "n2")).statusCode()).isEqualTo(200);
        String fullNodes = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"}},\"Nodes\":{\"items\":["
                + "{\"metadata\":{\"name\":\"n1\"}}]},\"NodeNames\":null}";
        assertThat(post("filter", fullNodes).body()).contains("\"FailedAndUnresolvableNodes\":{\"n1\"");

        assertThat(catchUps).isEmpty();
        assertThat(catchUpCount("kept")).isEqualTo("absent");
    }
}
