package dev.schedulerops.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;

/**
 * Just enough of a Kubernetes API server for the extender's node cache, so that the extender jar can answer
 * names-only requests in a benchmark without a cluster: {@code GET /api/v1/nodes} lists NODES nodes (names and labels
 * of {@link NodeJson}, one page) and a watch stays open without events. Everything else is 404.
 *
 * <pre>FakeNodesApi NODES KUBECONFIG_OUT</pre>
 *
 * Listens on a free port of 127.0.0.1, writes a kubeconfig for it to KUBECONFIG_OUT, prints "ready" and serves until
 * killed.
 */
public final class FakeNodesApi {
    private FakeNodesApi() {}

    public static void main(String[] args) throws IOException {
        int nodes = Integer.parseInt(args[0]);
        Path kubeconfig = Path.of(args[1]);
        byte[] list = nodeList(nodes);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/api/v1/nodes", exchange -> {
            String query = exchange.getRequestURI().getQuery();
            if (query != null && query.contains("watch=true")) {
                watchForever(exchange);
            } else {
                reply(exchange, 200, list);
            }
        });
        server.createContext("/", exchange -> reply(exchange, 404, "{\"kind\":\"Status\",\"code\":404}".getBytes()));
        server.start();
        Files.writeString(
                kubeconfig,
                """
                apiVersion: v1
                kind: Config
                clusters: [{name: fake, cluster: {server: "http://127.0.0.1:%d"}}]
                users: [{name: fake, user: {token: fake}}]
                contexts: [{name: fake, context: {cluster: fake, user: fake}}]
                current-context: fake
                """
                        .formatted(server.getAddress().getPort()));
        System.out.println("ready on port " + server.getAddress().getPort());
    }

    private static byte[] nodeList(int count) {
        StringBuilder json = new StringBuilder("{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":"
                + "{\"resourceVersion\":\"1\"},\"items\":[");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                json.append(',');
            }
            String value = NodeJson.labelValue(i);
            json.append("{\"metadata\":{\"name\":\"")
                    .append(NodeJson.name(i))
                    .append("\",\"resourceVersion\":\"1\",\"labels\":{\"kubernetes.io/os\":\"linux\"");
            if (value != null) {
                json.append(",\"")
                        .append(NodeJson.LABEL_KEY)
                        .append("\":\"")
                        .append(value)
                        .append('"');
            }
            json.append("}}}");
        }
        return json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void watchForever(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            out.flush();
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void reply(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
