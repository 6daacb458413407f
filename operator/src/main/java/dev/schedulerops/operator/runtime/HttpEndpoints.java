package dev.schedulerops.operator.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** /healthz (liveness), /readyz (readiness) and /metrics (Prometheus text) on one small HTTP server. */
public final class HttpEndpoints implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;

    private HttpEndpoints(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    public static HttpEndpoints start(
            String bindAddress, int port, BooleanSupplier live, BooleanSupplier ready, Supplier<String> metrics)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(bindAddress, port), 16);
        server.createContext("/healthz", exchange -> probe(exchange, live));
        server.createContext("/readyz", exchange -> probe(exchange, ready));
        server.createContext(
                "/metrics",
                exchange -> respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.get()));
        ExecutorService executor = Executors.newFixedThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "http-endpoints");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.start();
        return new HttpEndpoints(server, executor);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void probe(HttpExchange exchange, BooleanSupplier check) throws IOException {
        boolean ok;
        try {
            ok = check.getAsBoolean();
        } catch (RuntimeException e) {
            ok = false;
        }
        respond(exchange, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "not ok\n");
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", contentType);
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(1);
        executor.shutdownNow();
    }
}
