package dev.schedulerops.operator.runtime;

import dev.schedulerops.httpguard.ConnectionGuard;
import dev.schedulerops.httpguard.GuardLimits;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * /healthz (liveness), /readyz (readiness) and /metrics (Prometheus text) on one small Jetty server. Jetty reads
 * requests as their bytes arrive without holding a thread, and a {@link ConnectionGuard} ({@link GuardLimits#HEALTH_PORT})
 * closes a connection that sends nothing or trickles once it is 5 s old, holds each source address to 8 connections
 * and never stops accepting, so that no other client, silent, slow or many, can starve the kubelet's liveness probe
 * and get the operator restarted.
 */
public final class HttpEndpoints implements AutoCloseable {
    /** How long a connection may stay idle between requests (the guard's lifetime bounds it in any case). */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(5);

    static final int MAX_REQUEST_HEADER_BYTES = 4096;

    private final Server server;
    private final ServerConnector connector;
    private final ConnectionGuard guard;

    private HttpEndpoints(Server server, ServerConnector connector, ConnectionGuard guard) {
        this.server = server;
        this.connector = connector;
        this.guard = guard;
    }

    public static HttpEndpoints start(
            String bindAddress, int port, BooleanSupplier live, BooleanSupplier ready, Supplier<String> metrics) {
        QueuedThreadPool threads = new QueuedThreadPool(8, 2);
        threads.setName("http-endpoints");
        threads.setDaemon(true);
        Server server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setRequestHeaderSize(MAX_REQUEST_HEADER_BYTES);
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(bindAddress);
        connector.setPort(port);
        connector.setIdleTimeout(IDLE_TIMEOUT.toMillis());
        server.addConnector(connector);
        ConnectionGuard guard = ConnectionGuard.on(connector, GuardLimits.HEALTH_PORT);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String method = request.getMethod();
                if (!HttpMethod.GET.is(method) && !HttpMethod.HEAD.is(method)) {
                    respond(response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, "text/plain", "");
                    return true;
                }
                switch (Request.getPathInContext(request)) {
                    case "/healthz" -> probe(response, callback, live);
                    case "/readyz" -> probe(response, callback, ready);
                    case "/metrics" -> respond(
                            response,
                            callback,
                            HttpStatus.OK_200,
                            "text/plain; version=0.0.4; charset=utf-8",
                            metrics.get());
                    default -> respond(response, callback, HttpStatus.NOT_FOUND_404, "text/plain", "not found\n");
                }
                return true;
            }
        });
        server.setStopTimeout(0); // nothing to finish: probes and scrapes are retried
        try {
            server.start();
        } catch (Exception e) {
            throw new IllegalStateException(
                    "could not serve /healthz, /readyz and /metrics on " + bindAddress + ":" + port + ": "
                            + e.getMessage(),
                    e);
        }
        return new HttpEndpoints(server, connector, guard);
    }

    public int port() {
        return connector.getLocalPort();
    }

    /** What guards the port (its connections, and what it closed). */
    public ConnectionGuard guard() {
        return guard;
    }

    private static void probe(Response response, Callback callback, BooleanSupplier check) {
        boolean ok;
        try {
            ok = check.getAsBoolean();
        } catch (RuntimeException e) {
            ok = false;
        }
        respond(
                response,
                callback,
                ok ? HttpStatus.OK_200 : HttpStatus.SERVICE_UNAVAILABLE_503,
                "text/plain; charset=utf-8",
                ok ? "ok\n" : "not ok\n");
    }

    private static void respond(Response response, Callback callback, int status, String type, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("could not stop the HTTP endpoints", e);
        }
    }
}
