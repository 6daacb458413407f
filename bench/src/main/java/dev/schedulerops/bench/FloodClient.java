package dev.schedulerops.bench;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A flood against an extender, bounded in time, while a paced client sends real names-only /filter requests the way
 * kube-scheduler does (one keep-alive connection, one request at a time) and measures them. Loopback or a test
 * network only: it sends to {@code --target} and nowhere else.
 *
 * <pre>
 * FloodClient --target https://127.0.0.1:8443 [--ca CA.pem] [--cert CERT.pem --key KEY.pem]
 *             [--baseline 10] [--flood 30] [--after 10]            seconds of each phase
 *             [--rate 50] [--names 500] [--timeout 5]              the paced client: requests/s, names, s per request
 *             [--slow-headers 200] [--slow-bodies 200]             slowloris connections of each kind
 *             [--slow-body-length 4000000]                         the Content-Length slow bodies announce
 *             [--big-bodies 6] [--big-body-nodes 5400]             parallel maximal full-node bodies
 *             [--handshakes 4]                                     threads doing TLS handshakes in a loop (https)
 *             [--start-at EPOCH_MILLIS]                            when the baseline starts (after the set-up)
 * </pre>
 *
 * {@code --rate 0} runs the attacks alone, sizes of 0 the paced client alone: bench/flood runs them as two processes,
 * the attackers at a lower CPU priority, both starting at one {@code --start-at}, so that the attackers (another
 * machine's, in a real attack) do not take the paced client's CPU on a small test machine.
 *
 * The paced client presents {@code --cert}/{@code --key} when given, and so do the slow and big requests, which must
 * reach HTTP to be a flood (against a mutual-TLS target they play a client that holds a certificate); the handshake
 * storm presents none. Prints a Markdown report: the paced client's requests, successes and p50/p99 per
 * phase, and per attack the connections opened and held at most at once, the closures seen and the bytes sent.
 */
public final class FloodClient {
    private final URI target;
    private final SSLContext legitTls;
    private final SSLContext anonymousTls;
    private final Map<String, String> options;
    private volatile boolean flooding;
    private volatile boolean running = true;

    private FloodClient(Map<String, String> options) throws Exception {
        this.options = options;
        this.target = URI.create(options.get("target"));
        boolean https = target.getScheme().equals("https");
        this.legitTls = https ? context(options.get("ca"), options.get("cert"), options.get("key")) : null;
        this.anonymousTls = https ? context(options.get("ca"), null, null) : null;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        if (!options.containsKey("target")) {
            System.err.println("usage: FloodClient --target http(s)://HOST:PORT [options, see the class comment]");
            System.exit(2);
        }
        new FloodClient(options).run();
    }

    private int option(String name, int fallback) {
        return Integer.parseInt(options.getOrDefault(name, Integer.toString(fallback)));
    }

    private void run() throws Exception {
        int baseline = option("baseline", 10);
        int flood = option("flood", 30);
        int after = option("after", 10);
        List<Attack> attacks = new ArrayList<>();
        attacks.add(new Slow("slow headers", option("slow-headers", 200), false));
        attacks.add(new Slow("slow bodies", option("slow-bodies", 200), true));
        attacks.add(new BigBodies(option("big-bodies", 6), option("big-body-nodes", 5400)));
        if (anonymousTls != null) {
            attacks.add(new Handshakes(option("handshakes", 4)));
        }
        attacks.removeIf(attack -> attack.size == 0);
        int rate = option("rate", 50);
        Paced paced = new Paced(Math.max(rate, 1), NodeJson.namesOnlyRequest(option("names", 500)));
        long startAt = Long.parseLong(options.getOrDefault("start-at", "0"));
        sleepNanos(TimeUnit.MILLISECONDS.toNanos(startAt - System.currentTimeMillis()));
        paced.phase("baseline");
        Thread pacer = new Thread(paced, "paced");
        if (rate > 0) {
            pacer.start();
        }
        Thread.sleep(baseline * 1000L);
        paced.phase("flood");
        flooding = true;
        List<Thread> threads = new ArrayList<>();
        for (Attack attack : attacks) {
            threads.addAll(attack.start());
        }
        Thread.sleep(flood * 1000L);
        flooding = false;
        paced.phase("after");
        for (Attack attack : attacks) {
            attack.stop();
        }
        for (Thread thread : threads) {
            thread.join(15_000);
        }
        Thread.sleep(after * 1000L);
        running = false;
        if (rate > 0) {
            pacer.join(15_000);
        }
        report(rate > 0 ? paced : null, attacks, baseline, flood, after);
    }

    private void report(Paced paced, List<Attack> attacks, int baseline, int flood, int after) {
        StringBuilder out = new StringBuilder();
        if (paced != null) {
            out.append("| phase | s | requests | 200 | success | p50 ms | p99 ms | max ms | errors |\n");
            out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
            int[] seconds = {baseline, flood, after};
            String[] names = {"baseline", "flood", "after"};
            for (int i = 0; i < names.length; i++) {
                out.append(paced.phases.get(names[i]).row(names[i], seconds[i])).append('\n');
            }
        }
        if (!attacks.isEmpty()) {
            out.append("\n| attack | threads/conns | opened | held at once (max) | closed by server | answers |");
            out.append(" bytes sent |\n|---|---:|---:|---:|---:|---|---:|\n");
            for (Attack attack : attacks) {
                out.append(attack.row()).append('\n');
            }
        }
        System.out.print(out);
    }

    // ---------------------------------------------------------------- connections

    private Socket connect(SSLContext tls, int timeoutMillis) throws IOException {
        Socket tcp = new Socket();
        tcp.connect(new InetSocketAddress(target.getHost(), target.getPort()), timeoutMillis);
        tcp.setSoTimeout(timeoutMillis);
        tcp.setTcpNoDelay(true);
        if (tls == null) {
            return tcp;
        }
        SSLSocket socket =
                (SSLSocket) tls.getSocketFactory().createSocket(tcp, target.getHost(), target.getPort(), true);
        socket.startHandshake();
        return socket;
    }

    private String head(String path, long length) {
        return "POST " + path + " HTTP/1.1\r\nHost: " + target.getHost() + "\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + length + "\r\n\r\n";
    }

    /** The status of the next answer on {@code in}, its body read by Content-Length; -1 at end of stream. */
    private static int readAnswer(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            if (b < 0) {
                return -1;
            }
            head.append((char) b);
        }
        String text = head.toString();
        int length = 0;
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.readNBytes(length);
        return Integer.parseInt(text.substring(9, 12));
    }

    // ---------------------------------------------------------------- the paced client

    private static final class Phase {
        final List<Long> micros = new ArrayList<>();
        final Map<String, Integer> errors = new ConcurrentHashMap<>();
        int requests;
        int ok;

        synchronized void record(int status, long nanos, String error) {
            requests++;
            if (status == 200) {
                ok++;
                micros.add(nanos / 1000);
            } else {
                errors.merge(error != null ? error : "HTTP " + status, 1, Integer::sum);
            }
        }

        synchronized String row(String name, int seconds) {
            List<Long> sorted = new ArrayList<>(micros);
            sorted.sort(null);
            return String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %.1f %% | %s | %s | %s | %s |",
                    name,
                    seconds,
                    requests,
                    ok,
                    requests == 0 ? 0.0 : 100.0 * ok / requests,
                    percentile(sorted, 0.50),
                    percentile(sorted, 0.99),
                    sorted.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f", sorted.get(sorted.size() - 1) / 1000.0),
                    errors.isEmpty() ? "none" : errors.toString());
        }

        private static String percentile(List<Long> sorted, double p) {
            if (sorted.isEmpty()) {
                return "-";
            }
            int index = (int) Math.min(sorted.size() - 1, Math.ceil(p * sorted.size()) - 1);
            return String.format(Locale.ROOT, "%.1f", sorted.get(Math.max(0, index)) / 1000.0);
        }
    }

    /** kube-scheduler's way: one keep-alive connection, one request at a time, RATE a second, a timeout each. */
    private final class Paced implements Runnable {
        final long intervalNanos;
        final byte[] body;
        final Map<String, Phase> phases = new ConcurrentHashMap<>();
        volatile Phase current;

        Paced(int rate, byte[] body) {
            this.intervalNanos = 1_000_000_000L / rate;
            this.body = body;
        }

        void phase(String name) {
            Phase phase = new Phase();
            phases.put(name, phase);
            current = phase;
        }

        @Override
        public void run() {
            int timeoutMillis = option("timeout", 5) * 1000;
            byte[] request = concat(head("/filter", body.length).getBytes(StandardCharsets.US_ASCII), body);
            Socket socket = null;
            long next = System.nanoTime();
            while (running) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    sleepNanos(wait);
                }
                next += intervalNanos;
                Phase phase = current;
                long started = System.nanoTime();
                try {
                    if (socket == null) {
                        socket = connect(legitTls, timeoutMillis);
                    }
                    socket.setSoTimeout(timeoutMillis);
                    OutputStream out = socket.getOutputStream();
                    out.write(request);
                    out.flush();
                    int status = readAnswer(socket.getInputStream());
                    if (status < 0) {
                        throw new IOException("connection closed");
                    }
                    long took = System.nanoTime() - started;
                    phase.record(status, took, took > timeoutMillis * 1_000_000L ? "slower than the timeout" : null);
                } catch (IOException e) {
                    phase.record(0, 0, e.getClass().getSimpleName());
                    close(socket);
                    socket = null;
                }
                if (System.nanoTime() - next > 1_000_000_000L) {
                    next = System.nanoTime(); // fell behind (a slow answer): no burst to catch up
                }
            }
            close(socket);
        }
    }

    // ---------------------------------------------------------------- attacks

    private abstract class Attack {
        final String name;
        final int size;
        final LongAdder opened = new LongAdder();
        final LongAdder closedByServer = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger maxOpen = new AtomicInteger();
        final Map<String, Integer> answers = new ConcurrentHashMap<>();

        Attack(String name, int size) {
            this.name = name;
            this.size = size;
        }

        abstract List<Thread> start();

        void stop() {}

        void opened() {
            opened.increment();
            maxOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        }

        void answer(String what) {
            answers.merge(what, 1, Integer::sum);
        }

        String row() {
            return String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %d | %s | %d |",
                    name,
                    size,
                    opened.sum(),
                    maxOpen.get(),
                    closedByServer.sum(),
                    answers.isEmpty() ? "none" : answers.toString(),
                    bytes.sum());
        }
    }

    /**
     * Slowloris: SIZE connections, each sending a request line and then one header byte a second (slow headers), or
     * complete headers announcing {@code --slow-body-length} bytes and then one body byte a second (slow bodies). A
     * connection the server closes is opened again, so the pressure stays at SIZE for the whole flood.
     */
    private final class Slow extends Attack {
        final boolean body;
        final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
        final ExecutorService openers;

        Slow(String name, int size, boolean body) {
            super(name, size);
            this.body = body;
            this.openers = Executors.newFixedThreadPool(Math.max(1, Math.min(size, 32)));
        }

        @Override
        List<Thread> start() {
            for (int i = 0; i < size; i++) {
                openers.execute(this::openOne);
            }
            Thread ticker = new Thread(this::tick, name);
            ticker.start();
            return List.of(ticker);
        }

        private void openOne() {
            if (!flooding) {
                return;
            }
            try {
                Socket socket = connect(legitTls, 10_000);
                String first = body
                        ? head("/filter", Long.parseLong(options.getOrDefault("slow-body-length", "4000000"))) + "{"
                        : "POST /filter HTTP/1.1\r\nHost: " + target.getHost() + "\r\nX-Slow: ";
                socket.getOutputStream().write(first.getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                bytes.add(first.length());
                sockets.add(socket);
                opened();
            } catch (IOException refused) {
                answer(refused.getClass().getSimpleName());
                sleepNanos(100_000_000L);
                reopen();
            }
        }

        private void reopen() {
            try {
                openers.execute(this::openOne);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                // the flood is over
            }
        }

        private void tick() {
            while (flooding) {
                for (Socket socket : sockets) {
                    try {
                        socket.getOutputStream().write('a');
                        socket.getOutputStream().flush();
                        bytes.increment();
                    } catch (IOException closed) {
                        if (sockets.remove(socket)) {
                            closedByServer.increment();
                            open.decrementAndGet();
                            close(socket);
                            reopen();
                        }
                    }
                }
                sleepNanos(1_000_000_000L);
            }
        }

        @Override
        void stop() {
            openers.shutdownNow();
            for (Socket socket : sockets) {
                close(socket);
            }
        }
    }

    /** SIZE threads, each sending a full-node /filter body of NODES nodes as fast as it can, again and again. */
    private final class BigBodies extends Attack {
        final byte[] body;

        BigBodies(int size, int nodes) {
            super("maximal bodies (" + nodes + " full nodes)", size);
            this.body = size > 0 ? NodeJson.fullNodesRequest(nodes) : new byte[0];
        }

        @Override
        String row() {
            return super.row().replace("maximal bodies (", "maximal bodies of " + body.length + " bytes (");
        }

        @Override
        List<Thread> start() {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                Thread thread = new Thread(this::loop, "big-" + i);
                thread.start();
                threads.add(thread);
            }
            return threads;
        }

        private void loop() {
            byte[] head = head("/filter", body.length).getBytes(StandardCharsets.US_ASCII);
            while (flooding) {
                Socket socket = null;
                try {
                    socket = connect(legitTls, 30_000);
                    opened();
                    OutputStream out = socket.getOutputStream();
                    out.write(head);
                    bytes.add(head.length);
                    try (InputStream chunk = new ByteArrayInputStream(body)) {
                        byte[] buffer = new byte[256 * 1024];
                        for (int n; flooding && (n = chunk.read(buffer)) > 0; ) {
                            out.write(buffer, 0, n);
                            bytes.add(n);
                        }
                    }
                    out.flush();
                    int status = readAnswer(socket.getInputStream());
                    answer(status < 0 ? "closed" : "HTTP " + status);
                } catch (IOException e) {
                    answer(e.getClass().getSimpleName());
                    closedByServer.increment();
                    sleepNanos(100_000_000L);
                } finally {
                    if (socket != null) {
                        open.decrementAndGet();
                    }
                    close(socket);
                }
            }
        }
    }

    /** SIZE threads opening TLS connections in a loop, handshaking without a client certificate, and closing them. */
    private final class Handshakes extends Attack {
        Handshakes(int size) {
            super("TLS handshake storm (no client certificate)", size);
        }

        @Override
        List<Thread> start() {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                Thread thread = new Thread(this::loop, "handshake-" + i);
                thread.start();
                threads.add(thread);
            }
            return threads;
        }

        private void loop() {
            while (flooding) {
                Socket socket = null;
                try {
                    socket = connect(anonymousTls, 10_000);
                    opened();
                    answer("handshake completed");
                } catch (IOException e) {
                    answer(e.getClass().getSimpleName());
                } finally {
                    if (socket != null) {
                        open.decrementAndGet();
                    }
                    close(socket);
                }
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private static SSLContext context(String caFile, String certFile, String keyFile) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        if (caFile != null) {
            int i = 0;
            for (Certificate ca : certificates(caFile)) {
                trust.setCertificateEntry("ca-" + i++, ca);
            }
        }
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(caFile == null ? null : trust);
        KeyManagerFactory keyManagers = null;
        if (certFile != null && keyFile != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            Collection<? extends Certificate> chain = certificates(certFile);
            keys.setKeyEntry("client", privateKey(keyFile), new char[0], chain.toArray(new Certificate[0]));
            keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, new char[0]);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        return context;
    }

    private static Collection<? extends Certificate> certificates(String file) throws Exception {
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
    }

    /** An unencrypted PKCS#8 PEM key ({@code BEGIN PRIVATE KEY}), EC or RSA. */
    private static PrivateKey privateKey(String file) throws Exception {
        String pem = Files.readString(Path.of(file));
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64));
        for (String algorithm : new String[] {"EC", "RSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (java.security.spec.InvalidKeySpecException wrongAlgorithm) {
                // try the next
            }
        }
        throw new IllegalArgumentException(file + ": not an unencrypted PKCS#8 EC or RSA key");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void close(Socket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
