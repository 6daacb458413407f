package dev.schedulerops.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.schedulerops.operator.preview.LoopbackPorts;
import dev.schedulerops.operator.tls.CertificateIssuer;
import dev.schedulerops.operator.tls.Issued;
import dev.schedulerops.operator.tls.RotationPolicy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class AwaitExtenderCommandTest {
    private static final Duration PAUSE = Duration.ofMillis(50);

    @Test
    void waitsUntilThePortAnswersAndTakesAnyStatusAsAnAnswer() throws Exception {
        int port = LoopbackPorts.free();
        HttpServer[] server = new HttpServer[1];
        AtomicInteger requests = new AtomicInteger();
        Set<Integer> connections = ConcurrentHashMap.newKeySet();
        CompletableFuture<Void> later = CompletableFuture.runAsync(
                () -> {
                    try {
                        server[0] = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
                        server[0].createContext("/readyz", exchange -> {
                            requests.incrementAndGet();
                            connections.add(exchange.getRemoteAddress().getPort());
                            exchange.sendResponseHeaders(503, -1);
                            exchange.close();
                        });
                        server[0].start();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                CompletableFuture.delayedExecutor(600, TimeUnit.MILLISECONDS));
        try {
            AwaitExtenderCommand.Outcome outcome = AwaitExtenderCommand.await(
                    () -> AwaitExtenderCommand.client(null),
                    URI.create("http://127.0.0.1:" + port + "/readyz"),
                    Duration.ofSeconds(10),
                    PAUSE,
                    3);

            assertThat(outcome.answered()).isTrue();
            assertThat(outcome.detail()).isEqualTo("HTTP 503");
            assertThat(outcome.attempts())
                    .as("refused until the server started")
                    .isGreaterThan(1);
        } finally {
            later.join();
            server[0].stop(0);
        }
    }

    @Test
    void givesUpAfterItsTimeoutSayingWhatFailedLast() throws Exception {
        int port = LoopbackPorts.free();
        Instant start = Instant.now();

        AwaitExtenderCommand.Outcome outcome = AwaitExtenderCommand.await(
                () -> AwaitExtenderCommand.client(null),
                URI.create("http://127.0.0.1:" + port + "/readyz"),
                Duration.ofMillis(700),
                PAUSE,
                1);

        assertThat(outcome.answered()).isFalse();
        assertThat(outcome.attempts()).isGreaterThan(1);
        assertThat(outcome.detail()).contains("ConnectException");
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void talksMutualTlsWithTheSchedulersCertificateAndIsRefusedWithoutIt() throws Exception {
        CertificateIssuer issuer = new CertificateIssuer();
        Instant now = Instant.now();
        RotationPolicy.Validity valid = new RotationPolicy.Validity(now.minusSeconds(60), now.plusSeconds(3600));
        Issued ca = issuer.ca("profile-ca", valid);
        Issued serving = issuer.serving(ca, List.of("localhost"), valid);
        Issued scheduler = issuer.client(ca, "scheduler", valid);
        SSLContext serverContext =
                AwaitExtenderCommand.sslContext(ca.certificatePem(), serving.certificatePem(), serving.keyPem());
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverContext) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters parameters = serverContext.getDefaultSSLParameters();
                parameters.setNeedClientAuth(true);
                params.setSSLParameters(parameters);
            }
        });
        server.createContext("/readyz", exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        URI url = URI.create("https://localhost:" + server.getAddress().getPort() + "/readyz");
        try {
            HttpClient withCertificate = HttpClient.newBuilder()
                    .sslContext(AwaitExtenderCommand.sslContext(
                            ca.certificatePem(), scheduler.certificatePem(), scheduler.keyPem()))
                    .build();
            HttpClient withoutCertificate = HttpClient.newBuilder()
                    .sslContext(AwaitExtenderCommand.sslContext(ca.certificatePem(), null, null))
                    .build();

            AwaitExtenderCommand.Outcome answered =
                    AwaitExtenderCommand.await(() -> withCertificate, url, Duration.ofSeconds(10), PAUSE, 1);
            AwaitExtenderCommand.Outcome refused =
                    AwaitExtenderCommand.await(() -> withoutCertificate, url, Duration.ofMillis(500), PAUSE, 1);

            assertThat(answered.answered()).isTrue();
            assertThat(answered.detail()).isEqualTo("HTTP 200");
            assertThat(answered.attempts()).isEqualTo(1);
            assertThat(refused.answered()).as("a failed handshake is no answer").isFalse();
            // With TLS 1.3 the server's refusal of the missing certificate arrives after the client's handshake ends.
            assertThat(refused.detail()).doesNotStartWith("HTTP");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void unreadableTlsFilesStillLetKubeSchedulerStart() {
        StringWriter out = new StringWriter();
        int exit = new CommandLine(new AwaitExtenderCommand())
                .setOut(new PrintWriter(out))
                .execute("--url=https://localhost:1/readyz", "--ca-file=/nonexistent/ca.crt", "--timeout-seconds=1");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("cannot wait for the extender").contains("/nonexistent/ca.crt");
    }
}
