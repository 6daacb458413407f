package dev.schedulerops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The regression guard of the extender's request path, in every build: what a full-node and a names-only filter and
 * prioritize of 1000 and 5000 nodes cost in process, as a ratio to a reference loop (a fixed byte-by-byte scan of the
 * 1000-node full request) timed in the same run, by the thread's CPU time, rounds interleaved, the least of
 * {@link #ROUNDS} rounds over the least of the reference's. A slower or busier machine slows both alike; the ratio
 * moves when the path's own cost does. It fails when a case's ratio exceeds its committed baseline by more than the
 * baseline's margin in {@link #ATTEMPTS} measurements.
 *
 * <p>The baseline is {@code bench/results/request-cost-guard.md}, a results file this test writes with
 * {@code -Dguard.update=true}, and it belongs to the sources it was measured on: it records their fingerprint (the
 * extender's protocol, verbs and scoring packages, the node cache's index, the Jackson version and this class), and
 * the guard fails when they changed and the file was not written again. So every change to the path comes with its
 * measured cost. An update that finds a case beyond the margin is refused unless {@code -Dguard.accept=REASON} says
 * why, and the reason goes into the file.
 */
class RequestCostGuardTest {
    private static final Path ROOT = Path.of("..");
    private static final Path RESULTS = ROOT.resolve("bench/results/request-cost-guard.md");
    private static final int ROUNDS = 7;
    private static final int WARMUP_ROUNDS = 1;
    private static final long SAMPLE_NANOS = 10_000_000;
    private static final double DEFAULT_MARGIN = 0.30;
    /** Measurements at most (the least ratio of each case counts): a check measures again only while it fails. */
    private static final int ATTEMPTS = 3;

    private static final String UPDATE = "./mvnw -pl extender,bench -am test -Dtest=RequestCostGuardTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dguard.update=true";
    private static final Pattern BASELINE_LINE =
            Pattern.compile("^([a-z]+ [a-z]+ \\d+): ([0-9.]+(?:e-?[0-9]+)?)$", Pattern.MULTILINE);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Where results go, so that the JIT cannot drop the work. */
    private static long sink;

    /** One measured operation. */
    private interface Operation {
        long run() throws Exception;
    }

    private record Case(String name, Operation operation) {}

    @Test
    void theRequestPathCostsNoMoreThanItsBaseline() throws Exception {
        String fingerprint = fingerprint();
        Map<String, Double> baseline = Files.exists(RESULTS) ? baseline(Files.readString(RESULTS)) : Map.of();
        boolean update = Boolean.getBoolean("guard.update");
        // Only an update sets a new margin (-Dguard.margin=0.5), and the file records it.
        double margin = update && System.getProperty("guard.margin") != null
                ? Double.parseDouble(System.getProperty("guard.margin"))
                : margin();
        Map<String, Double> measured = measure();
        if (Runtime.getRuntime().availableProcessors() >= 2) {
            assertThat(secondHalfThread)
                    .as(
                            "the extender's %s thread, whose CPU time the full-node cases include (renamed?)",
                            SECOND_HALF_THREAD)
                    .isNotNull();
        }
        // A busy machine can slow one sample of every round; a real regression survives measuring again.
        for (int attempt = 1;
                attempt < ATTEMPTS
                        && (update || !beyond(measured, baseline, margin).isEmpty());
                attempt++) {
            measure().forEach((name, ratio) -> measured.merge(name, ratio, Math::min));
        }
        List<String> beyond = beyond(measured, baseline, margin);
        System.out.println("request cost guard, ratios to the reference loop: " + measured + "; baseline: " + baseline);

        if (update) {
            String accepted = System.getProperty("guard.accept", "");
            assertThat(beyond)
                    .as("cases costlier than the old baseline allows; pass -Dguard.accept=REASON to write the new"
                            + " baseline anyway, with the reason")
                    .isEmpty();
            write(fingerprint, measured, baseline, margin, accepted);
            return;
        }
        assertThat(Files.exists(RESULTS)).as("no baseline: run " + UPDATE).isTrue();
        assertThat(fingerprintOf(Files.readString(RESULTS)))
                .as("the request path changed since %s was written: run %s and commit the file", RESULTS, UPDATE)
                .isEqualTo(fingerprint);
        assertThat(baseline.keySet()).containsExactlyInAnyOrderElementsOf(measured.keySet());
        assertThat(beyond).as("cases costlier than their baseline allows").isEmpty();
    }

    /** The cases whose ratio exceeds its baseline by more than {@code margin}, each with the figures. */
    static List<String> beyond(Map<String, Double> measured, Map<String, Double> baseline, double margin) {
        List<String> beyond = new ArrayList<>();
        for (Map.Entry<String, Double> ratio : measured.entrySet()) {
            Double old = baseline.get(ratio.getKey());
            if (old != null && ratio.getValue() > old * (1 + margin)) {
                beyond.add(String.format(
                        Locale.ROOT,
                        "%s: %.4g against a baseline of %.4g (+%.0f %%, margin %.0f %%)",
                        ratio.getKey(),
                        ratio.getValue(),
                        old,
                        100 * (ratio.getValue() / old - 1),
                        100 * margin));
            }
        }
        return beyond;
    }

    /**
     * Each case's least CPU per operation over the rounds, over the reference loop's least (timed before each case's
     * sample): noise only ever adds time, so the least of each is the steadiest.
     */
    private static Map<String, Double> measure() throws Exception {
        byte[] reference = NodeJson.fullNodesRequest(1000);
        List<Case> cases = new ArrayList<>();
        for (int nodes : new int[] {1000, 5000}) {
            ExtenderVerbs verbs =
                    new ExtenderVerbs(NodeJson.LABEL_KEY, NodeJson.staticCache(nodes), args -> BindResult.bound());
            byte[] full = nodes == 1000 ? reference : NodeJson.fullNodesRequest(nodes);
            byte[] names = NodeJson.namesOnlyRequest(nodes);
            for (Verb verb : new Verb[] {Verb.FILTER, Verb.PRIORITIZE}) {
                String name = verb.path().substring(1);
                cases.add(new Case("full " + name + " " + nodes, () -> answer(verbs, verb, full)));
                cases.add(new Case("names " + name + " " + nodes, () -> answer(verbs, verb, names)));
            }
        }
        Operation referenceLoop = () -> quotes(reference);
        long referenceOps = opsPerSample(referenceLoop);
        long[] ops = new long[cases.size()];
        for (int c = 0; c < cases.size(); c++) {
            ops[c] = opsPerSample(cases.get(c).operation());
        }
        double leastReference = Double.MAX_VALUE;
        double[] least = new double[cases.size()];
        java.util.Arrays.fill(least, Double.MAX_VALUE);
        for (int round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
            for (int c = 0; c < cases.size(); c++) {
                double referenceCost = cpuPerOp(referenceLoop, referenceOps);
                double cost = cpuPerOp(cases.get(c).operation(), ops[c]);
                if (round >= 0) {
                    leastReference = Math.min(leastReference, referenceCost);
                    least[c] = Math.min(least[c], cost);
                }
            }
        }
        Map<String, Double> ratios = new LinkedHashMap<>();
        for (int c = 0; c < cases.size(); c++) {
            ratios.put(cases.get(c).name(), least[c] / leastReference);
        }
        return ratios;
    }

    private static long answer(ExtenderVerbs verbs, Verb verb, byte[] body) throws Exception {
        Reply reply = verbs.answer(verb, body).reply();
        long length = reply.length() + reply.segments().size();
        reply.release();
        return length;
    }

    /** The reference loop: never change it without writing the baseline again (this file is in the fingerprint). */
    private static long quotes(byte[] body) {
        long quotes = 0;
        for (byte b : body) {
            if (b == '"') {
                quotes++;
            } else if (b == '{') {
                quotes += 3;
            }
        }
        return quotes;
    }

    /** Operations of about {@link #SAMPLE_NANOS} of CPU, after running it for a while (so the JIT compiles it). */
    private static long opsPerSample(Operation operation) throws Exception {
        long ops = 1;
        double perOp;
        long warm = 0;
        do {
            perOp = cpuPerOp(operation, ops);
            warm += (long) (perOp * ops);
            ops = Math.max(1, (long) (SAMPLE_NANOS / Math.max(perOp, 1)));
        } while (warm < 10 * SAMPLE_NANOS);
        return ops;
    }

    private static double cpuPerOp(Operation operation, long ops) throws Exception {
        findSecondHalfThread(); // before the sample, not in it
        long start = requestPathCpuTime();
        for (long i = 0; i < ops; i++) {
            sink += operation.run();
        }
        return (double) (requestPathCpuTime() - start) / ops;
    }

    /**
     * The thread that reads the second half of a large node array (FullNodesScanner.Halves), with two processors or
     * more: its CPU time is the request's too. Found once it has started.
     */
    static final String SECOND_HALF_THREAD = "extender-second-half";

    private static Thread secondHalfThread;

    private static void findSecondHalfThread() {
        if (secondHalfThread == null) {
            secondHalfThread = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals(SECOND_HALF_THREAD))
                    .findFirst()
                    .orElse(null);
        }
    }

    /** This thread's CPU time and the second-half thread's: all a request costs, wherever it ran. */
    private static long requestPathCpuTime() {
        long helper = secondHalfThread == null ? 0 : Math.max(0, THREADS.getThreadCpuTime(secondHalfThread.getId()));
        return THREADS.getCurrentThreadCpuTime() + helper;
    }

    private static double margin() throws IOException {
        if (Files.exists(RESULTS)) {
            Matcher m =
                    Pattern.compile("^margin: ([0-9.]+)$", Pattern.MULTILINE).matcher(Files.readString(RESULTS));
            if (m.find()) {
                return Double.parseDouble(m.group(1));
            }
        }
        return DEFAULT_MARGIN;
    }

    static Map<String, Double> baseline(String results) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        Matcher m = BASELINE_LINE.matcher(results);
        while (m.find()) {
            ratios.put(m.group(1), Double.parseDouble(m.group(2)));
        }
        return ratios;
    }

    static String fingerprintOf(String results) {
        Matcher m = Pattern.compile("^path fingerprint: ([0-9a-f]+)$", Pattern.MULTILINE)
                .matcher(results);
        return m.find() ? m.group(1) : "(none)";
    }

    /** SHA-256 over the request path's sources, their paths and the Jackson version. */
    static String fingerprint() throws Exception {
        Path main = ROOT.resolve("extender/src/main/java/dev/schedulerops/extender");
        List<Path> files = new ArrayList<>();
        for (String dir : new String[] {"protocol", "verbs", "scoring"}) {
            try (Stream<Path> walk = Files.walk(main.resolve(dir))) {
                walk.filter(f -> f.toString().endsWith(".java")).forEach(files::add);
            }
        }
        files.add(main.resolve("nodecache/NodeLabelIndex.java"));
        files.add(main.resolve("nodecache/NodeCache.java"));
        files.add(ROOT.resolve("bench/src/test/java/dev/schedulerops/bench/RequestCostGuardTest.java"));
        files.sort(null);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (Path file : files) {
            sha.update(ROOT.relativize(file).toString().getBytes(StandardCharsets.UTF_8));
            sha.update(Files.readAllBytes(file));
        }
        Matcher jackson = Pattern.compile("<jackson.version>([^<]+)</jackson.version>")
                .matcher(Files.readString(ROOT.resolve("pom.xml")));
        sha.update((jackson.find() ? jackson.group(1) : "?").getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(sha.digest());
    }

    private static void write(
            String fingerprint, Map<String, Double> measured, Map<String, Double> old, double margin, String accepted)
            throws Exception {
        StringBuilder out = new StringBuilder("# Request cost guard: the extender's request path in process\n\n");
        out.append("- date: ")
                .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
                .append('\n');
        out.append("- commit: ").append(git("rev-parse", "HEAD"));
        if (!git("status", "--porcelain", "--untracked-files=no").isBlank()) {
            out.append(" plus uncommitted changes");
        }
        out.append('\n');
        out.append("- machine: ")
                .append(System.getProperty("os.name"))
                .append(' ')
                .append(System.getProperty("os.arch"))
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores (")
                .append(cpuModel())
                .append("), JDK ")
                .append(System.getProperty("java.version"))
                .append('\n');
        out.append("- load average: ")
                .append(Files.readString(Path.of("/proc/loadavg")).trim())
                .append('\n');
        out.append("- command: `").append(UPDATE).append("`\n\n");
        out.append(
                        "Each ratio: the case's CPU time per operation (the CPU time of the calling thread and of the thread that"
                                + " reads the second half of a large node array, reply built and released as the server")
                .append(
                        " does) over the reference loop's (a byte-by-byte scan of the 1000-node full request), the least")
                .append(" of ")
                .append(ROUNDS)
                .append(" interleaved rounds after ")
                .append(WARMUP_ROUNDS)
                .append(" of warm-up. `RequestCostGuardTest` fails in every build when a ratio exceeds its baseline")
                .append(
                        " below by more than the margin, or when the path's sources no longer match the fingerprint.\n\n");
        out.append("| case | ratio | previous baseline | change |\n|---|---:|---:|---:|\n");
        for (Map.Entry<String, Double> e : measured.entrySet()) {
            Double before = old.get(e.getKey());
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.4g | %s | %s |%n",
                    e.getKey(),
                    e.getValue(),
                    before == null ? "–" : String.format(Locale.ROOT, "%.4g", before),
                    before == null ? "–" : String.format(Locale.ROOT, "%+.0f %%", 100 * (e.getValue() / before - 1))));
        }
        if (!accepted.isBlank()) {
            out.append("\nAccepted beyond the margin: ").append(accepted).append('\n');
        }
        out.append("\n## Baseline (read by RequestCostGuardTest)\n\n```\n");
        out.append("path fingerprint: ").append(fingerprint).append('\n');
        out.append(String.format(Locale.ROOT, "margin: %.2f%n", margin));
        for (Map.Entry<String, Double> e : measured.entrySet()) {
            out.append(String.format(Locale.ROOT, "%s: %.4g%n", e.getKey(), e.getValue()));
        }
        out.append("```\n");
        Files.writeString(RESULTS, out.toString());
    }

    private static String git(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("git", "-C", ROOT.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return p.waitFor() == 0 ? output : "unknown";
    }

    private static String cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown cpu");
        } catch (IOException e) {
            return "unknown cpu";
        }
    }
}
