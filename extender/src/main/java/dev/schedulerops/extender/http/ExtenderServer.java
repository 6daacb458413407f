package dev.schedulerops.extender.http;

import dev.schedulerops.extender.tls.TlsReloader;
import dev.schedulerops.extender.tls.TlsSettings;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.httpguard.ConnectionGuard;
import dev.schedulerops.httpguard.GuardLimits;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's HTTP server: Jetty 12 core (no servlets) with two ports. The verb port serves only the extender
 * verbs, over plain HTTP or, with TLS, over HTTPS (TLS 1.2 and 1.3; in mutual mode a client certificate from a
 * trusted CA is required at the handshake). The health port serves only /healthz, /readyz and /metrics, always plain
 * HTTP, so probes and scrapers need no certificate; a {@link ConnectionGuard} keeps it answering the kubelet whatever
 * else connects to it. {@link #stop()} first turns readiness off, then lets in-flight
 * requests finish within the shutdown grace period.
 */
public final class ExtenderServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);

    /** Request line and headers together; kube-scheduler sends a few hundred bytes. Larger: 431 (414 for the URI). */
    static final int REQUEST_HEADER_BYTES = 8 * 1024;

    private final Server server;
    private final ServerConnector verbConnector;
    private final ServerConnector healthConnector;
    private final TlsSettings tls;
    private final TlsReloader reloader;
    private final BodyBudget budget;
    private final ReadDeadlines deadlines;
    private final ConnectionGuard healthGuard;
    private volatile boolean stopping;

    /** Plain HTTP verbs on {@code port}, the health endpoints on a free port ({@link #healthPort()}). */
    public ExtenderServer(
            String bindAddress,
            int port,
            HttpLimits limits,
            Duration shutdownGrace,
            ExtenderVerbs verbs,
            BooleanSupplier cacheReady,
            ExtenderMetrics metrics) {
        this(bindAddress, port, 0, TlsSettings.disabled(), limits, shutdownGrace, verbs, cacheReady, metrics);
    }

    public ExtenderServer(
            String bindAddress,
            int port,
            int healthPort,
            TlsSettings tls,
            HttpLimits limits,
            Duration shutdownGrace,
            ExtenderVerbs verbs,
            BooleanSupplier cacheReady,
            ExtenderMetrics metrics) {
        this.tls = tls;
        QueuedThreadPool threads = new QueuedThreadPool(200, 8);
        threads.setName("extender-http");
        server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        http.setOutputBufferSize(64 * 1024);
        http.setRequestHeaderSize(REQUEST_HEADER_BYTES);
        if (tls.enabled()) {
            reloader = new TlsReloader(tls, metrics::tlsReloaded);
            metrics.tls(reloader::certificateExpiryEpochSeconds);
            // Jetty would refuse (400 "Invalid SNI") a request whose Host is not a name in the serving certificate,
            // e.g. a call to a pod IP. The client checks the server's name; who may call is decided by the client
            // certificate, so the host check adds nothing here.
            HttpConfiguration https = new HttpConfiguration(http);
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false);
            https.addCustomizer(secure);
            verbConnector = new ServerConnector(
                    server,
                    new SslConnectionFactory(reloader.factory(), HttpVersion.HTTP_1_1.asString()),
                    new HttpConnectionFactory(https));
            verbConnector.addBean(metrics.tlsHandshakeFailures());
        } else {
            reloader = null;
            verbConnector = new ServerConnector(server, new HttpConnectionFactory(http));
        }
        verbConnector.setName("verbs");
        verbConnector.setHost(bindAddress);
        verbConnector.setPort(port);
        verbConnector.setAcceptQueueSize(256);
        server.addConnector(verbConnector);
        healthConnector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        healthConnector.setName("health");
        healthConnector.setHost(bindAddress);
        healthConnector.setPort(healthPort);
        server.addConnector(healthConnector);
        budget = new BodyBudget(limits.bodyBudgetBytes());
        deadlines = new ReadDeadlines(limits.headerTimeout(), limits.bodyTimeout(), server.getScheduler());
        server.addBean(deadlines);
        for (ServerConnector connector : new ServerConnector[] {verbConnector, healthConnector}) {
            connector.setIdleTimeout(limits.idleTimeout().toMillis());
            connector.addBean(deadlines, false);
        }
        server.addBean(new NetworkConnectionLimit(limits.maxConnections(), verbConnector));
        // Not a connection limit, which stops accepting and so queues the kubelet's probe behind whoever holds the
        // slots: the guard keeps accepting, and holds each source to its share and each connection to a lifetime.
        healthGuard = ConnectionGuard.on(healthConnector, GuardLimits.HEALTH_PORT);
        metrics.limits(budget, deadlines);
        metrics.healthPortGuard(healthGuard);
        BooleanSupplier ready = () -> !stopping && cacheReady.getAsBoolean();
        server.setHandler(new GracefulHandler(new ExtenderHandler(
                verbs,
                metrics,
                ready,
                () -> stopping,
                limits.maxBodyBytes(),
                budget,
                new LargeBodies(limits.bodyBudgetBytes() / 2),
                deadlines,
                request -> request.getConnectionMetaData().getConnector() == healthConnector)));
        server.setErrorHandler(new ProtocolErrorHandler());
        server.setStopTimeout(shutdownGrace.toMillis());
        server.setStopAtShutdown(false);
    }

    /**
     * Loads the TLS material (a {@link dev.schedulerops.extender.tls.TlsMaterialException} names the file and what is
     * wrong), starts both ports and, with TLS, the watch on the files.
     */
    public ExtenderServer start() throws Exception {
        if (reloader != null) {
            reloader.load();
        }
        server.start();
        if (reloader != null) {
            reloader.start();
        }
        LOG.info(
                "extender listening on {}:{} ({}) for the verbs and on port {} (plain HTTP) for /healthz, /readyz,"
                        + " /metrics",
                verbConnector.getHost(),
                port(),
                switch (tls.mode()) {
                    case disabled -> "plain HTTP, TLS disabled: anyone who reaches the port can call every verb";
                    case server -> "HTTPS, no client certificate required";
                    case mutual -> "HTTPS, client certificate required";
                },
                healthPort());
        return this;
    }

    /** The bound verb port (useful when started on port 0). */
    public int port() {
        return verbConnector.getLocalPort();
    }

    /** The bound health port (useful when started on port 0). */
    public int healthPort() {
        return healthConnector.getLocalPort();
    }

    /** What guards the health port (its connections, and what it closed). */
    public ConnectionGuard healthGuard() {
        return healthGuard;
    }

    /** The memory request bodies hold now, reserved in the body budget. */
    public long bodyBytesHeld() {
        return budget.reserved();
    }

    /** The TLS material's reloader; null when TLS is disabled. */
    public TlsReloader tls() {
        return reloader;
    }

    /**
     * Stops as a deleted pod should: {@code /readyz} answers 503 at once and every verb answer closes its connection,
     * for {@code delay}, while the Service's endpoints drop this pod on every node; a kept-alive connection that stays
     * idle is closed after {@link #STOPPING_IDLE_TIMEOUT}, so the client drops it from its pool before the ports close.
     * Only then are the connectors closed and in-flight requests given the shutdown grace. Stopping at once refuses
     * (503) what still arrives through a kube-proxy that has not yet removed the pod, or on a kept-alive connection:
     * kube-scheduler reports that as a failed scheduling attempt, or, with {@code ignorable: true}, places the pod
     * without the extender.
     */
    public void stop(Duration delay) throws Exception {
        stopping = true;
        boolean interrupted = false;
        try {
            if (!delay.isZero() && !delay.isNegative()) {
                LOG.info(
                        "extender stopping: not ready, still serving for {} ms (each answer closes its connection)"
                                + " while the Service's endpoints drop this pod",
                        delay.toMillis());
                closeIdleConnectionsSoon();
                Thread.sleep(delay.toMillis());
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            stop();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** How long a verb connection may stay idle once stopping has begun. */
    static final Duration STOPPING_IDLE_TIMEOUT = Duration.ofSeconds(1);

    private void closeIdleConnectionsSoon() {
        long millis = Math.min(STOPPING_IDLE_TIMEOUT.toMillis(), verbConnector.getIdleTimeout());
        verbConnector.setIdleTimeout(millis);
        for (EndPoint endPoint : verbConnector.getConnectedEndPoints()) {
            endPoint.setIdleTimeout(millis);
        }
    }

    /** Stops at once: readiness turns off, and in-flight requests get the shutdown grace to finish. */
    public void stop() throws Exception {
        stopping = true;
        LOG.info("extender stopping, waiting up to {} ms for in-flight requests", server.getStopTimeout());
        if (reloader != null) {
            reloader.close();
        }
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
        } else if (reloader != null) {
            reloader.close();
        }
    }
}
