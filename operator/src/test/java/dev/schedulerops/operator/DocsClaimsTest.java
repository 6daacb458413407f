package dev.schedulerops.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs back their sentences with test names: every test class (or test program, such as bench's LoadTest) a
 * README or docs page names exists, and the supported Kubernetes range the docs state, wherever they state a range of
 * minors, is the operator's own (its catalogue list). A renamed or deleted test, or a narrowed range, fails the build
 * until the docs say so. And every measured number the docs quote links the results file it came from
 * ({@link #everyMeasuredNumberTheDocsQuoteLinksItsResultsFile}).
 */
class DocsClaimsTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern TEST_NAME = Pattern.compile("`([A-Z][A-Za-z0-9]*Test)(?:[#.][A-Za-z0-9]+)?`");
    private static final String CATALOGUE = "operator/src/main/resources/kube-scheduler/versions.txt";
    /** Two minors joined as a range, not part of a longer number nor followed by a unit; "from " marks an upgrade. */
    private static final Pattern MINOR_RANGE = Pattern.compile(
            "(from\\s+)?(?<![\\d.])(1\\.\\d{2})(?!\\.?\\d)\\s*(?:to|through|–|-)\\s*(1\\.\\d{2})(?!\\.?\\d|\\s*(?:ms|×|x\\b|%))");
    /**
     * A number with a unit of time, size or rate, or a ratio or percentage: "12 ms", "1.5 s", "300 MiB", "40 pods/s",
     * "2.1×", "3x", "95%". Not inside a longer number or word ("v1.34", "1.30.2", "k8s", "UTF-8 bytes").
     */
    private static final Pattern QUANTITY = Pattern.compile("(?<![\\w.])(?<![A-Za-z]-)\\d[\\d,]*(?:\\.\\d+)?[ \\u00a0]?"
            + "(?:ns|µs|us|ms|s|sec|secs|seconds?|min|mins|minutes?|h|hours?|days?|B|bytes|KB|kB|KiB|MB|MiB|GB|GiB"
            + "|req/s|pods/s|/s|%|×|x)(?!\\w)");
    /** A Markdown link's target, without its #fragment. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s#]+)(?:#[^)]*)?\\)");
    /** A results file named by its path from the repository's root, as in `bench/results/x.md` (not a directory/). */
    private static final Pattern RESULTS_PATH =
            Pattern.compile("(?<![\\w/.-])([\\w-]+/results/[\\w./-]*\\w)(?![\\w./*-])");

    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");
    private static final Pattern BLOCK_START = Pattern.compile("^(?:[-*+] |\\d+\\. |#)");

    @Test
    void everyTestClassTheDocsNameExists() throws IOException {
        Set<String> tests = new TreeSet<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.toString().endsWith("Test.java"))
                    .filter(f -> !f.toString().contains("/target/"))
                    .forEach(f -> tests.add(f.getFileName().toString().replace(".java", "")));
        }
        assertThat(tests).as("sanity: test classes found").contains("DocsClaimsTest", "InClusterTest");
        List<String> missing = new ArrayList<>();
        for (Path doc : docs()) {
            Matcher m = TEST_NAME.matcher(Files.readString(doc));
            while (m.find()) {
                if (!tests.contains(m.group(1))) {
                    missing.add(ROOT.relativize(doc) + " names " + m.group(1));
                }
            }
        }
        assertThat(missing).as("test classes the docs name that do not exist").isEmpty();
    }

    @Test
    void theDocsStateTheSupportedRangeTheOperatorKnows() throws IOException {
        List<String> versions = catalogue();
        String range = versions.get(0) + " to " + versions.get(versions.size() - 1);
        assertThat(Files.readString(ROOT.resolve("README.md"))).contains(range);
        assertThat(Files.readString(ROOT.resolve("docs/profiles.md")))
                .contains("Supported Kubernetes versions: " + range);
        assertThat(Files.readString(ROOT.resolve("deploy/README.md")))
                .contains("Kubernetes " + range)
                .doesNotContain("1.29 or later");
    }

    /**
     * e2e/README.md's version matrix and control-plane upgrade tables are what the committed results files say, as
     * {@code e2e/matrix --table} and {@code e2e/control-plane-upgrade --table} print them: a row cannot claim more than
     * a run recorded, and a new run's file changes the table.
     */
    @Test
    void theVersionTablesAreTheResultsFiles() throws Exception {
        String readme = Files.readString(ROOT.resolve("e2e/README.md"));
        for (String script : List.of("e2e/matrix", "e2e/control-plane-upgrade")) {
            Process process = new ProcessBuilder("bash", ROOT.resolve(script).toString(), "--table")
                    .redirectErrorStream(true)
                    .start();
            String table = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(process.waitFor()).as(script + " --table: " + table).isZero();
            assertThat(table.lines().count())
                    .as(script + " --table prints a table")
                    .isGreaterThanOrEqualTo(2);
            assertThat(readme)
                    .as("e2e/README.md holds the table %s --table prints from the results files", script)
                    .contains(table.strip());
        }
    }

    /**
     * Any range of minors a doc states ("1.30 to 1.37", "1.30-1.37", "1.30 through 1.37") lies within the supported
     * range, the catalogue's first and last minor; and where its line speaks of support, versions or the catalogue, it is
     * that range exactly. A narrower range elsewhere is a claim about some releases ("kube-scheduler 1.30 to 1.32 have no
     * ..."). Not a range: an upgrade ("from 1.33 to 1.34") and measured figures that look alike ("1.30-1.33 ms",
     * "1.41-1.51×").
     */
    @Test
    void everyRangeOfMinorsTheDocsStateIsTheOperators() throws IOException {
        List<String> versions = catalogue();
        String first = versions.get(0);
        String last = versions.get(versions.size() - 1);
        List<String> wrong = new ArrayList<>();
        int ranges = 0;
        for (Path doc : docs()) {
            String text = Files.readString(doc);
            Matcher m = MINOR_RANGE.matcher(text);
            while (m.find()) {
                if (m.group(1) != null) {
                    continue; // an upgrade from one minor to another
                }
                ranges++;
                int lineStart = text.lastIndexOf('\n', m.start()) + 1;
                int lineEnd = text.indexOf('\n', m.end());
                String sentence = text.substring(lineStart, lineEnd < 0 ? text.length() : lineEnd)
                        .toLowerCase(java.util.Locale.ROOT);
                boolean aboutSupport =
                        sentence.contains("support") || sentence.contains("catalogue") || sentence.contains("versions");
                boolean within = minor(m.group(2)) >= minor(first) && minor(m.group(3)) <= minor(last);
                boolean exact = m.group(2).equals(first) && m.group(3).equals(last);
                if (!within || (aboutSupport && !exact)) {
                    int line = (int) text.substring(0, m.start()).lines().count();
                    wrong.add(ROOT.relativize(doc) + ":" + Math.max(1, line) + " says \""
                            + m.group().strip() + "\"");
                }
            }
        }
        assertThat(ranges)
                .as("sanity: the docs state the supported range somewhere")
                .isPositive();
        assertThat(wrong)
                .as(
                        "ranges of Kubernetes minors in the docs that are not the operator's %s to %s (%s)",
                        first, last, CATALOGUE)
                .isEmpty();
    }

    /**
     * Results files are the only source of numbers (issue 44). In the docs pages ({@link #docs()}: the READMEs and
     * docs/*.md, except the generated docs/api-reference.md) every paragraph that quotes a measured quantity links the
     * results file the number came from, and that file exists.
     *
     * <ul>
     *   <li>A paragraph is a run of non-blank lines. A heading, a top-level list item ("- ", "* ", "+ ", "1. " at the
     *       start of a line) and a table (its lines that start with "|") each begin a paragraph of their own; indented
     *       lines belong to the item above them. Fenced code blocks are not paragraphs.
     *   <li>A quantity is a number with a unit of time (ns, µs, ms, s, min, h, days...), size (B, KB, MiB, GB...) or
     *       rate (req/s, pods/s, /s), or a ratio or percentage (×, x, %), written outside backticks and outside a
     *       link's target ({@link #QUANTITY}). A setting or an input, not a measurement (a timeout of {@code `5s`}, a
     *       bench's default duration), is written in backticks and so is not counted.
     *   <li>A paragraph links a results file when it holds a relative Markdown link to a file under a directory named
     *       {@code results} (resolved from the page's own directory), or names one by its path from the root
     *       ({@code bench/results/...}, {@code e2e/results/...}). Every results file a paragraph links must exist, in
     *       any paragraph; a path ending in "/" or "*" names a directory or a pattern and is not a link.
     * </ul>
     *
     * The failure lists every offending paragraph with its page and first line.
     */
    @Test
    void everyMeasuredNumberTheDocsQuoteLinksItsResultsFile() throws IOException {
        List<String> unlinked = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        int linked = 0;
        Path root = ROOT.toAbsolutePath().normalize();
        for (Path doc : docs()) {
            if (doc.getFileName().toString().equals("api-reference.md")) {
                continue; // generated from the CRD's schema
            }
            String page = ROOT.relativize(doc).toString();
            for (Paragraph p : paragraphs(Files.readAllLines(doc))) {
                List<Path> files = new ArrayList<>();
                Matcher link = LINK.matcher(p.text());
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue; // https:, mailto:
                    }
                    Path file = doc.toAbsolutePath().getParent().resolve(target).normalize();
                    if (root.relativize(file).getParent() != null
                            && ("/" + root.relativize(file).getParent() + "/").contains("/results/")) {
                        files.add(file);
                    }
                }
                Matcher path = RESULTS_PATH.matcher(p.text());
                while (path.find()) {
                    files.add(root.resolve(path.group(1)).normalize());
                }
                for (Path file : files) {
                    if (!Files.isRegularFile(file)) {
                        missing.add(page + ":" + p.line() + " links " + root.relativize(file) + ", which is not in"
                                + " the repository");
                    }
                }
                String prose =
                        LINK.matcher(CODE_SPAN.matcher(p.text()).replaceAll("")).replaceAll("]");
                List<String> quantities = new ArrayList<>();
                Matcher q = QUANTITY.matcher(prose);
                while (q.find()) {
                    quantities.add(q.group());
                }
                if (quantities.isEmpty()) {
                    continue;
                }
                if (files.isEmpty()) {
                    String first = p.text().lines().findFirst().orElse("");
                    unlinked.add(page + ":" + p.line() + " quotes " + quantities + " in \""
                            + (first.length() > 100 ? first.substring(0, 100) + "..." : first) + "\"");
                } else {
                    linked++;
                }
            }
        }
        assertThat(linked)
                .as("sanity: some paragraphs quote numbers and link their results files")
                .isPositive();
        List<String> wrong = new ArrayList<>(missing);
        wrong.addAll(unlinked);
        assertThat(wrong)
                .as("results files the docs link that are not in the repository, and paragraphs that quote a duration,"
                        + " size, rate or ratio and link no results file (link the results file the number came from,"
                        + " put a setting or input in backticks, or remove a number no committed run produced)")
                .isEmpty();
    }

    /** A paragraph of a Markdown page: its first line's number (from 1) and its text. */
    private record Paragraph(int line, String text) {}

    /** The page's paragraphs, as {@link #everyMeasuredNumberTheDocsQuoteLinksItsResultsFile} defines them. */
    private static List<Paragraph> paragraphs(List<String> lines) {
        List<Paragraph> paragraphs = new ArrayList<>();
        List<String> current = new ArrayList<>();
        int start = 0;
        boolean fence = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            boolean blank = line.isBlank();
            boolean fenceLine = line.strip().startsWith("```");
            boolean breaks = fence
                    || blank
                    || fenceLine
                    || (!current.isEmpty()
                            && (BLOCK_START.matcher(line).find()
                                    || current.get(0).startsWith("#")
                                    || line.startsWith("|")
                                            != current.get(current.size() - 1).startsWith("|")));
            if (breaks && !current.isEmpty()) {
                paragraphs.add(new Paragraph(start, String.join("\n", current)));
                current.clear();
            }
            if (fenceLine) {
                fence = !fence;
            } else if (!fence && !blank) {
                if (current.isEmpty()) {
                    start = i + 1;
                }
                current.add(line);
            }
        }
        if (!current.isEmpty()) {
            paragraphs.add(new Paragraph(start, String.join("\n", current)));
        }
        return paragraphs;
    }

    private static int minor(String version) {
        return Integer.parseInt(version.substring(version.indexOf('.') + 1));
    }

    private static List<String> catalogue() throws IOException {
        return Files.readAllLines(ROOT.resolve(CATALOGUE)).stream()
                .filter(l -> !l.startsWith("#") && !l.isBlank())
                .toList();
    }

    private static List<Path> docs() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(
                ROOT.resolve("README.md"),
                ROOT.resolve("deploy/README.md"),
                ROOT.resolve("e2e/README.md"),
                ROOT.resolve("extender/README.md"),
                ROOT.resolve("bench/README.md"),
                ROOT.resolve("samples/README.md")));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }
}
