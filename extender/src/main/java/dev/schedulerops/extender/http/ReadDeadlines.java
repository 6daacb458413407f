package dev.schedulerops.extender.http;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes connections whose requests arrive too slowly. Jetty's idle timeout restarts with every byte, so a client
 * that sends one header byte a second would hold its connection for ever ("slowloris"); Jetty 12 has no deadline of
 * its own for request headers or bodies. Here every connection gets two:
 *
 * <ul>
 *   <li>from the first byte that arrives after the previous answer (or on a new connection, the TLS handshake
 *       included) until the request's headers are complete: {@code headerTimeout};
 *   <li>from then until its body is complete: {@code bodyTimeout}.
 * </ul>
 *
 * An idle keep-alive connection has neither: nothing arrives, so Jetty's idle timeout closes it. The deadlines are
 * checked a few times a second by one task; a connection is closed within a fraction of a second after its deadline.
 * A connection is known by its network connection (the TLS one when TLS is on), so that the handshake counts too.
 */
final class ReadDeadlines extends AbstractLifeCycle implements Connection.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(ReadDeadlines.class);

    private final long headerNanos;
    private final long bodyNanos;
    private final long sweepNanos;
    private final Scheduler scheduler;
    private final Map<Connection, Watch> watched = new ConcurrentHashMap<>();
    private final LongAdder headerTimeouts = new LongAdder();
    private final LongAdder bodyTimeouts = new LongAdder();
    private volatile Scheduler.Task next;

    ReadDeadlines(Duration headerTimeout, Duration bodyTimeout, Scheduler scheduler) {
        this.headerNanos = headerTimeout.toNanos();
        this.bodyNanos = bodyTimeout.toNanos();
        long shortest = Math.min(headerNanos, bodyNanos);
        this.sweepNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(50), Math.min(shortest / 4, 250_000_000L));
        this.scheduler = scheduler;
    }

    /** One connection: what it is doing, and since when. Written by the request's threads, read by the sweep. */
    private static final class Watch {
        final Connection connection;
        /** Since a request's headers were complete, until its body was read; 0 otherwise. */
        volatile long readingBodySince;
        /** Between a request's headers and its answer's end: no header deadline then. */
        volatile boolean inRequest;
        /** The connection's bytes in when it last became quiet (opened, or an answer ended). */
        volatile long quietBytesIn;
        /** When the sweep first saw bytes of a next request (or handshake) arrive; 0 while none have. */
        volatile long headersSince;

        Watch(Connection connection) {
            this.connection = connection;
        }
    }

    @Override
    public void onOpened(Connection connection) {
        if (!(connection.getEndPoint() instanceof EndPoint.Wrapper)) {
            watched.put(connection, new Watch(connection));
        }
    }

    @Override
    public void onClosed(Connection connection) {
        watched.remove(connection);
    }

    /** A request's headers are complete; its body is about to be read. */
    void headersRead(Request request) {
        Watch watch = watchOf(request);
        if (watch != null) {
            watch.inRequest = true;
            watch.headersSince = 0;
            watch.readingBodySince = System.nanoTime();
        }
    }

    /** The request's body was read (or there is none to read). */
    void bodyRead(Request request) {
        Watch watch = watchOf(request);
        if (watch != null) {
            watch.readingBodySince = 0;
        }
    }

    /** The request was answered (or failed): what arrives from now on belongs to the next one. */
    void answered(Request request) {
        Watch watch = watchOf(request);
        if (watch != null) {
            watch.readingBodySince = 0;
            watch.quietBytesIn = watch.connection.getBytesIn();
            watch.headersSince = 0;
            watch.inRequest = false;
        }
    }

    /** Connections closed because their headers took too long. */
    long headerTimeouts() {
        return headerTimeouts.sum();
    }

    /** Connections closed because their body took too long. */
    long bodyTimeouts() {
        return bodyTimeouts.sum();
    }

    private Watch watchOf(Request request) {
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        while (endPoint instanceof EndPoint.Wrapper wrapper) {
            endPoint = wrapper.unwrap();
        }
        Connection network = endPoint.getConnection();
        return network == null ? null : watched.get(network);
    }

    @Override
    protected void doStart() {
        schedule();
    }

    @Override
    protected void doStop() {
        Scheduler.Task task = next;
        if (task != null) {
            task.cancel();
        }
    }

    private void schedule() {
        if (isRunning() || isStarting()) {
            next = scheduler.schedule(this::sweep, sweepNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void sweep() {
        try {
            long now = System.nanoTime();
            for (Watch watch : watched.values()) {
                check(watch, now);
            }
        } catch (Throwable bug) {
            LOG.error("checking the connections' read deadlines failed", bug);
        } finally {
            schedule();
        }
    }

    private void check(Watch watch, long now) {
        long bodySince = watch.readingBodySince;
        if (bodySince != 0) {
            if (now - bodySince > bodyNanos) {
                bodyTimeouts.increment();
                close(watch, "its request body was not complete within " + Duration.ofNanos(bodyNanos));
            }
            return;
        }
        if (watch.inRequest) {
            return;
        }
        if (watch.connection.getBytesIn() <= watch.quietBytesIn) {
            return;
        }
        long since = watch.headersSince;
        if (since == 0) {
            watch.headersSince = now;
        } else if (now - since > headerNanos) {
            headerTimeouts.increment();
            close(watch, "its request headers were not complete within " + Duration.ofNanos(headerNanos));
        }
    }

    private void close(Watch watch, String why) {
        watched.remove(watch.connection);
        LOG.debug("closing connection {}: {}", watch.connection.getEndPoint().getRemoteSocketAddress(), why);
        watch.connection.getEndPoint().close(new TimeoutException(why));
    }
}
