package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.tls.TestPki;
import dev.schedulerops.extender.tls.TestPki.Issued;
import dev.schedulerops.extender.tls.TestPki.SecretDir;
import dev.schedulerops.extender.tls.TlsMaterialException;
import dev.schedulerops.extender.tls.TlsMode;
import dev.schedulerops.extender.tls.TlsSettings;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verb port over real TLS on 127.0.0.1, with certificates made in the test; each request opens a new connection,
 * so every one is a full handshake against the material in use at that moment.
 */
class TlsServerTest {
    private static final String KEY = "priority.lixueduan.com";
    private static final String SERVICE = "ext.team-a.svc";
    private static final List<String> SERVICE_NAMES =
            List.of("ext", "ext.team-a", SERVICE, "ext.team-a.svc.cluster.local");
    private static final String FILTER = "{\"Pod\":{},\"NodeNames\":[\"n1\",\"n2\"]}";

    @TempDir
    Path temp;

    private final StaticNodeCache cache = new StaticNodeCache().put("n1", "10").put("n2", null);
    private final HttpClient plain =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<ExtenderServer> servers = new ArrayList<>();
    private final Issued ca = TestPki.ca("profile-a-ca");
    private final Issued serving = TestPki.server(ca, "ext", SERVICE_NAMES);
    private final Issued scheduler = TestPki.client(ca, "scheduler-a");

    @AfterEach
    void stopServers() throws Exception {
        for (ExtenderServer server : servers) {
            server.close();
        }
    }

    private SecretDir secret(Issued serving, Issued... clientCas) {
        SecretDir dir = new SecretDir(temp.resolve("tls"));
        temp.resolve("tls").toFile().mkdirs();
        dir.write(files(serving, clientCas));
        return dir;
    }

    private static Map<String, String> files(Issued serving, Issued... clientCas) {
        StringBuilder bundle = new StringBuilder();
        for (Issued clientCa : clientCas) {
            bundle.append(clientCa.certPem());
        }
        return Map.of("tls.crt", serving.certPem(), "tls.key", serving.keyPem(), "client-ca.crt", bundle.toString());
    }

    private ExtenderServer start(TlsMode mode, SecretDir dir) throws Exception {
        return start(mode, dir, HttpLimits.withMaxBody(64 * 1024));
    }

    private ExtenderServer start(TlsMode mode, SecretDir dir, HttpLimits limits) throws Exception {
        TlsSettings tls = mode == TlsMode.disabled
                ? TlsSettings.disabled()
                : new TlsSettings(
                        mode,
                        dir.file("tls.crt"),
                        dir.file("tls.key"),
                        mode == TlsMode.mutual ? dir.file("client-ca.crt") : null,
                        Duration.ofMillis(100));
        ExtenderServer server = new ExtenderServer(
                "127.0.0.1",
                0,
                0,
                tls,
                limits,
                Duration.ofSeconds(2),
                new ExtenderVerbs(KEY, cache, args -> BindResult.bound()),
                cache::synced,
                new ExtenderMetrics());
        servers.add(server);
        return server.start();
    }

    /** One answer over a fresh TLS connection: the status and the certificate the server presented. */
    record Answer(int status, String body, X509Certificate serverCert, String protocol) {}

    /**
     * POSTs {@code body} to {@code path} over a new TLS connection to 127.0.0.1, presenting {@code host} as the server
     * name (SNI and hostname verification). Throws when the TLS layer refuses: no HTTP status is ever read then.
     */
    static Answer post(int port, SSLContext context, String host, String path, String body, String... protocols)
            throws IOException {
        Socket tcp = new Socket();
        tcp.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(tcp, host, port, true)) {
            socket.setSoTimeout(10_000);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            if (protocols.length > 0) {
                parameters.setProtocols(protocols);
            }
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Matcher status = Pattern.compile("^HTTP/1\\.1 (\\d{3})").matcher(response);
            if (!status.find()) {
                throw new IOException("no HTTP answer: " + response);
            }
            String answerBody = response.substring(response.indexOf("\r\n\r\n") + 4);
            return new Answer(
                    Integer.parseInt(status.group(1)),
                    answerBody,
                    (X509Certificate) socket.getSession().getPeerCertificates()[0],
                    socket.getSession().getProtocol());
        }
    }

    private static Answer filter(ExtenderServer server, SSLContext context) throws IOException {
        return post(server.port(), context, SERVICE, "/filter", FILTER);
    }

    private static void assertRefusedAtTheTlsLayer(ExtenderServer server, SSLContext context) {
        assertThatThrownBy(() -> filter(server, context))
                .as("refused during the handshake, before any HTTP status")
                .isInstanceOfAny(SSLException.class, SocketException.class);
    }

    private HttpResponse<String> health(ExtenderServer server, String method, String path) throws Exception {
        return plain.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.healthPort() + path))
                        .method(method, HttpRequest.BodyPublishers.ofString(method.equals("POST") ? FILTER : ""))
                        .header("Content-Type", "application/json")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the metric line that starts with {@code series} (NaN when absent). */
    private double metric(ExtenderServer server, String series) throws Exception {
        for (String line : health(server, "GET", "/metrics").body().split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return Double.NaN;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void mutualServesATrustedClientAndRefusesEveryOtherAtTheHandshake() throws Exception {
        ExtenderServer server = start(TlsMode.mutual, secret(serving, ca));
        Issued otherCa = TestPki.ca("profile-b-ca");
        Issued expired = TestPki.leaf(
                ca,
                "scheduler-a-old",
                List.of(),
                TestPki.ec(),
                Instant.now().minus(Duration.ofDays(10)),
                Duration.ofDays(1));

        Answer trusted = filter(server, TestPki.clientContext(scheduler, ca.cert()));

        assertThat(trusted.status()).isEqualTo(200);
        assertThat(trusted.body()).contains("\"NodeNames\":[\"n1\"]");
        assertThat(trusted.serverCert()).isEqualTo(serving.cert());
        assertRefusedAtTheTlsLayer(server, TestPki.clientContext(null, ca.cert()));
        assertRefusedAtTheTlsLayer(server, TestPki.clientContext(TestPki.client(otherCa, "scheduler-b"), ca.cert()));
        assertRefusedAtTheTlsLayer(server, TestPki.clientContext(expired, ca.cert()));
        assertThat(metric(server, "schedulerops_extender_requests_total{code=\"200\",verb=\"filter\"}"))
                .as("the refused connections never reached the handler")
                .isEqualTo(1.0);
        await("the three refused handshakes are counted", () -> {
            try {
                return metric(server, "schedulerops_extender_tls_handshake_failures_total") == 3.0;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void theServingCertificateVerifiesForTheServiceNameOnly() throws Exception {
        ExtenderServer server = start(TlsMode.mutual, secret(serving, ca));
        SSLContext context = TestPki.clientContext(scheduler, ca.cert());

        assertThat(post(server.port(), context, SERVICE, "/filter", FILTER).status())
                .isEqualTo(200);
        assertThat(post(server.port(), context, "ext.team-a.svc.cluster.local", "/filter", FILTER)
                        .status())
                .isEqualTo(200);
        assertThatThrownBy(() -> post(server.port(), context, "ext.team-b.svc", "/filter", FILTER))
                .isInstanceOf(SSLHandshakeException.class)
                .hasMessageContaining("ext.team-b.svc");
        assertThatThrownBy(() -> post(
                        server.port(),
                        TestPki.clientContext(scheduler, TestPki.ca("x").cert()),
                        SERVICE,
                        "/filter",
                        FILTER))
                .as("a client that trusts another CA does not accept the serving certificate")
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void speaksTls13AndTls12() throws Exception {
        ExtenderServer server = start(TlsMode.mutual, secret(serving, ca));
        SSLContext context = TestPki.clientContext(scheduler, ca.cert());

        assertThat(post(server.port(), context, SERVICE, "/filter", FILTER).protocol())
                .isEqualTo("TLSv1.3");
        assertThat(post(server.port(), context, SERVICE, "/filter", FILTER, "TLSv1.2"))
                .satisfies(answer -> {
                    assertThat(answer.protocol()).isEqualTo("TLSv1.2");
                    assertThat(answer.status()).isEqualTo(200);
                });
        assertThat(server.tls().factory().getSelectedProtocols()).containsExactlyInAnyOrder("TLSv1.3", "TLSv1.2");
    }

    /**
     * A TLS 1.2 client that asks for a new handshake on its connection (renegotiation, which would let it make the
     * server redo the costly half of a handshake as often as it likes) loses the connection instead.
     */
    @Test
    void aTls12ClientCannotRenegotiate() throws Exception {
        ExtenderServer server = start(TlsMode.mutual, secret(serving, ca));
        SSLContext context = TestPki.clientContext(scheduler, ca.cert());
        Socket tcp = new Socket();
        tcp.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
        try (SSLSocket socket =
                (SSLSocket) context.getSocketFactory().createSocket(tcp, SERVICE, server.port(), true)) {
            socket.setSoTimeout(10_000);
            socket.setEnabledProtocols(new String[] {"TLSv1.2"});
            socket.startHandshake();
            byte[] request = ("POST /filter HTTP/1.1\r\nHost: " + SERVICE + "\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + FILTER.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + FILTER)
                    .getBytes(StandardCharsets.UTF_8);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            assertThat(readAnswer(socket.getInputStream())).startsWith("HTTP/1.1 200");

            String afterRenegotiation;
            try {
                socket.startHandshake();
                socket.getOutputStream().write(request);
                socket.getOutputStream().flush();
                afterRenegotiation = readAnswer(socket.getInputStream());
            } catch (IOException refused) {
                afterRenegotiation = refused.toString();
            }

            assertThat(afterRenegotiation).doesNotStartWith("HTTP/1.1 200");
        }
        assertThat(server.tls().factory().isRenegotiationAllowed()).isFalse();
    }

    /**
     * A client that sends its TLS ClientHello one byte every 100 ms (a slowloris before any HTTP) loses the connection
     * at the header timeout, which counts from the first byte of the handshake.
     */
    @Test
    void aSlowHandshakeIsCutOffAtTheHeaderTimeout() throws Exception {
        Duration headerTimeout = Duration.ofSeconds(1);
        ExtenderServer server = start(
                TlsMode.mutual,
                secret(serving, ca),
                HttpLimits.withMaxBody(64 * 1024)
                        .withTimeouts(Duration.ofSeconds(30), headerTimeout, Duration.ofSeconds(30)));
        SSLEngine client = TestPki.clientContext(scheduler, ca.cert()).createSSLEngine(SERVICE, server.port());
        client.setUseClientMode(true);
        ByteBuffer hello = ByteBuffer.allocate(client.getSession().getPacketBufferSize());
        client.beginHandshake();
        client.wrap(ByteBuffer.allocate(0), hello);
        hello.flip();

        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(50);
            long started = System.nanoTime();
            Duration closedAfter = null;
            while (closedAfter == null && hello.hasRemaining() && System.nanoTime() - started < 8_000_000_000L) {
                try {
                    socket.getOutputStream().write(hello.get());
                    socket.getOutputStream().flush();
                    if (socket.getInputStream().read() < 0) {
                        closedAfter = Duration.ofNanos(System.nanoTime() - started);
                    }
                } catch (java.net.SocketTimeoutException stillOpen) {
                    Thread.sleep(50);
                } catch (IOException reset) {
                    closedAfter = Duration.ofNanos(System.nanoTime() - started);
                }
            }

            assertThat(hello.hasRemaining())
                    .as("the ClientHello was not all sent")
                    .isTrue();
            assertThat(closedAfter).isBetween(headerTimeout, headerTimeout.plusSeconds(3));
        }
    }

    /** One answer with a Content-Length body, read from a keep-alive connection; empty at end of stream. */
    private static String readAnswer(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            if (b < 0) {
                return head.toString();
            }
            head.append((char) b);
        }
        Matcher length = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        if (length.find()) {
            in.readNBytes(Integer.parseInt(length.group(1)));
        }
        return head.toString();
    }

    @Test
    void theHealthPortIsPlainHttpWithoutVerbsAndTheVerbPortHasOnlyReadiness() throws Exception {
        ExtenderServer server = start(TlsMode.mutual, secret(serving, ca));

        assertThat(health(server, "GET", "/healthz").statusCode()).isEqualTo(200);
        assertThat(health(server, "GET", "/readyz").statusCode()).isEqualTo(200);
        HttpResponse<String> metrics = health(server, "GET", "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("schedulerops_extender_tls_certificate_expiry_timestamp_seconds");
        assertThat(health(server, "POST", "/filter").statusCode()).isEqualTo(404);
        assertThat(health(server, "POST", "/bind").statusCode()).isEqualTo(404);
        SSLContext context = TestPki.clientContext(scheduler, ca.cert());
        for (String path : List.of("/healthz", "/metrics")) {
            assertThat(post(server.port(), context, SERVICE, path, "").status())
                    .as(path + " on the verb port")
                    .isEqualTo(404);
        }
        assertThat(post(server.port(), context, SERVICE, "/readyz", "").status())
                .as("/readyz is on the verb port too (for the scheduler pod's init container), for GET only")
                .isEqualTo(405);
    }

    @Test
    void theExpiryGaugeShowsTheServingCertificatesNotAfter() throws Exception {
        ExtenderServer server = start(TlsMode.mutual, secret(serving, ca));

        assertThat(metric(server, "schedulerops_extender_tls_certificate_expiry_timestamp_seconds"))
                .isEqualTo(serving.cert().getNotAfter().getTime() / 1000.0);
        assertThat(metric(server, "schedulerops_extender_tls_reloads_total{result=\"success\"}"))
                .isEqualTo(0.0);
        assertThat(metric(server, "schedulerops_extender_tls_reloads_total{result=\"failure\"}"))
                .isEqualTo(0.0);
    }

    @Test
    void aCaRotationNeverFailsAClientAndEndsWithTheOldCaRefused() throws Exception {
        SecretDir dir = secret(serving, ca);
        ExtenderServer server = start(TlsMode.mutual, dir);
        Issued newCa = TestPki.ca("profile-a-ca-2");
        Issued newServing = TestPki.server(newCa, "ext", SERVICE_NAMES);
        Issued newScheduler = TestPki.client(newCa, "scheduler-a-2");
        // The scheduler trusts both CAs for the serving certificate during the rotation (its ca.crt is a bundle).
        SSLContext oldClient = TestPki.clientContext(scheduler, ca.cert(), newCa.cert());
        SSLContext newClient = TestPki.clientContext(newScheduler, ca.cert(), newCa.cert());
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger answered = new AtomicInteger();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        Thread loop = new Thread(() -> {
            while (running.get()) {
                try {
                    int status = filter(server, oldClient).status();
                    if (status != 200) {
                        failures.add("status " + status);
                    }
                    answered.incrementAndGet();
                } catch (IOException e) {
                    failures.add(e.toString());
                }
            }
        });
        loop.start();
        try {
            await("a few answers before the swap", () -> answered.get() >= 5);

            dir.write(files(newServing, ca, newCa));
            await(
                    "the new serving certificate",
                    () -> server.tls().current().leaf().equals(newServing.cert()));
            int atSwap = answered.get();
            await("answers after the swap", () -> answered.get() >= atSwap + 20);
        } finally {
            running.set(false);
            loop.join(10_000);
        }

        assertThat(failures).as("the client loop during the swap").isEmpty();
        assertThat(filter(server, oldClient).serverCert()).isEqualTo(newServing.cert());
        assertThat(filter(server, oldClient).status()).isEqualTo(200);
        assertThat(filter(server, newClient).status()).isEqualTo(200);
        assertThat(metric(server, "schedulerops_extender_tls_certificate_expiry_timestamp_seconds"))
                .isEqualTo(newServing.cert().getNotAfter().getTime() / 1000.0);

        dir.write(files(newServing, newCa));
        await(
                "the old CA to be dropped",
                () -> server.tls().current().clientCas().size() == 1);

        assertRefusedAtTheTlsLayer(server, oldClient);
        assertThat(filter(server, newClient).status()).isEqualTo(200);
        assertThat(metric(server, "schedulerops_extender_tls_reloads_total{result=\"success\"}"))
                .isEqualTo(2.0);
        assertThat(metric(server, "schedulerops_extender_tls_reloads_total{result=\"failure\"}"))
                .as("an atomic swap of the Secret's files is never seen half-written")
                .isEqualTo(0.0);
    }

    @Test
    void badNewMaterialKeepsTheOldInUseAndIsCounted() throws Exception {
        SecretDir dir = secret(serving, ca);
        ExtenderServer server = start(TlsMode.mutual, dir);
        SSLContext client = TestPki.clientContext(scheduler, ca.cert());
        String failures = "schedulerops_extender_tls_reloads_total{result=\"failure\"}";
        Issued unrelated = TestPki.server(ca, "ext", SERVICE_NAMES);

        dir.write(Map.of(
                "tls.crt",
                "-----BEGIN CERTIFICATE-----\nnot base64!\n",
                "tls.key",
                serving.keyPem(),
                "client-ca.crt",
                ca.certPem()));
        await("the failure to be counted", () -> metricQuietly(server, failures) == 1.0);
        assertThat(filter(server, client))
                .satisfies(answer -> assertThat(answer.status()).isEqualTo(200))
                .satisfies(answer -> assertThat(answer.serverCert()).isEqualTo(serving.cert()));

        // A certificate whose key is not the one in tls.key.
        dir.write(Map.of("tls.crt", unrelated.certPem(), "tls.key", serving.keyPem(), "client-ca.crt", ca.certPem()));
        await("the second failure to be counted", () -> metricQuietly(server, failures) == 2.0);
        assertThat(filter(server, client).serverCert()).isEqualTo(serving.cert());

        // An empty client CA bundle would lock every client out: refused as well.
        dir.write(Map.of("tls.crt", serving.certPem(), "tls.key", serving.keyPem(), "client-ca.crt", ""));
        await("the third failure to be counted", () -> metricQuietly(server, failures) == 3.0);
        assertThat(filter(server, client).status()).isEqualTo(200);

        dir.write(files(unrelated, ca));
        await("good material to be taken", () -> server.tls().current().leaf().equals(unrelated.cert()));
        assertThat(filter(server, client).serverCert()).isEqualTo(unrelated.cert());
        assertThat(metric(server, "schedulerops_extender_tls_reloads_total{result=\"success\"}"))
                .isEqualTo(1.0);
        assertThat(metric(server, failures))
                .as("the same bad content is counted once")
                .isEqualTo(3.0);
    }

    private double metricQuietly(ExtenderServer server, String series) {
        try {
            return metric(server, series);
        } catch (Exception e) {
            return Double.NaN;
        }
    }

    @Test
    void serverModeNeedsNoClientCertificate() throws Exception {
        ExtenderServer server = start(TlsMode.server, secret(serving));

        Answer anonymous = filter(server, TestPki.clientContext(null, ca.cert()));

        assertThat(anonymous.status()).isEqualTo(200);
        assertThat(anonymous.serverCert()).isEqualTo(serving.cert());
        assertThat(health(server, "GET", "/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void anRsaServingKeyWorksToo() throws Exception {
        Issued rsa = TestPki.leaf(
                ca, "ext", SERVICE_NAMES, TestPki.rsa(), Instant.now().minus(Duration.ofHours(1)), Duration.ofDays(1));
        ExtenderServer server = start(TlsMode.mutual, secret(rsa, ca));

        Answer answer = filter(server, TestPki.clientContext(scheduler, ca.cert()));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.serverCert().getPublicKey().getAlgorithm()).isEqualTo("RSA");
    }

    @Test
    void disabledServesPlainHttpAsBefore() throws Exception {
        ExtenderServer server = start(TlsMode.disabled, null);

        HttpResponse<String> response = plain.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/filter"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(FILTER))
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(server.tls()).isNull();
        assertThat(health(server, "GET", "/metrics").body()).doesNotContain("schedulerops_extender_tls_");
    }

    @Test
    void startingWithUnusableMaterialNamesTheFile() throws Exception {
        SecretDir dir = secret(serving, ca);
        TlsSettings missingCa = new TlsSettings(
                TlsMode.mutual,
                dir.file("tls.crt"),
                dir.file("tls.key"),
                temp.resolve("nowhere/client-ca.crt"),
                Duration.ofSeconds(10));
        ExtenderServer server = new ExtenderServer(
                "127.0.0.1",
                0,
                0,
                missingCa,
                HttpLimits.withMaxBody(1024),
                Duration.ZERO,
                new ExtenderVerbs(KEY, cache, args -> BindResult.bound()),
                cache::synced,
                new ExtenderMetrics());
        servers.add(server);

        assertThatThrownBy(server::start)
                .isInstanceOf(TlsMaterialException.class)
                .hasMessageContaining(temp.resolve("nowhere/client-ca.crt").toString())
                .hasMessageContaining("no such file");
    }
}
