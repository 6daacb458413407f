package dev.schedulerops.extender.http;

import dev.schedulerops.extender.verbs.ExtenderVerbs;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's HTTP server: Jetty 12 core (no servlets), one port for the verbs, health, readiness and metrics.
 * {@link #stop()} first turns readiness off, then lets in-flight requests finish within the shutdown grace period.
 */
public final class ExtenderServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);

    private final Server server;
    private final ServerConnector connector;
    private volatile boolean stopping;

    public ExtenderServer(
            String bindAddress,
            int port,
            int maxBodyBytes,
            Duration shutdownGrace,
            ExtenderVerbs verbs,
            BooleanSupplier cacheReady,
            ExtenderMetrics metrics) {
        QueuedThreadPool threads = new QueuedThreadPool(200, 8);
        threads.setName("extender-http");
        server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        http.setOutputBufferSize(64 * 1024);
        connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost(bindAddress);
        connector.setPort(port);
        connector.setAcceptQueueSize(256);
        server.addConnector(connector);
        BooleanSupplier ready = () -> !stopping && cacheReady.getAsBoolean();
        server.setHandler(new GracefulHandler(new ExtenderHandler(verbs, metrics, ready, maxBodyBytes)));
        server.setStopTimeout(shutdownGrace.toMillis());
        server.setStopAtShutdown(false);
    }

    public ExtenderServer start() throws Exception {
        server.start();
        LOG.info("extender listening on {}:{}", connector.getHost(), port());
        return this;
    }

    /** The bound port (useful when started on port 0). */
    public int port() {
        return connector.getLocalPort();
    }

    /** Stops accepting work and waits (up to the grace period) for in-flight requests to complete. */
    public void stop() throws Exception {
        stopping = true;
        LOG.info("extender stopping, waiting up to {} ms for in-flight requests", server.getStopTimeout());
        server.stop();
        LOG.info("extender stopped");
    }

    public void join() throws InterruptedException {
        server.join();
    }

    @Override
    public void close() throws Exception {
        if (!server.isStopped()) {
            stop();
        }
    }
}
