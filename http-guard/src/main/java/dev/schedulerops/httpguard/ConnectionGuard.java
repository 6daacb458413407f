package dev.schedulerops.httpguard;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a health port answering the kubelet whatever else connects to it. Jetty's connection limits stop accepting at
 * the limit, so a crowd of connections that send nothing (or a byte a second) held every slot and the kubelet's probe
 * waited in the kernel's accept queue until it timed out. Here the port never stops accepting; instead:
 *
 * <ul>
 *   <li>a connection lives at most {@link GuardLimits#lifetime()}: a probe or a scrape takes milliseconds, so one that
 *       sends nothing, or trickles its request, is closed at that age whatever it does;
 *   <li>one source address holds at most {@link GuardLimits#perSource()} connections: a new one past that closes the
 *       oldest of the same source, so a flooding client only ever replaces its own connections;
 *   <li>the port holds at most {@link GuardLimits#total()}: a new one past that closes the oldest connection of the
 *       source that holds the most.
 * </ul>
 *
 * The kubelet probes from the node's own address with a new connection each time (it keeps none alive), which is
 * answered within a millisecond or two of opening: another source cannot take its slot, and a flood from its own
 * address would have to close it within that time. Only network connections are counted (with TLS, not the decrypted
 * one on top).
 */
public final class ConnectionGuard extends AbstractLifeCycle implements Connection.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

    /** Why the guard closed a connection (a metric's label). */
    public enum Reason {
        /** Its source address opened more than its share. */
        PER_SOURCE,
        /** The port was full; its source held the most. */
        TOTAL,
        /** It outlived the lifetime. */
        LIFETIME
    }

    private final GuardLimits limits;
    private final Scheduler scheduler;
    private final LongSupplier nanoClock;
    private final long lifetimeNanos;
    private final long sweepNanos;
    /** Each source's connections, oldest first; and each connection's entry (its address is gone once closed). */
    private final Map<Object, Deque<Tracked>> bySource = new HashMap<>();

    private final Map<Connection, Tracked> byConnection = new java.util.IdentityHashMap<>();
    private final Map<Reason, LongAdder> closed = new java.util.EnumMap<>(Reason.class);
    private volatile Scheduler.Task next;

    private record Tracked(Connection connection, Object source, long openedNanos) {}

    public ConnectionGuard(GuardLimits limits, Scheduler scheduler) {
        this(limits, scheduler, System::nanoTime);
    }

    ConnectionGuard(GuardLimits limits, Scheduler scheduler, LongSupplier nanoClock) {
        this.limits = limits;
        this.scheduler = scheduler;
        this.nanoClock = nanoClock;
        this.lifetimeNanos = limits.lifetime().toNanos();
        this.sweepNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(50), Math.min(lifetimeNanos / 4, 250_000_000L));
        for (Reason reason : Reason.values()) {
            closed.put(reason, new LongAdder());
        }
    }

    /**
     * Guards {@code connector}: told of its every connection, and started with its server (after the server's
     * scheduler, which sweeps); its accept queue is made {@link GuardLimits#ACCEPT_QUEUE} long.
     */
    public static ConnectionGuard on(ServerConnector connector, GuardLimits limits) {
        connector.setAcceptQueueSize(GuardLimits.ACCEPT_QUEUE);
        ConnectionGuard guard = new ConnectionGuard(limits, connector.getScheduler());
        connector.getServer().addBean(guard);
        connector.addBean(guard, false);
        return guard;
    }

    public GuardLimits limits() {
        return limits;
    }

    /** Connections held now. */
    public synchronized int open() {
        return byConnection.size();
    }

    /** Connections the guard has closed for {@code reason}. */
    public long closed(Reason reason) {
        return closed.get(reason).sum();
    }

    @Override
    public void onOpened(Connection connection) {
        if (connection.getEndPoint() instanceof EndPoint.Wrapper) {
            return;
        }
        Object source = sourceOf(connection.getEndPoint().getRemoteSocketAddress());
        Tracked victim;
        Reason reason;
        synchronized (this) {
            Tracked tracked = new Tracked(connection, source, nanoClock.getAsLong());
            Deque<Tracked> own = bySource.computeIfAbsent(source, s -> new ArrayDeque<>());
            own.addLast(tracked);
            byConnection.put(connection, tracked);
            if (own.size() > limits.perSource()) {
                victim = own.peekFirst();
                reason = Reason.PER_SOURCE;
            } else if (byConnection.size() > limits.total()) {
                victim = oldestOfLargestSource();
                reason = Reason.TOTAL;
            } else {
                return;
            }
            forget(victim);
        }
        close(victim, reason);
    }

    @Override
    public void onClosed(Connection connection) {
        synchronized (this) {
            Tracked tracked = byConnection.get(connection);
            if (tracked != null) {
                forget(tracked);
            }
        }
    }

    /** The source holding the most connections (of two alike, the one with the older connection), its oldest. */
    private Tracked oldestOfLargestSource() {
        Tracked oldest = null;
        int most = 0;
        for (Deque<Tracked> connections : bySource.values()) {
            Tracked first = connections.peekFirst();
            if (connections.size() > most
                    || (connections.size() == most && first.openedNanos() - oldest.openedNanos() < 0)) {
                most = connections.size();
                oldest = first;
            }
        }
        return oldest;
    }

    private void forget(Tracked tracked) {
        byConnection.remove(tracked.connection());
        Deque<Tracked> own = bySource.get(tracked.source());
        if (own != null && own.remove(tracked) && own.isEmpty()) {
            bySource.remove(tracked.source());
        }
    }

    private void close(Tracked victim, Reason reason) {
        closed.get(reason).increment();
        EndPoint endPoint = victim.connection().getEndPoint();
        LOG.debug("closing connection from {}: {}", endPoint.getRemoteSocketAddress(), reason);
        endPoint.close(new TimeoutException("closed by the connection guard: " + reason));
    }

    /** Closes the connections older than the lifetime; public to the package for tests. */
    void sweep() {
        long now = nanoClock.getAsLong();
        List<Tracked> expired = new ArrayList<>();
        synchronized (this) {
            for (Deque<Tracked> connections : bySource.values()) {
                for (Tracked tracked : connections) {
                    if (now - tracked.openedNanos() >= lifetimeNanos) {
                        expired.add(tracked);
                    }
                }
            }
            expired.forEach(this::forget);
        }
        for (Tracked tracked : expired) {
            close(tracked, Reason.LIFETIME);
        }
    }

    private static Object sourceOf(SocketAddress address) {
        return address instanceof InetSocketAddress inet && inet.getAddress() != null ? inet.getAddress() : address;
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
            next = scheduler.schedule(this::sweepAndReschedule, sweepNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void sweepAndReschedule() {
        try {
            sweep();
        } catch (Throwable bug) {
            LOG.error("closing the connections past their lifetime failed", bug);
        } finally {
            schedule();
        }
    }
}
