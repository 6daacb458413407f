package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Floods and slow clients against the real server: memory is reserved only for bytes that arrived and never past the
 * body budget, slow headers and bodies are cut off at their deadlines, idle connections at the idle timeout, and a
 * normal request is answered all the while.
 */
class SlowClientsTest {
    private static final int KIB = 1024;
    private static final String NAMES = "{\"Pod\":{},\"NodeNames\":[\"n1\",\"n2\"]}";

    private final List<ExtenderServer> servers = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final List<SocketChannel> channels = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (Socket socket : sockets) {
            socket.close();
        }
        for (SocketChannel channel : channels) {
            channel.close();
        }
        for (ExtenderServer server : servers) {
            server.close();
        }
    }

    private ExtenderServer start(HttpLimits limits) throws Exception {
        StaticNodeCache cache = new StaticNodeCache().put("n1", "1").put("n2", null);
        ExtenderServer server = TestServers.plainHttp(
                new ExtenderVerbs("k", cache, args -> BindResult.bound()), limits, new ExtenderMetrics());
        servers.add(server);
        return server;
    }

    private Socket open(ExtenderServer server) throws IOException {
        Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(10_000);
        sockets.add(socket);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    private static String head(String path, long contentLength) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                + contentLength + "\r\n\r\n";
    }

    /** The status line and headers of the next answer on {@code socket}. */
    private static String readHead(Socket socket) throws IOException {
        StringBuilder head = new StringBuilder();
        InputStream in = socket.getInputStream();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** A complete /filter request on a new connection: its status line. */
    private String filter(ExtenderServer server) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            send(socket, head("/filter", NAMES.length()) + NAMES);
            return readHead(socket).lines().findFirst().orElse("");
        }
    }

    private static void awaitValue(LongSupplier value, long expected, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (value.getAsLong() != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(value.getAsLong()).isEqualTo(expected);
    }

    @Test
    void aClientAnnouncingAHugeBodyAndSendingNothingHoldsOnlyTheFirstBuffer() throws Exception {
        ExtenderServer server = start(HttpLimits.withMaxBody(96 * 1024 * KIB));
        int connections = 40;
        for (int i = 0; i < connections; i++) {
            send(open(server), head("/filter", 96L * 1024 * KIB - 1) + "{");
        }

        awaitValue(server::bodyBytesHeld, (long) connections * BodyReader.FIRST_ALLOCATION, Duration.ofSeconds(5));
        Thread.sleep(300);
        assertThat(server.bodyBytesHeld()).isEqualTo((long) connections * BodyReader.FIRST_ALLOCATION);
        assertThat(BodyReader.FIRST_ALLOCATION).isEqualTo(16 * KIB);

        for (Socket socket : sockets) {
            socket.close();
        }
        awaitValue(server::bodyBytesHeld, 0, Duration.ofSeconds(5));
    }

    @Test
    void theBudgetRefusesWhatItCannotHoldWith503AndRetryAfterAndServesAgainOnceFreed() throws Exception {
        ExtenderServer server = start(HttpLimits.withMaxBody(64 * KIB).withBodyBudget(160 * KIB));
        String sixtyKib = "x".repeat(60 * KIB);
        Socket first = open(server);
        Socket second = open(server);
        send(first, head("/filter", 64 * KIB) + sixtyKib);
        awaitValue(server::bodyBytesHeld, 64 * KIB, Duration.ofSeconds(5));
        send(second, head("/filter", 64 * KIB) + sixtyKib);
        awaitValue(server::bodyBytesHeld, 128 * KIB, Duration.ofSeconds(5));

        Socket third = open(server);
        send(third, head("/filter", 64 * KIB) + sixtyKib);
        String refused = readHead(third);

        assertThat(refused)
                .startsWith("HTTP/1.1 503")
                .contains("Retry-After: 1")
                .contains("Connection: close");
        assertThat(server.bodyBytesHeld()).isEqualTo(128 * KIB);

        first.close();
        second.close();
        awaitValue(server::bodyBytesHeld, 0, Duration.ofSeconds(5));
        String padded = "{\"Pod\":{\"metadata\":{\"annotations\":{\"a\":\"" + "x".repeat(60 * KIB)
                + "\"}}},\"NodeNames\":[\"n1\"]}";
        try (Socket fourth = new Socket("127.0.0.1", server.port())) {
            fourth.setSoTimeout(10_000);
            send(fourth, head("/filter", padded.length()) + padded);
            assertThat(readHead(fourth)).startsWith("HTTP/1.1 200");
        }
        awaitValue(server::bodyBytesHeld, 0, Duration.ofSeconds(5));
    }

    /**
     * Slowloris: each connection sends a request line and then one header byte every 100 ms, which keeps Jetty's
     * idle timeout from ever firing. The header deadline closes them; an idle connection that sends nothing is left
     * alone (it is the idle timeout's) and then serves a request.
     */
    @Test
    void slowHeadersAreCutOffAtTheHeaderTimeoutButAnIdleConnectionIsNot() throws Exception {
        Duration headerTimeout = Duration.ofSeconds(1);
        ExtenderServer server = start(HttpLimits.withMaxBody(64 * KIB)
                .withTimeouts(Duration.ofSeconds(30), headerTimeout, Duration.ofSeconds(30)));
        Socket idle = open(server);
        List<SocketChannel> slow = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()));
            channels.add(channel);
            channel.write(ByteBuffer.wrap("POST /filter HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII)));
            channel.configureBlocking(false);
            slow.add(channel);
        }

        long started = System.nanoTime();
        List<Duration> closedAfter = trickleUntilClosed(slow, Duration.ofSeconds(8), started);

        assertThat(closedAfter).hasSize(50).allSatisfy(after -> assertThat(after)
                .isBetween(headerTimeout, headerTimeout.plusSeconds(3)));
        send(idle, head("/filter", NAMES.length()) + NAMES);
        assertThat(readHead(idle))
                .as("quiet for %s, then a request", headerTimeout.multipliedBy(2))
                .startsWith("HTTP/1.1 200");
    }

    @Test
    void aSlowBodyIsCutOffAtTheBodyTimeout() throws Exception {
        Duration bodyTimeout = Duration.ofSeconds(1);
        ExtenderServer server = start(HttpLimits.withMaxBody(64 * KIB)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30), bodyTimeout));
        SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()));
        channels.add(channel);
        channel.write(ByteBuffer.wrap(head("/filter", 10_000).getBytes(StandardCharsets.US_ASCII)));
        channel.configureBlocking(false);

        List<Duration> closedAfter = trickleUntilClosed(List.of(channel), Duration.ofSeconds(8), System.nanoTime());

        assertThat(closedAfter).singleElement().satisfies(after -> assertThat(after)
                .isBetween(bodyTimeout, bodyTimeout.plusSeconds(3)));
        assertThat(server.bodyBytesHeld()).isZero();
    }

    /**
     * Writes one byte to each channel every 100 ms until the server closes it (reading end of stream, or a write
     * failing), for at most {@code limit}: how long after {@code started} each was closed.
     */
    private static List<Duration> trickleUntilClosed(List<SocketChannel> open, Duration limit, long started)
            throws Exception {
        List<SocketChannel> remaining = new ArrayList<>(open);
        List<Duration> closedAfter = new ArrayList<>();
        ByteBuffer scratch = ByteBuffer.allocate(4096);
        while (!remaining.isEmpty() && System.nanoTime() - started < limit.toNanos()) {
            for (SocketChannel channel : new ArrayList<>(remaining)) {
                boolean closed;
                try {
                    scratch.clear();
                    closed = channel.read(scratch) < 0;
                    if (!closed) {
                        channel.write(ByteBuffer.wrap(new byte[] {'a'}));
                    }
                } catch (IOException reset) {
                    closed = true;
                }
                if (closed) {
                    closedAfter.add(Duration.ofNanos(System.nanoTime() - started));
                    remaining.remove(channel);
                }
            }
            Thread.sleep(100);
        }
        return closedAfter;
    }

    /** As deployed, the budget holds the first buffer of every connection the limit lets in, and more. */
    @Test
    void manySlowConnectionsDoNotKeepANormalRequestWaiting() throws Exception {
        ExtenderServer server = start(HttpLimits.withMaxBody(64 * KIB).withBodyBudget(8 * 1024 * KIB));
        for (int i = 0; i < 200; i++) {
            Socket socket = open(server);
            send(socket, i % 2 == 0 ? "POST /filter HTTP/1.1\r\nX-Slow: a" : head("/filter", 60 * KIB) + "{");
        }

        long started = System.nanoTime();
        String status = filter(server);
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(status).startsWith("HTTP/1.1 200");
        assertThat(took).as("well before the slow ones' header timeout (5 s)").isLessThan(Duration.ofSeconds(4));
    }

    @Test
    void pastTheConnectionLimitANewConnectionWaitsUntilOneCloses() throws Exception {
        ExtenderServer server = start(HttpLimits.withMaxBody(64 * KIB).withMaxConnections(8));
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            held.add(open(server));
        }
        Thread.sleep(200);
        Socket ninth = open(server);
        ninth.setSoTimeout(1000);
        send(ninth, head("/filter", NAMES.length()) + NAMES);

        boolean answeredWhileFull;
        try {
            answeredWhileFull = ninth.getInputStream().read() >= 0;
        } catch (SocketTimeoutException waiting) {
            answeredWhileFull = false;
        }
        held.get(0).close();
        ninth.setSoTimeout(10_000);

        assertThat(answeredWhileFull)
                .as("answered while 8 connections were open")
                .isFalse();
        assertThat(readHead(ninth)).startsWith("HTTP/1.1 200");
    }

    @Test
    void anIdleConnectionIsClosedAtTheIdleTimeout() throws Exception {
        ExtenderServer server = start(HttpLimits.withMaxBody(64 * KIB)
                .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(30)));
        Socket socket = open(server);
        long started = System.nanoTime();

        int read = socket.getInputStream().read();

        assertThat(read).as("end of stream").isEqualTo(-1);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .isBetween(Duration.ofMillis(900), Duration.ofSeconds(4));
    }
}
