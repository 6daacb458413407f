package dev.schedulerops.bench;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The floor under the load test: a server that does none of the extender's work. It reads each request fully, then
 * sends the reply the extender would have sent for the load test's request, computed once at start-up. Whatever
 * latency the load test measures against it is the cost of the client, the loopback and reading and writing the bytes;
 * no extender can answer faster on the same machine. Plain blocking sockets, one thread per connection, 127.0.0.1
 * only. Usage: {@code FloorServer PORT PATH NODES} (names-only requests; PATH is /filter or /prioritize).
 */
public final class FloorServer {
    private FloorServer() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String path = args[1];
        int nodes = Integer.parseInt(args[2]);
        byte[] reply = extenderReply(path, nodes);
        byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + reply.length
                        + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        try (ServerSocket listener = new ServerSocket(port, 256, InetAddress.getLoopbackAddress())) {
            System.out.println("floor server ready on 127.0.0.1:" + listener.getLocalPort() + ", " + reply.length
                    + "-byte replies");
            while (true) {
                Socket socket = listener.accept();
                Thread connection = new Thread(() -> serve(socket, head, reply), "floor-connection");
                connection.setDaemon(true);
                connection.start();
            }
        }
    }

    private static byte[] extenderReply(String path, int nodes) throws Exception {
        var verbs = new ExtenderVerbs(NodeJson.LABEL_KEY, NodeJson.staticCache(nodes), bind -> BindResult.bound());
        var verb = Verb.ofPath(path).orElseThrow();
        return verbs.answer(verb, NodeJson.namesOnlyRequest(nodes)).reply().toByteArray();
    }

    private static void serve(Socket socket, byte[] head, byte[] reply) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            OutputStream out = socket.getOutputStream();
            long length;
            while ((length = readHead(in)) >= 0) {
                in.skipNBytes(length);
                out.write(head);
                out.write(reply);
                out.flush();
            }
        } catch (IOException e) {
            // the client went away (also mid-body: skipNBytes throws EOFException)
        }
    }

    /** Reads request headers; returns the Content-Length, or -1 at end of stream. */
    private static long readHead(InputStream in) throws IOException {
        long length = 0;
        StringBuilder line = new StringBuilder(64);
        while (true) {
            int c = in.read();
            if (c < 0) {
                return -1;
            }
            if (c != '\n') {
                line.append((char) c);
                continue;
            }
            String header = line.toString().trim();
            if (header.isEmpty()) {
                return length;
            }
            if (header.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Long.parseLong(header.substring(15).trim());
            }
            line.setLength(0);
        }
    }
}
