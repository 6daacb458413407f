package dev.schedulerops.httpguard;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The attack the health ports must withstand: {@code connections} connections to one port, half of them silent (they
 * send nothing) and half trickling (an unfinished request, then one byte a second); each one the server closes is
 * opened again after {@code reopenAfter}, until the flood is stopped. One thread, the JDK only: the e2e tests run this
 * very class inside a pod ({@code java -cp DIR dev.schedulerops.httpguard.HealthPortFlood HOST PORT CONNECTIONS
 * SECONDS}), which prints its {@link Stats} as its last line.
 */
public final class HealthPortFlood {
    private static final byte[] REQUEST_START =
            "GET /healthz HTTP/1.1\r\nHost: flood\r\nX-Trickle: ".getBytes(StandardCharsets.US_ASCII);
    private static final long TRICKLE_NANOS = Duration.ofSeconds(1).toNanos();

    private final InetSocketAddress target;
    private final InetAddress source;
    private final int connections;
    private final long reopenNanos;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong connectFailures = new AtomicLong();
    private final AtomicLong closedByServer = new AtomicLong();
    private final AtomicLong open = new AtomicLong();
    private final AtomicLong mostOpen = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private Thread thread;

    /** What the flood did. */
    public record Stats(
            long opened, long connectFailures, long closedByServer, long openAtTheEnd, long mostOpen, long bytesSent) {
        @Override
        public String toString() {
            return "flood opened=" + opened + " connectFailures=" + connectFailures + " closedByServer="
                    + closedByServer + " openAtTheEnd=" + openAtTheEnd + " mostOpen=" + mostOpen + " bytesSent="
                    + bytesSent;
        }

        /** Parses {@link #toString()}. */
        public static Stats parse(String line) {
            java.util.Map<String, Long> values = new java.util.HashMap<>();
            for (String field : line.strip().split(" ")) {
                String[] kv = field.split("=", 2);
                if (kv.length == 2) {
                    values.put(kv[0], Long.parseLong(kv[1]));
                }
            }
            return new Stats(
                    values.get("opened"),
                    values.get("connectFailures"),
                    values.get("closedByServer"),
                    values.get("openAtTheEnd"),
                    values.get("mostOpen"),
                    values.get("bytesSent"));
        }
    }

    /** A slot: one connection at a time, silent or trickling. */
    private final class Slot {
        final boolean trickling;
        SocketChannel channel;
        long nextTrickleNanos;
        long reopenAtNanos;

        Slot(boolean trickling) {
            this.trickling = trickling;
        }
    }

    /** @param source the local address to connect from (a loopback address in tests), or null for any */
    public HealthPortFlood(InetSocketAddress target, InetAddress source, int connections, Duration reopenAfter) {
        this.target = target;
        this.source = source;
        this.connections = connections;
        this.reopenNanos = reopenAfter.toNanos();
    }

    public HealthPortFlood start() {
        thread = new Thread(this::run, "health-port-flood-" + target);
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** Connections open now (connected, not yet closed by the server). */
    public long open() {
        return open.get();
    }

    public Stats stats() {
        return new Stats(
                opened.get(), connectFailures.get(), closedByServer.get(), open.get(), mostOpen.get(), bytesSent.get());
    }

    /** Stops the flood, closes its connections and returns what it did. */
    public Stats stop() throws InterruptedException {
        Stats stats = stats();
        stop.set(true);
        if (thread != null) {
            thread.join(10_000);
        }
        return stats;
    }

    private void run() {
        List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            slots.add(new Slot(i % 2 == 1));
        }
        try (Selector selector = Selector.open()) {
            while (!stop.get()) {
                long now = System.nanoTime();
                for (Slot slot : slots) {
                    if (slot.channel == null && now - slot.reopenAtNanos >= 0) {
                        connect(slot, selector);
                    } else if (slot.trickling
                            && slot.channel != null
                            && slot.channel.isConnected()
                            && now - slot.nextTrickleNanos >= 0) {
                        trickle(slot, now);
                    }
                }
                selector.select(50);
                for (SelectionKey key : selector.selectedKeys()) {
                    Slot slot = (Slot) key.attachment();
                    if (key.isValid() && key.isConnectable()) {
                        finishConnect(slot, key, System.nanoTime());
                    } else if (key.isValid() && key.isReadable()) {
                        read(slot);
                    }
                }
                selector.selectedKeys().clear();
            }
            for (Slot slot : slots) {
                closeQuietly(slot.channel);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void connect(Slot slot, Selector selector) {
        try {
            SocketChannel channel = SocketChannel.open();
            channel.configureBlocking(false);
            if (source != null) {
                channel.bind(new InetSocketAddress(source, 0));
            }
            slot.channel = channel;
            if (channel.connect(target)) {
                connected(slot, channel.register(selector, SelectionKey.OP_READ, slot), System.nanoTime());
            } else {
                channel.register(selector, SelectionKey.OP_CONNECT, slot);
            }
        } catch (IOException e) {
            failedToConnect(slot);
        }
    }

    private void finishConnect(Slot slot, SelectionKey key, long now) {
        try {
            slot.channel.finishConnect();
            key.interestOps(SelectionKey.OP_READ);
            connected(slot, key, now);
        } catch (IOException e) {
            failedToConnect(slot);
        }
    }

    private void connected(Slot slot, SelectionKey key, long now) {
        opened.incrementAndGet();
        mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        if (slot.trickling) {
            send(slot, ByteBuffer.wrap(REQUEST_START));
            slot.nextTrickleNanos = now + TRICKLE_NANOS;
        }
    }

    private void trickle(Slot slot, long now) {
        send(slot, ByteBuffer.wrap(new byte[] {'x'}));
        slot.nextTrickleNanos = now + TRICKLE_NANOS;
    }

    private void send(Slot slot, ByteBuffer bytes) {
        try {
            bytesSent.addAndGet(slot.channel.write(bytes));
        } catch (IOException closed) {
            closedByServer(slot);
        }
    }

    /** Anything readable is an error answer or the end of the stream: either way the server is done with it. */
    private void read(Slot slot) {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        try {
            int read;
            while ((read = slot.channel.read(buffer)) > 0) {
                buffer.clear();
            }
            if (read < 0) {
                closedByServer(slot);
            }
        } catch (IOException reset) {
            closedByServer(slot);
        }
    }

    private void closedByServer(Slot slot) {
        if (slot.channel == null) {
            return;
        }
        closedByServer.incrementAndGet();
        open.decrementAndGet();
        closeQuietly(slot.channel);
        slot.channel = null;
        slot.reopenAtNanos = System.nanoTime() + reopenNanos;
    }

    private void failedToConnect(Slot slot) {
        connectFailures.incrementAndGet();
        closeQuietly(slot.channel);
        slot.channel = null;
        slot.reopenAtNanos = System.nanoTime() + reopenNanos;
    }

    private static void closeQuietly(SocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    /** {@code HOST PORT CONNECTIONS SECONDS}: floods for that long, then prints its stats. */
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: HealthPortFlood HOST PORT CONNECTIONS SECONDS");
            System.exit(2);
        }
        HealthPortFlood flood = new HealthPortFlood(
                        new InetSocketAddress(args[0], Integer.parseInt(args[1])),
                        null,
                        Integer.parseInt(args[2]),
                        Duration.ofMillis(100))
                .start();
        long end =
                System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[3])).toNanos();
        while (System.nanoTime() < end) {
            Thread.sleep(5000);
            System.out.println("progress " + flood.stats());
        }
        System.out.println(flood.stop());
    }
}
