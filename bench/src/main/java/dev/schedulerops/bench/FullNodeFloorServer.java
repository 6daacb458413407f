package dev.schedulerops.bench;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The floor under a full-node request: the least any extender must do to answer it. It receives the whole body into
 * memory, reads each of its bytes once (eight at a time, a sum no parser can undercut: every byte must be looked at
 * to know the request is JSON and where its nodes are), and sends the exact reply the extender gives for that
 * request, computed once at start-up and kept in native memory so that sending it costs only the kernel's copy. So a
 * load tool measures against it what the client, loopback TCP and moving the bytes in and out cost on this machine.
 * Plain blocking channels, a thread per connection, 127.0.0.1 only.
 *
 * <p>Usage: {@code FullNodeFloorServer PORT REQUEST_FILE} (a full-node ExtenderArgs body, e.g. from {@link NodeJson});
 * serves {@code /filter} and {@code /prioritize}. Prints "ready" once listening.
 */
public final class FullNodeFloorServer {
    private static final int MAX_HEAD = 16 * 1024;
    /** Where each body's sum goes, so that the JIT cannot drop the reading. */
    private static volatile long checksum;

    private FullNodeFloorServer() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        byte[] request = Files.readAllBytes(Path.of(args[1]));
        var verbs = new ExtenderVerbs(NodeJson.LABEL_KEY, null, bind -> BindResult.bound());
        Map<String, ByteBuffer> replies = new HashMap<>();
        for (Verb verb : new Verb[] {Verb.FILTER, Verb.PRIORITIZE}) {
            replies.put(verb.path(), message(verbs.answer(verb, request).reply().toByteArray()));
        }
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 256);
            System.out.println("floor server ready on 127.0.0.1:" + port + " for a " + request.length
                    + "-byte request; replies: filter " + replies.get("/filter").remaining() + " bytes, prioritize "
                    + replies.get("/prioritize").remaining() + " bytes (with headers)");
            while (true) {
                SocketChannel connection = listener.accept();
                Thread thread = new Thread(() -> serve(connection, replies), "floor-connection");
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    /** The reply as one HTTP/1.1 message in native memory. */
    private static ByteBuffer message(byte[] json) {
        byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + json.length
                        + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        ByteBuffer message = ByteBuffer.allocateDirect(head.length + json.length);
        message.put(head).put(json).flip();
        return message.asReadOnlyBuffer();
    }

    private static void serve(SocketChannel connection, Map<String, ByteBuffer> replies) {
        ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        try (connection) {
            connection.socket().setTcpNoDelay(true);
            while (true) {
                int headEnd = readHead(connection, in);
                if (headEnd < 0) {
                    return;
                }
                String head = StandardCharsets.US_ASCII
                        .decode(in.duplicate().flip().limit(headEnd))
                        .toString();
                int length = contentLength(head);
                String path = head.substring(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1));
                while (in.position() < headEnd + length) {
                    if (connection.read(in) < 0) {
                        return;
                    }
                }
                checksum = sum(in, headEnd, headEnd + length);
                ByteBuffer reply = replies.get(path).duplicate();
                while (reply.hasRemaining()) {
                    connection.write(reply);
                }
                // The next request's bytes that came with this one (a pipelining client) stay.
                in.limit(in.position()).position(headEnd + length);
                in.compact();
            }
        } catch (IOException | RuntimeException e) {
            // the client went away
        }
    }

    /** Reads until a whole header block is in {@code in}; returns the offset past it, or -1 at end of stream. */
    private static int readHead(SocketChannel connection, ByteBuffer in) throws IOException {
        while (true) {
            for (int i = 3; i < in.position(); i++) {
                if (in.get(i) == '\n' && in.get(i - 1) == '\r' && in.get(i - 2) == '\n' && in.get(i - 3) == '\r') {
                    return i + 1;
                }
            }
            if (in.position() > MAX_HEAD || connection.read(in) < 0) {
                return -1;
            }
        }
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }

    /** Every byte of {@code in[from, to)} read once, eight at a time. */
    private static long sum(ByteBuffer in, int from, int to) {
        long sum = 0;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            sum += in.getLong(i);
        }
        for (; i < to; i++) {
            sum += in.get(i);
        }
        return sum;
    }
}
