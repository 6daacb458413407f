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
 * until the docs say so.
 */
class DocsClaimsTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern TEST_NAME = Pattern.compile("`([A-Z][A-Za-z0-9]*Test)(?:[#.][A-Za-z0-9]+)?`");
    private static final String CATALOGUE = "operator/src/main/resources/kube-scheduler/versions.txt";
    /** Two minors joined as a range, not part of a longer number nor followed by a unit; "from " marks an upgrade. */
    private static final Pattern MINOR_RANGE = Pattern.compile(
            "(from\\s+)?(?<![\\d.])(1\\.\\d{2})(?!\\.?\\d)\\s*(?:to|through|–|-)\\s*(1\\.\\d{2})(?!\\.?\\d|\\s*(?:ms|×|x\\b|%))");

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
