package dev.schedulerops.bench;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;

/**
 * Closed-loop HTTP/1.1 load over loopback in the style of wrk: one selector thread drives {@code concurrency}
 * keep-alive connections, each with one request in flight, sending the same extender request back to back for a
 * bounded time and recording every latency (first byte written to last byte of the reply read). Usage:
 *
 * <pre>
 * LoadTest HOST:PORT PATH full|names NODES CONCURRENCY[,CONCURRENCY...] SECONDS WARMUP_SECONDS OUT.jsonl [TARGET [PID]]
 * </pre>
 *
 * Appends one JSON line per concurrency level to OUT.jsonl and prints it. TARGET labels the server under test
 * (default {@code extender}). With PID, the server's process, the line also carries the CPU time (utime + stime of
 * {@code /proc/PID/stat}) the server spent in the measured window ({@code serverCpuSeconds}) and per request
 * completed in it ({@code serverCpuUsPerRequest}), and the same for this client's own process ({@code
 * clientCpuUsPerRequest}). Replies may carry Content-Length or be chunked.
 *
 * <p>One thread rather than one per connection: on the 2-core dev machine a thread-per-connection client competes
 * with the server for the cores and its own scheduling dominates the tail (against a server that does no work at all
 * it measured p99 4.1 ms at concurrency 16, where this client measures 1.4 ms).
 */
public final class LoadTest {
    private LoadTest() {}

    public static void main(String[] args) throws Exception {
        String[] hostPort = args[0].split(":");
        InetSocketAddress target = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        if (!target.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("load tests only target loopback, got " + target);
        }
        String path = args[1];
        String mode = args[2];
        int nodes = Integer.parseInt(args[3]);
        int[] levels =
                Arrays.stream(args[4].split(",")).mapToInt(Integer::parseInt).toArray();
        int seconds = Integer.parseInt(args[5]);
        int warmup = Integer.parseInt(args[6]);
        String out = args[7];
        String server = args.length > 8 ? args[8] : "extender";
        long pid = args.length > 9 ? Long.parseLong(args[9]) : -1;

        byte[] body = mode.equals("full") ? NodeJson.fullNodesRequest(nodes) : NodeJson.namesOnlyRequest(nodes);
        ByteBuffer request = request(args[0], path, body);
        for (int concurrency : levels) {
            Result result = run(target, request, concurrency, seconds, warmup, pid);
            String cpu = pid < 0
                    ? ""
                    : String.format(
                            Locale.ROOT,
                            ",\"serverCpuSeconds\":%.2f,\"serverCpuUsPerRequest\":%s,\"clientCpuUsPerRequest\":%s",
                            result.serverCpuSeconds,
                            perRequestUs(result.serverCpuSeconds, result.latencies.length),
                            perRequestUs(result.clientCpuSeconds, result.latencies.length));
            String line = String.format(
                    Locale.ROOT,
                    "{\"target\":\"%s\",\"path\":\"%s\",\"mode\":\"%s\",\"nodes\":%d,\"concurrency\":%d,"
                            + "\"seconds\":%d,\"requestBytes\":%d,\"replyBytes\":%d,\"requests\":%d,\"errors\":%d,"
                            + "\"rps\":%.1f,\"p50ms\":%.3f,\"p90ms\":%.3f,\"p99ms\":%.3f,\"maxms\":%.3f%s}",
                    server,
                    path,
                    mode,
                    nodes,
                    concurrency,
                    seconds,
                    body.length,
                    result.replyBytes,
                    result.latencies.length,
                    result.errors,
                    result.latencies.length / (double) seconds,
                    result.percentile(0.50),
                    result.percentile(0.90),
                    result.percentile(0.99),
                    result.percentile(1.0),
                    cpu);
            System.out.println(line);
            try (PrintWriter writer = new PrintWriter(new FileWriter(out, StandardCharsets.UTF_8, true))) {
                writer.println(line);
            }
        }
    }

    /** CPU microseconds per request as a JSON number, or null without requests. */
    private static String perRequestUs(double cpuSeconds, int requests) {
        return requests == 0 ? "null" : String.format(Locale.ROOT, "%.1f", cpuSeconds * 1e6 / requests);
    }

    /**
     * The whole request in a direct buffer: writing a heap buffer makes the JDK copy all its remaining bytes into a
     * temporary direct buffer on every write call, which for a 12 MB body sent in partial writes is several copies.
     */
    private static ByteBuffer request(String host, String path, byte[] body) {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
                        + "Content-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocateDirect(head.length + body.length)
                .put(head)
                .put(body)
                .flip();
    }

    /** Sorted latencies (ns) of the requests completed in the measured window. */
    private record Result(
            long[] latencies, long errors, long replyBytes, double serverCpuSeconds, double clientCpuSeconds) {
        double percentile(double p) {
            if (latencies.length == 0) {
                return Double.NaN;
            }
            int index = (int) Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1);
            return latencies[Math.max(0, index)] / 1e6;
        }
    }

    private static Result run(
            InetSocketAddress target, ByteBuffer request, int concurrency, int seconds, int warmup, long pid)
            throws IOException {
        long measureFrom = System.nanoTime() + warmup * 1_000_000_000L;
        long stopAt = measureFrom + seconds * 1_000_000_000L;
        long[] latencies = new long[1 << 16];
        int count = 0;
        long errors = 0;
        long replyBytes = 0;
        long self = ProcessHandle.current().pid();
        double cpuAtStart = Double.NaN;
        double cpuAtStop = Double.NaN;
        double clientAtStart = Double.NaN;
        double clientAtStop = Double.NaN;
        ByteBuffer in = ByteBuffer.allocateDirect(1 << 20);
        try (Selector selector = Selector.open()) {
            for (int c = 0; c < concurrency; c++) {
                SocketChannel channel = SocketChannel.open(target);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.configureBlocking(false);
                Exchange exchange = new Exchange(request);
                exchange.send(System.nanoTime());
                channel.register(selector, SelectionKey.OP_WRITE, exchange);
            }
            long now;
            while ((now = System.nanoTime()) < stopAt && !selector.keys().isEmpty()) {
                if (pid >= 0 && now >= measureFrom && Double.isNaN(cpuAtStart)) {
                    cpuAtStart = cpuSeconds(pid);
                    clientAtStart = cpuSeconds(self);
                }
                long wakeAt = now < measureFrom ? measureFrom : stopAt;
                selector.select(Math.max(1, (wakeAt - now) / 1_000_000));
                Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
                while (ready.hasNext()) {
                    SelectionKey key = ready.next();
                    ready.remove();
                    SocketChannel channel = (SocketChannel) key.channel();
                    Exchange exchange = (Exchange) key.attachment();
                    try {
                        if (key.isWritable()) {
                            channel.write(exchange.out);
                            if (!exchange.out.hasRemaining()) {
                                key.interestOps(SelectionKey.OP_READ);
                            }
                            continue;
                        }
                        in.clear();
                        if (channel.read(in) < 0) {
                            throw new IOException("server closed the connection");
                        }
                        in.flip();
                        if (exchange.receive(in)) {
                            long done = System.nanoTime();
                            // Counted by completion time, as the server's CPU is: a request that takes seconds
                            // (full nodes at concurrency 16) and started in the warm-up still ends in the window.
                            if (done >= measureFrom && done < stopAt) {
                                if (count == latencies.length) {
                                    latencies = Arrays.copyOf(latencies, count * 2);
                                }
                                latencies[count++] = done - exchange.started;
                                replyBytes = exchange.bodyBytes;
                            }
                            if (exchange.status != 200) {
                                errors++;
                            }
                            exchange.send(done);
                            key.interestOps(SelectionKey.OP_WRITE);
                        }
                    } catch (IOException e) {
                        errors++;
                        key.cancel();
                        channel.close();
                    }
                }
            }
            if (pid >= 0) {
                cpuAtStop = cpuSeconds(pid);
                clientAtStop = cpuSeconds(self);
            }
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
        }
        long[] measured = Arrays.copyOf(latencies, count);
        Arrays.sort(measured);
        return new Result(measured, errors, replyBytes, cpuAtStop - cpuAtStart, clientAtStop - clientAtStart);
    }

    /** utime + stime of process {@code pid}, all its threads, in seconds (Linux reports them in 1/100 s). */
    private static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 14th
        // and 15th fields of the line, so the 12th and 13th after ") ".
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    }

    /** One connection's request in flight and the parse state of its reply. */
    private static final class Exchange {
        private enum State {
            HEAD,
            BODY,
            CHUNK_SIZE,
            CHUNK_DATA,
            CHUNK_END,
            TRAILER,
            DONE
        }

        private final ByteBuffer request;
        private final StringBuilder line = new StringBuilder(128);
        ByteBuffer out;
        long started;
        int status;
        /** Bytes of the reply body: its Content-Length, or the sum of its chunks. */
        long bodyBytes;

        private State state;
        private long contentLength;
        private boolean chunked;
        /** Bytes left of the body (BODY) or of the current chunk (CHUNK_DATA). */
        private long left;

        Exchange(ByteBuffer request) {
            this.request = request;
        }

        void send(long now) {
            out = request.duplicate();
            started = now;
            line.setLength(0);
            state = State.HEAD;
            status = 0;
            contentLength = -1;
            chunked = false;
            bodyBytes = 0;
        }

        /**
         * Consumes reply bytes; true once the whole reply (with Content-Length, or chunked) has arrived. A server
         * answers one request at a time per connection here, so no bytes of a next reply can follow.
         */
        boolean receive(ByteBuffer bytes) throws IOException {
            while (bytes.hasRemaining() && state != State.DONE) {
                if (state == State.BODY || state == State.CHUNK_DATA) {
                    int take = (int) Math.min(left, bytes.remaining());
                    bytes.position(bytes.position() + take);
                    left -= take;
                    if (left == 0) {
                        state = state == State.BODY ? State.DONE : State.CHUNK_END;
                    }
                    continue;
                }
                char c = (char) bytes.get();
                line.append(c);
                if (c == '\n') {
                    String text = line.toString().trim();
                    line.setLength(0);
                    onLine(text);
                }
            }
            return state == State.DONE;
        }

        private void onLine(String text) throws IOException {
            switch (state) {
                case HEAD -> {
                    if (status == 0) {
                        status = Integer.parseInt(text.split(" ")[1]);
                    } else if (!text.isEmpty()) {
                        header(text);
                    } else if (chunked) {
                        state = State.CHUNK_SIZE;
                    } else if (contentLength < 0) {
                        throw new IOException("reply with neither Content-Length nor chunked: HTTP " + status);
                    } else {
                        bodyBytes = left = contentLength;
                        state = left == 0 ? State.DONE : State.BODY;
                    }
                }
                case CHUNK_SIZE -> {
                    int semicolon = text.indexOf(';');
                    left = Long.parseLong(semicolon < 0 ? text : text.substring(0, semicolon), 16);
                    bodyBytes += left;
                    state = left == 0 ? State.TRAILER : State.CHUNK_DATA;
                }
                case CHUNK_END -> state = State.CHUNK_SIZE;
                case TRAILER -> state = text.isEmpty() ? State.DONE : State.TRAILER;
                default -> throw new IllegalStateException(state.name());
            }
        }

        private void header(String text) {
            int colon = text.indexOf(':');
            String name = colon > 0 ? text.substring(0, colon) : "";
            String value = text.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                contentLength = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                chunked = value.equalsIgnoreCase("chunked");
            }
        }
    }
}
