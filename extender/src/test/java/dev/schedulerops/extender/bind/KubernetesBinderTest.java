package dev.schedulerops.extender.bind;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.schedulerops.extender.protocol.BindingArgs;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The binder against a local stand-in for the API server's {@code pods/binding} endpoint. */
class KubernetesBinderTest {
    private static final BindingArgs ARGS = new BindingArgs("web 1", "demo", "u-1", "n1");

    private final List<String> requests = new CopyOnWriteArrayList<>();
    private HttpServer apiServer;
    private volatile int status = 201;
    private volatile String reply = "{}";

    @BeforeEach
    void start() throws IOException {
        apiServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        apiServer.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            requests.add(exchange.getRequestMethod() + " "
                    + exchange.getRequestURI().getRawPath() + " " + new String(body, StandardCharsets.UTF_8));
            byte[] out = reply.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, out.length == 0 ? -1 : out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        apiServer.start();
    }

    @AfterEach
    void stop() {
        apiServer.stop(0);
    }

    private static KubernetesClient client(String masterUrl) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(masterUrl)
                .withRequestRetryBackoffLimit(0)
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private String apiUrl(String suffix) {
        return "http://127.0.0.1:" + apiServer.getAddress().getPort() + suffix;
    }

    @Test
    void postsTheBindingToThePodsSubresourceAndReportsSuccessAsEmpty() {
        try (KubernetesClient client = client(apiUrl("//"))) {
            KubernetesBinder binder = new KubernetesBinder(client, Duration.ofSeconds(5));

            assertThat(binder.bind(ARGS)).isEmpty();
            assertThat(binder.bind(ARGS)).isEmpty();
        }
        assertThat(requests).hasSize(2).allSatisfy(request -> assertThat(request)
                .startsWith("POST /api/v1/namespaces/demo/pods/web%201/binding {")
                .contains("\"uid\":\"u-1\"")
                .contains("\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\"}"));
    }

    @Test
    void aRefusalCarriesTheStatusMessage() {
        status = 409;
        reply = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                + "\"message\":\"pod web 1 is already assigned to node n0\",\"code\":409}";
        try (KubernetesClient client = client(apiUrl(""))) {
            assertThat(new KubernetesBinder(client, Duration.ofSeconds(5)).bind(ARGS))
                    .isEqualTo("binding pod demo/web 1 to node n1 failed: HTTP 409: pod web 1 is already assigned to"
                            + " node n0");
        }
    }

    @Test
    void aRefusalWithoutAStatusCarriesTheBody() {
        status = 500;
        reply = "  upstream exploded\n";
        try (KubernetesClient client = client(apiUrl(""))) {
            KubernetesBinder binder = new KubernetesBinder(client, Duration.ofSeconds(5));
            assertThat(binder.bind(ARGS))
                    .isEqualTo("binding pod demo/web 1 to node n1 failed: HTTP 500: upstream exploded");

            reply = "";
            assertThat(binder.bind(ARGS)).isEqualTo("binding pod demo/web 1 to node n1 failed: HTTP 500");
        }
    }

    @Test
    void anUnreachableApiServerIsAFailureNamingTheCause() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        try (KubernetesClient client = client("http://127.0.0.1:" + closedPort)) {
            assertThat(new KubernetesBinder(client, Duration.ofSeconds(5)).bind(ARGS))
                    .startsWith("binding pod demo/web 1 to node n1 failed: ")
                    .contains("Exception");
        }
    }
}
