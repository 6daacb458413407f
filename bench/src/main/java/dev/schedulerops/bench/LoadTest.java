package dev.schedulerops.bench;

import java.io.BufferedInputStream;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop HTTP load over loopback: {@code concurrency} threads, each with one keep-alive connection, send the
 * same extender request back to back for a bounded time and record every latency. Usage:
 *
 * <pre>LoadTest HOST:PORT PATH full|names NODES CONCURRENCY[,CONCURRENCY...] SECONDS WARMUP_SECONDS OUT.jsonl</pre>
 *
 * Appends one JSON line per concurrency level to OUT.jsonl and prints a summary line.
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

        byte[] body = mode.equals("full") ? NodeJson.fullNodesRequest(nodes) : NodeJson.namesOnlyRequest(nodes);
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + args[0] + "\r\nContent-Type: application/json\r\n"
                        + "Content-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        for (int concurrency : levels) {
            Result result = run(target, head, body, concurrency, seconds, warmup);
            String line = String.format(
                    Locale.ROOT,
                    "{\"path\":\"%s\",\"mode\":\"%s\",\"nodes\":%d,\"concurrency\":%d,\"seconds\":%d,"
                            + "\"requestBytes\":%d,\"requests\":%d,\"errors\":%d,\"rps\":%.1f,"
                            + "\"p50ms\":%.3f,\"p90ms\":%.3f,\"p99ms\":%.3f,\"maxms\":%.3f}",
                    path,
                    mode,
                    nodes,
                    concurrency,
                    seconds,
                    body.length,
                    result.requests,
                    result.errors,
                    result.requests / (double) seconds,
                    result.percentile(0.50),
                    result.percentile(0.90),
                    result.percentile(0.99),
                    result.percentile(1.0));
            System.out.println(line);
            try (PrintWriter writer = new PrintWriter(new FileWriter(out, StandardCharsets.UTF_8, true))) {
                writer.println(line);
            }
        }
    }

    private record Result(long requests, long errors, long[] latencies) {
        double percentile(double p) {
            if (latencies.length == 0) {
                return Double.NaN;
            }
            int index = (int) Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1);
            return latencies[Math.max(0, index)] / 1e6;
        }
    }

    private static Result run(
            InetSocketAddress target, byte[] head, byte[] body, int concurrency, int seconds, int warmup)
            throws InterruptedException {
        long start = System.nanoTime();
        long measureFrom = start + warmup * 1_000_000_000L;
        long stopAt = measureFrom + seconds * 1_000_000_000L;
        List<long[]> perThread = new ArrayList<>();
        AtomicLong errors = new AtomicLong();
        long[] counts = new long[concurrency];
        CountDownLatch done = new CountDownLatch(concurrency);
        for (int t = 0; t < concurrency; t++) {
            long[][] holder = new long[1][];
            int id = t;
            perThread.add(null);
            Thread thread = new Thread(
                    () -> {
                        long[] latencies = new long[1 << 16];
                        int n = 0;
                        try (Socket socket = new Socket()) {
                            socket.setTcpNoDelay(true);
                            socket.connect(target, 5000);
                            socket.setSoTimeout(30_000);
                            OutputStream out = socket.getOutputStream();
                            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
                            byte[] sink = new byte[64 * 1024];
                            long now;
                            while ((now = System.nanoTime()) < stopAt) {
                                out.write(head);
                                out.write(body);
                                out.flush();
                                boolean ok = readResponse(in, sink);
                                long end = System.nanoTime();
                                if (!ok) {
                                    errors.incrementAndGet();
                                }
                                if (now >= measureFrom) {
                                    if (n == latencies.length) {
                                        latencies = Arrays.copyOf(latencies, n * 2);
                                    }
                                    latencies[n++] = end - now;
                                }
                            }
                        } catch (IOException e) {
                            errors.incrementAndGet();
                        } finally {
                            holder[0] = Arrays.copyOf(latencies, n);
                            synchronized (perThread) {
                                perThread.set(id, holder[0]);
                                counts[id] = n;
                            }
                            done.countDown();
                        }
                    },
                    "load-" + t);
            thread.start();
        }
        done.await();
        long[] all = perThread.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new Result(Arrays.stream(counts).sum(), errors.get(), all);
    }

    /** Reads one HTTP/1.1 response with Content-Length; true when its status is 200. */
    private static boolean readResponse(InputStream in, byte[] sink) throws IOException {
        String status = readLine(in);
        long length = -1;
        String line;
        while (!(line = readLine(in)).isEmpty()) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).equalsIgnoreCase("Content-Length")) {
                length = Long.parseLong(line.substring(colon + 1).trim());
            }
        }
        if (length < 0) {
            throw new IOException("response without Content-Length: " + status);
        }
        while (length > 0) {
            int n = in.read(sink, 0, (int) Math.min(sink.length, length));
            if (n < 0) {
                throw new IOException("connection closed mid-response");
            }
            length -= n;
        }
        return status.startsWith("HTTP/1.1 200");
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder(64);
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
