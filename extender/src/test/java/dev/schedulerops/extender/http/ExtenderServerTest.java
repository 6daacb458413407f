package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.tls.TlsSettings;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The real server on 127.0.0.1, driven over HTTP: verbs on the verb port, health and metrics on the health port. */
class ExtenderServerTest {
    private static final String KEY = "priority.lixueduan.com";
    private static final int MAX_BODY = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StaticNodeCache cache =
            new StaticNodeCache().put("n1", "10").put("n2", null).put("n3", "20");
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private ExtenderServer server;

    @BeforeEach
    void start() throws Exception {
        server = new ExtenderServer(
                        "127.0.0.1",
                        0,
                        0,
                        TlsSettings.disabled(),
                        HttpLimits.withMaxBody(MAX_BODY),
                        Duration.ofSeconds(5),
                        new ExtenderVerbs(
                                KEY,
                                cache,
                                args -> args.node().equals("n3")
                                        ? BindResult.bound()
                                        : new BindResult.BindingFailed("no such node")),
                        cache::synced,
                        new ExtenderMetrics())
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return client.send(
                HttpRequest.newBuilder(uri(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A GET on the health port, which serves /healthz, /readyz and /metrics. */
    private HttpResponse<String> health(String path) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.healthPort() + path))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String fullNodes(String... nameValue) {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < nameValue.length; i += 2) {
            if (i > 0) {
                items.append(',');
            }
            items.append("{\"metadata\":{\"name\":\"").append(nameValue[i]).append('"');
            if (nameValue[i + 1] != null) {
                items.append(",\"labels\":{\"")
                        .append(KEY)
                        .append("\":\"")
                        .append(nameValue[i + 1])
                        .append("\"}");
            }
            items.append("},\"status\":{\"phase\":\"Running\"}}");
        }
        return "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"}},\"Nodes\":{\"items\":[" + items
                + "]},\"NodeNames\":null}";
    }

    @Test
    void filterInBothModes() throws Exception {
        HttpResponse<String> full = post("/filter", fullNodes("a", "1", "b", null));
        HttpResponse<String> names = post("/filter", "{\"Pod\":{},\"NodeNames\":[\"n1\",\"n2\",\"n3\"]}");

        assertThat(full.statusCode()).isEqualTo(200);
        assertThat(full.headers().firstValue("Content-Type")).hasValue("application/json");
        JsonNode fullReply = JSON.readTree(full.body());
        assertThat(fullReply.at("/Nodes/items/0/metadata/name").asText()).isEqualTo("a");
        assertThat(fullReply.at("/Nodes/items").size()).isEqualTo(1);
        assertThat(fullReply.at("/FailedAndUnresolvableNodes/b").asText())
                .isEqualTo(
                        "node(s) lack the label \"priority.lixueduan.com\" required by the SchedulerProfile extender");
        JsonNode namesReply = JSON.readTree(names.body());
        assertThat(namesReply.get("NodeNames").toString()).isEqualTo("[\"n1\",\"n3\"]");
        assertThat(namesReply.get("Nodes").isNull()).isTrue();
    }

    @Test
    void filterOnlyOnePrioritizePreemptAndBind() throws Exception {
        assertThat(JSON.readTree(post("/filter_onlyone", "{\"Pod\":{},\"NodeNames\":[\"n1\",\"n3\"]}")
                                .body())
                        .get("NodeNames")
                        .toString())
                .isEqualTo("[\"n3\"]");
        assertThat(post("/prioritize", fullNodes("a", "5", "b", "10", "c", null))
                        .body())
                .isEqualTo("[{\"Host\":\"a\",\"Score\":5},{\"Host\":\"b\",\"Score\":10},{\"Host\":\"c\",\"Score\":0}]");
        assertThat(JSON.readTree(post(
                                        "/preempt",
                                        "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"u\"}]},"
                                                + "\"n2\":{\"Pods\":[{\"UID\":\"v\"}]}}}")
                                .body())
                        .get("NodeNameToMetaVictims")
                        .fieldNames())
                .toIterable()
                .containsExactly("n1");
        String bind = "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"PodUID\":\"u\",\"Node\":\"%s\"}";
        assertThat(post("/bind", bind.formatted("n3")).body()).isEqualTo("{\"Error\":\"\"}");
        assertThat(post("/bind", bind.formatted("n9")).body()).isEqualTo("{\"Error\":\"no such node\"}");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "malformed JSON|/filter|{\"Pod\":|400|malformed JSON",
                "wrong type|/prioritize|{\"Pod\":{},\"NodeNames\":{}}|400|must be an array",
                "missing Pod|/filter|{\"NodeNames\":[]}|400|\"Pod\" is required",
                "empty body|/filter_onlyone||400|request body is empty",
                "bind without node|/bind|{\"PodName\":\"p\",\"PodNamespace\":\"d\"}|400|\"Node\" is required",
                "bind without PodUID|/bind|{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"Node\":\"n3\"}|400|\"PodUID\" is required",
                "bind with an empty PodUID|/bind|{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"PodUID\":\"\",\"Node\":\"n3\"}|400|\"PodUID\" is required",
                "preempt with wrong type|/preempt|{\"Pod\":{},\"NodeNameToMetaVictims\":[]}|400|must be an object",
                "unknown path|/filterr|{}|404|no such path: /filterr",
            })
    void badInputGetsA4xxWithAJsonError(String description, String path, String body, int status, String message)
            throws Exception {
        HttpResponse<String> response = post(path, body == null ? "" : body);

        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(JSON.readTree(response.body()).get("error").asText()).contains(message);
    }

    /**
     * A verb the extender was not configured for is not served at all: its path is answered as an unknown path is,
     * whatever the method and body, and the verbs it serves still work.
     */
    @Test
    void aVerbNotConfiguredIsAnsweredAsAnUnknownPath() throws Exception {
        ExtenderServer filterAndPrioritize = new ExtenderServer(
                        "127.0.0.1",
                        0,
                        HttpLimits.withMaxBody(MAX_BODY),
                        Duration.ZERO,
                        new ExtenderVerbs(
                                KEY, EnumSet.of(Verb.FILTER, Verb.PRIORITIZE), cache, args -> BindResult.bound()),
                        () -> true,
                        new ExtenderMetrics())
                .start();
        try {
            URI base = URI.create("http://127.0.0.1:" + filterAndPrioritize.port());
            String bind = "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"PodUID\":\"u\",\"Node\":\"n3\"}";
            String names = "{\"Pod\":{},\"NodeNames\":[\"n1\",\"n3\"]}";
            for (String[] call : new String[][] {
                {"/bind", bind}, {"/filter_onlyone", names}, {"/preempt", "{\"Pod\":{}}"}, {"/nope", names}
            }) {
                HttpResponse<String> post = client.send(
                        HttpRequest.newBuilder(base.resolve(call[0]))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(call[1]))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                HttpResponse<String> get = client.send(
                        HttpRequest.newBuilder(base.resolve(call[0])).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(post.statusCode()).as("POST " + call[0]).isEqualTo(404);
                assertThat(post.body()).isEqualTo("{\"error\":\"no such path: " + call[0] + "\"}");
                assertThat(get.statusCode()).as("GET " + call[0] + ": not 405").isEqualTo(404);
                assertThat(get.headers().firstValue("Allow")).isEmpty();
            }
            HttpResponse<String> filter = client.send(
                    HttpRequest.newBuilder(base.resolve("/filter"))
                            .POST(HttpRequest.BodyPublishers.ofString(names))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(filter.statusCode()).isEqualTo(200);
        } finally {
            filterAndPrioritize.close();
        }
    }

    @Test
    void wrongMethodIs405WithAllow() throws Exception {
        HttpResponse<String> getVerb = get("/filter");
        HttpResponse<String> postHealth = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.healthPort() + "/healthz"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(getVerb.statusCode()).isEqualTo(405);
        assertThat(getVerb.headers().firstValue("Allow")).hasValue("POST");
        assertThat(JSON.readTree(getVerb.body()).get("error").asText()).contains("use POST");
        assertThat(postHealth.statusCode()).isEqualTo(405);
        assertThat(postHealth.headers().firstValue("Allow")).hasValue("GET, HEAD");
    }

    @Test
    void wrongContentTypeIs415() throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri("/filter"))
                        .header("Content-Type", "text/plain")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(415);
        assertThat(JSON.readTree(response.body()).get("error").asText()).contains("text/plain");
    }

    /**
     * Sent raw: the body is refused before it has all been read, and a client that is still writing it when the
     * server closes the connection may lose the answer to the reset that the unread bytes cause (the JDK client did,
     * now and then). So the declared body is announced but not sent, and the chunked one is sent up to past the limit.
     */
    @Test
    void bodyOverTheLimitIs413WithOrWithoutContentLength() throws Exception {
        String head = "POST /filter HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n";
        String pastTheLimit = "x".repeat(MAX_BODY + 1);
        String declared = raw(server.port(), head + "Content-Length: " + (MAX_BODY + 1) + "\r\n\r\n");
        String chunked = raw(
                server.port(),
                head + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(pastTheLimit.length()) + "\r\n"
                        + pastTheLimit + "\r\n");

        assertThat(declared).startsWith("HTTP/1.1 413").contains("exceeds the limit of 65536 bytes");
        assertThat(chunked).startsWith("HTTP/1.1 413").contains("exceeds the limit of 65536 bytes");
        assertThat(post("/filter", fullNodes("a", "1")).statusCode())
                .as("the server still serves after refusing")
                .isEqualTo(200);
    }

    @Test
    void chunkedBodyUnderTheLimitIsServed() throws Exception {
        byte[] body = fullNodes("a", "1", "b", "2").getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri("/prioritize"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.body()).isEqualTo("[{\"Host\":\"a\",\"Score\":5},{\"Host\":\"b\",\"Score\":10}]");
    }

    @Test
    void namesOnlyPrioritizeWithoutCacheIs422() throws Exception {
        ExtenderServer noCache = new ExtenderServer(
                        "127.0.0.1",
                        0,
                        HttpLimits.withMaxBody(MAX_BODY),
                        Duration.ZERO,
                        new ExtenderVerbs(KEY, null, args -> BindResult.bound()),
                        () -> true,
                        new ExtenderMetrics())
                .start();
        try {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + noCache.port() + "/prioritize"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"Pod\":{},\"NodeNames\":[\"a\"]}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(422);
            assertThat(response.body()).contains("--node-cache");
        } finally {
            noCache.close();
        }
    }

    @Test
    void readinessFollowsTheNodeCache() throws Exception {
        assertThat(health("/healthz").statusCode()).isEqualTo(200);
        assertThat(health("/readyz").statusCode()).isEqualTo(200);

        cache.synced(false);

        assertThat(health("/readyz").statusCode()).isEqualTo(503);
        assertThat(health("/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void eachPortServesOnlyItsOwnPaths() throws Exception {
        assertThat(server.healthPort()).isNotEqualTo(server.port());
        for (String path : List.of("/healthz", "/metrics")) {
            HttpResponse<String> response = get(path);
            assertThat(response.statusCode()).as(path + " on the verb port").isEqualTo(404);
            assertThat(JSON.readTree(response.body()).get("error").asText()).contains("no such path: " + path);
        }
        // Except readiness, which a new scheduler pod asks where it will call the verbs (operator: await-extender).
        assertThat(get("/readyz").statusCode()).as("/readyz on the verb port").isEqualTo(200);
        cache.synced(false);
        assertThat(get("/readyz").statusCode())
                .as("/readyz on the verb port, cache not synced")
                .isEqualTo(503);
        cache.synced(true);
        for (String path : List.of("/filter", "/filter_onlyone", "/prioritize", "/bind", "/preempt")) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.healthPort() + path))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(fullNodes("a", "1")))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(path + " on the health port").isEqualTo(404);
        }
        assertThat(health("/metrics").body())
                .contains("schedulerops_extender_requests_total{code=\"404\",verb=\"other\"} 7.0")
                .contains("schedulerops_extender_nodes_in_total{verb=\"filter\"} 0.0");
    }

    @Test
    void metricsCountRequestsNodesAndLatencyPerVerb() throws Exception {
        post("/filter", fullNodes("a", "1", "b", null, "c", "2"));
        post("/filter", "{bad");
        get("/nope");

        String metrics = health("/metrics").body();

        assertThat(metrics)
                .contains("schedulerops_extender_requests_total{code=\"200\",verb=\"filter\"} 1.0")
                .contains("schedulerops_extender_requests_total{code=\"400\",verb=\"filter\"} 1.0")
                .contains("schedulerops_extender_requests_total{code=\"404\",verb=\"other\"} 1.0")
                .contains("schedulerops_extender_nodes_in_total{verb=\"filter\"} 3.0")
                .contains("schedulerops_extender_nodes_out_total{verb=\"filter\"} 2.0")
                .contains("schedulerops_extender_request_seconds_bucket{verb=\"filter\",le=\"+Inf\"} 2")
                .contains("schedulerops_extender_request_seconds_count{verb=\"prioritize\"} 0");
    }

    @Test
    void aRefusalBeforeTheBodyIsReadClosesTheConnectionAndADecodedOneKeepsIt() throws Exception {
        assertThat(rawPost(server.healthPort(), "/filter", fullNodes("a", "1")))
                .startsWith("HTTP/1.1 404")
                .containsIgnoringCase("Connection: close");
        assertThat(rawPost(server.port(), "/filter", "{bad"))
                .startsWith("HTTP/1.1 400")
                .doesNotContainIgnoringCase("Connection: close");
    }

    @Test
    void requestsJettyRefusesGetA4xxWithAJsonErrorToo() throws Exception {
        assertThat(raw(server.port(), "POST /filter HTTP/9.9\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"))
                .as("an unsupported HTTP version is the client's error: 400, not Jetty's 505")
                .startsWith("HTTP/1.1 400")
                .contains("application/json")
                .contains("{\"error\":\"unsupported HTTP version");
        assertThat(raw(server.port(), "POST /filter HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n"))
                .startsWith("HTTP/1.1 400")
                .contains("{\"error\":");
    }

    /** Everything the server answers to {@code request}, written raw, until it closes or 2 s pass in silence. */
    private static String raw(int port, String request) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(2_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            try {
                for (int n; (n = socket.getInputStream().read(buffer)) > 0; ) {
                    answer.write(buffer, 0, n);
                }
            } catch (java.net.SocketTimeoutException quiet) {
                // the server keeps the connection open: what it sent so far is the answer
            }
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** The status line and headers of one keep-alive POST over a raw socket. */
    private static String rawPost(int port, String path, String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: " + bytes.length + "\r\n\r\n" + body)
                            .getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            StringBuilder head = new StringBuilder();
            InputStream in = socket.getInputStream();
            while (head.indexOf("\r\n\r\n") < 0) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.append((char) b);
            }
            return head.toString();
        }
    }

    @Test
    void concurrentRequestsGetTheirOwnAnswers() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                int id = i;
                results.add(pool.submit(() -> {
                    String body = fullNodes("node-" + id, Integer.toString(id), "other-" + id, null);
                    JsonNode reply = JSON.readTree(post("/filter", body).body());
                    return reply.at("/Nodes/items/0/metadata/name").asText().equals("node-" + id)
                            && reply.at("/FailedAndUnresolvableNodes").has("other-" + id);
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shutdownLetsAnInFlightRequestFinishAndStopsAcceptingNewOnes() throws Exception {
        byte[] body = fullNodes("a", "1").getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /filter HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body, 0, 10);
            out.flush();
            Thread.sleep(200);

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
                try {
                    server.stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300);
            assertThat(stopping).as("stop waits for the in-flight request").isNotDone();

            out.write(body, 10, body.length - 10);
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);

            assertThat(response).startsWith("HTTP/1.1 200").contains("\"Nodes\":{\"metadata\":{},\"items\":[{");
            stopping.get(10, TimeUnit.SECONDS);
        }
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> post("/filter", "{}")))
                .as("no new connections on the verb port after stop")
                .isNotNull();
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> health("/healthz")))
                .as("nor on the health port")
                .isNotNull();
    }

    private static final String FILTER_HEAD =
            "POST /filter HTTP/1.1\r\nHost: localhost\r\n" + "Content-Type: application/json\r\nContent-Length: ";

    /** One /filter request on {@code socket}, and the head and body of its answer (read by Content-Length). */
    private static String filterOn(Socket socket) throws Exception {
        byte[] body = fullNodes("a", "1").getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write((FILTER_HEAD + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new java.io.EOFException("connection closed after: " + head);
            }
            head.append((char) b);
        }
        java.util.regex.Matcher length =
                java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        assertThat(length.find()).as("Content-Length in %s", head).isTrue();
        return head + new String(in.readNBytes(Integer.parseInt(length.group(1))), StandardCharsets.UTF_8);
    }

    @Test
    void duringTheShutdownDelayItIsNotReadyButStillAnswersAndClosesEachConnection() throws Exception {
        try (Socket idle = new Socket("127.0.0.1", server.port())) {
            idle.setSoTimeout(10_000);
            assertThat(filterOn(idle)).as("before stopping").startsWith("HTTP/1.1 200");
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
                try {
                    server.stop(Duration.ofSeconds(6));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (health("/readyz").statusCode() != 503 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(health("/readyz").statusCode())
                        .as("/readyz once stopping")
                        .isEqualTo(503);

                try (Socket socket = new Socket("127.0.0.1", server.port())) {
                    socket.setSoTimeout(10_000);
                    String response = filterOn(socket);

                    assertThat(response)
                            .as("a request arriving during the delay is answered, and its connection closed")
                            .startsWith("HTTP/1.1 200")
                            .containsIgnoringCase("Connection: close")
                            .contains("\"Nodes\":{\"metadata\":{},\"items\":[{");
                    assertThat(socket.getInputStream().read())
                            .as("then the server closes it")
                            .isEqualTo(-1);
                }
                long idleClosed = System.nanoTime();
                assertThat(idle.getInputStream().read())
                        .as("a kept-alive connection left idle is closed during the delay")
                        .isEqualTo(-1);
                assertThat(stopping)
                        .as("the server still runs during the delay")
                        .isNotDone();
                assertThat(Duration.ofNanos(System.nanoTime() - idleClosed)).isLessThan(Duration.ofSeconds(5));
            } finally {
                stopping.get(15, TimeUnit.SECONDS);
            }
        }
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> post("/filter", "{}")))
                .as("no new connections once the delay is over")
                .isNotNull();
    }

    @Test
    void aSlowRequestInFlightWhenStoppingBeginsIsAnsweredDespiteTheShortIdleTimeout() throws Exception {
        ExtenderServer slow = new ExtenderServer(
                        "127.0.0.1",
                        0,
                        0,
                        TlsSettings.disabled(),
                        HttpLimits.withMaxBody(MAX_BODY),
                        Duration.ofSeconds(5),
                        new ExtenderVerbs(KEY, cache, args -> {
                            try {
                                Thread.sleep(ExtenderServer.STOPPING_IDLE_TIMEOUT.toMillis() * 3);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return BindResult.bound();
                        }),
                        cache::synced,
                        new ExtenderMetrics())
                .start();
        try {
            String bind = "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"PodUID\":\"u\",\"Node\":\"n3\"}";
            CompletableFuture<HttpResponse<String>> answer = client.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + slow.port() + "/bind"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(bind))
                            .timeout(Duration.ofSeconds(20))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            Thread.sleep(300); // the bind is being handled: no byte moves on its connection for 3 s
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
                try {
                    slow.stop(Duration.ofSeconds(6));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                HttpResponse<String> response = answer.get(20, TimeUnit.SECONDS);

                assertThat(response.statusCode())
                        .as("a bind longer than the stopping idle timeout")
                        .isEqualTo(200);
                assertThat(response.body()).isEqualTo("{\"Error\":\"\"}");
            } finally {
                stopping.get(20, TimeUnit.SECONDS);
            }
        } finally {
            slow.close();
        }
    }

    @Test
    void aRunningServerKeepsConnectionsAlive() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            String first = filterOn(socket);
            String second = filterOn(socket);

            assertThat(first).startsWith("HTTP/1.1 200").doesNotContainIgnoringCase("Connection: close");
            assertThat(second).as("a second request on the same connection").startsWith("HTTP/1.1 200");
        }
    }
}
