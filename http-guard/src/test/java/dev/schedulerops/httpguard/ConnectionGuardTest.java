package dev.schedulerops.httpguard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The guard on a real Jetty connector, with clients on distinct loopback addresses (127.0.0.x are all this host's):
 * what it closes, and that a probe from another address, or from the flooding address itself, is always answered.
 */
class ConnectionGuardTest {
    private static final String PROBE = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

    private final List<Socket> sockets = new ArrayList<>();
    private Server server;
    private ServerConnector connector;
    private ConnectionGuard guard;

    @AfterEach
    void stop() throws Exception {
        for (Socket socket : sockets) {
            socket.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private void start(GuardLimits limits) throws Exception {
        server = new Server();
        connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setIdleTimeout(60_000);
        server.addConnector(connector);
        guard = ConnectionGuard.on(connector, limits);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(200);
                response.write(true, ByteBuffer.wrap("ok\n".getBytes(StandardCharsets.US_ASCII)), callback);
                return true;
            }
        });
        server.start();
    }

    /** A connection from {@code source} (a loopback address) that sends {@code text} and nothing more. */
    private Socket open(String source, String text) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        socket.connect(new InetSocketAddress("127.0.0.1", connector.getLocalPort()), 2000);
        socket.setSoTimeout(10_000);
        sockets.add(socket);
        if (!text.isEmpty()) {
            socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
        }
        return socket;
    }

    /** Whether the server has closed {@code socket}: end of stream (or a reset) within {@code wait}. */
    private static boolean closedByServer(Socket socket, Duration wait) throws IOException {
        socket.setSoTimeout((int) wait.toMillis());
        try {
            InputStream in = socket.getInputStream();
            while (in.read() >= 0) {
                // an error answer, if any
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** A probe from {@code source}: its status line, and how long it took. */
    private record Answer(String statusLine, Duration took) {}

    private Answer probe(String source) throws IOException {
        long start = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
            socket.connect(new InetSocketAddress("127.0.0.1", connector.getLocalPort()), 2000);
            socket.setSoTimeout(2000);
            socket.getOutputStream().write(PROBE.getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            return new Answer(answer.lines().findFirst().orElse(""), Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /** Waits until the guard has closed {@code expected} connections for {@code reason} (the acceptor lags the kernel). */
    private void awaitClosed(ConnectionGuard.Reason reason, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (guard.closed(reason) < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(guard.closed(reason)).as("connections closed for %s", reason).isEqualTo(expected);
    }

    private void awaitOpen(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (guard.open() != expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(guard.open()).as("connections the guard holds").isEqualTo(expected);
    }

    @Test
    void oneSourceHoldsAtMostItsShareAndAProbeFromElsewhereIsAnswered() throws Exception {
        start(new GuardLimits(4, 16, Duration.ofSeconds(30)));
        List<Socket> flood = new ArrayList<>();
        for (int i = 0; i < 16 + 10; i++) {
            flood.add(open("127.0.0.2", i % 2 == 0 ? "" : "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a"));
        }
        awaitClosed(ConnectionGuard.Reason.PER_SOURCE, 22);
        awaitOpen(4);
        // Four are still open, the rest closed (which four depends on the order the acceptor took the burst in:
        // aFullPortClosesTheOldestConnectionOfTheSourceThatHoldsTheMost checks "oldest" with connections in order).
        int closed = 0;
        for (Socket socket : flood) {
            if (closedByServer(socket, Duration.ofMillis(300))) {
                closed++;
            }
        }
        assertThat(closed).as("flood connections the server closed").isEqualTo(22);
        Answer probe = probe("127.0.0.1");
        assertThat(probe.statusLine()).isEqualTo("HTTP/1.1 200 OK");
        assertThat(probe.took()).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void aProbeFromTheFloodingAddressItselfIsAnswered() throws Exception {
        start(new GuardLimits(4, 16, Duration.ofSeconds(30)));
        for (int i = 0; i < 12; i++) {
            open("127.0.0.1", "");
        }
        awaitClosed(ConnectionGuard.Reason.PER_SOURCE, 8);
        awaitOpen(4);
        Answer probe = probe("127.0.0.1");
        assertThat(probe.statusLine())
                .as("the probe closes the flood's oldest connection instead of waiting for one")
                .isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void aFullPortClosesTheOldestConnectionOfTheSourceThatHoldsTheMost() throws Exception {
        start(new GuardLimits(3, 6, Duration.ofSeconds(30)));
        List<Socket> big = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            big.add(open("127.0.0.2", ""));
        }
        // Accepted one after another, so that "oldest" is clear even when the acceptor takes several at once.
        awaitOpen(3);
        Thread.sleep(20);
        Socket small = open("127.0.0.3", "");
        awaitOpen(4);
        Thread.sleep(20);
        List<Socket> many = new ArrayList<>();
        for (int i = 4; i <= 8; i++) {
            many.add(open("127.0.0." + (10 + i), ""));
        }
        // 9 opened, 6 held: the three that went are 127.0.0.2's (it held the most), oldest first.
        awaitClosed(ConnectionGuard.Reason.TOTAL, 3);
        awaitOpen(6);
        for (int i = 0; i < big.size(); i++) {
            assertThat(closedByServer(big.get(i), Duration.ofSeconds(2)))
                    .as("127.0.0.2's connection %d", i + 1)
                    .isTrue();
        }
        assertThat(closedByServer(small, Duration.ofMillis(200))).isFalse();
        for (Socket socket : many) {
            assertThat(closedByServer(socket, Duration.ofMillis(100))).isFalse();
        }
        assertThat(probe("127.0.0.1").statusLine()).isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void silentAndTricklingConnectionsAreClosedAtTheirLifetime() throws Exception {
        Duration lifetime = Duration.ofMillis(600);
        start(new GuardLimits(8, 64, lifetime));
        Socket silent = open("127.0.0.2", "");
        Socket trickling = open("127.0.0.3", "G");
        long start = System.nanoTime();
        Thread trickle = new Thread(() -> {
            try {
                for (char c : "ET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: abcdefghijklmnop".toCharArray()) {
                    trickling.getOutputStream().write(c);
                    trickling.getOutputStream().flush();
                    Thread.sleep(50);
                }
            } catch (IOException | InterruptedException closed) {
                // the server closed it: what the test waits for
            }
        });
        trickle.start();
        assertThat(closedByServer(silent, Duration.ofSeconds(3))).isTrue();
        assertThat(closedByServer(trickling, Duration.ofSeconds(3))).isTrue();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        trickle.join();
        assertThat(took).isBetween(lifetime.minusMillis(100), lifetime.plusMillis(1000));
        assertThat(guard.closed(ConnectionGuard.Reason.LIFETIME)).isEqualTo(2);
        awaitOpen(0);
    }

    @Test
    void aProbeIsAnsweredAndForgottenWithoutAnyClosing() throws Exception {
        start(GuardLimits.HEALTH_PORT);
        assertThat(connector.getAcceptQueueSize())
                .as("a flood's burst of connects must not fill the kernel's queue")
                .isEqualTo(GuardLimits.ACCEPT_QUEUE);
        for (int i = 0; i < 50; i++) {
            assertThat(probe("127.0.0.1").statusLine()).isEqualTo("HTTP/1.1 200 OK");
        }
        awaitOpen(0);
        for (ConnectionGuard.Reason reason : ConnectionGuard.Reason.values()) {
            assertThat(guard.closed(reason)).as("closed for %s", reason).isZero();
        }
    }

    @Test
    void limitsThatCannotHoldAreRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new GuardLimits(9, 8, Duration.ofSeconds(1)))
                .hasMessageContaining("perSource <= total");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new GuardLimits(1, 8, Duration.ZERO))
                .hasMessageContaining("lifetime must be positive");
    }
}
