import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The skips of a test run, from the Surefire XML reports (every module's target/*reports*&#47;TEST-*.xml): prints them
 * with their reasons and exits 1 when one is not an expected skip below. A skip is not a pass: ./test calls this
 * at its end, so that a test that skips itself for a missing tool, binary or privilege cannot pass unnoticed.
 *
 * <pre>
 *   java .ci/SkippedTests.java [--newer-than FILE]   (only reports written after FILE was: this run's)
 * </pre>
 */
public class SkippedTests {
    /** A skip ./test expects: the test class and a phrase of its reason, and why it is expected. */
    record Expected(String testClass, String reasonContains, String why) {}

    static final List<Expected> EXPECTED = List.of(
            // Needs a Docker engine (Testcontainers' k3s), which CI machines do not have; `./test k3s` runs it where
            // one is.
            new Expected(
                    "dev.schedulerops.e2e.K3sInstallTest",
                    "No Docker engine",
                    "./test has no Docker; ./test k3s runs it where one is"),
            // Needs a second Kubernetes minor's binaries and kube-scheduler image, a build of its own:
            // e2e/control-plane-upgrade builds them and passes -Dschedulerops.upgrade.to.
            new Expected(
                    "dev.schedulerops.e2e.ControlPlaneUpgradeTest",
                    "needs the next minor's kube-apiserver",
                    "e2e/control-plane-upgrade runs it with a second version"));

    record Skip(String testClass, String test, String reason) {}

    public static void main(String[] args) throws Exception {
        FileTime newerThan = null;
        if (args.length == 2 && args[0].equals("--newer-than")) {
            newerThan = Files.getLastModifiedTime(Path.of(args[1]));
        } else if (args.length != 0) {
            System.err.println("usage: java .ci/SkippedTests.java [--newer-than FILE]");
            System.exit(2);
        }
        List<Path> reports = reports(Path.of("."), newerThan);
        if (reports.isEmpty()) {
            System.err.println("no Surefire reports found (*/target/*reports*/TEST-*.xml)");
            System.exit(1);
        }
        int tests = 0;
        List<Skip> skips = new ArrayList<>();
        var factory = DocumentBuilderFactory.newInstance();
        for (Path report : reports) {
            Element suite = factory.newDocumentBuilder().parse(report.toFile()).getDocumentElement();
            NodeList cases = suite.getElementsByTagName("testcase");
            tests += cases.getLength();
            for (int i = 0; i < cases.getLength(); i++) {
                Element testCase = (Element) cases.item(i);
                NodeList skipped = testCase.getElementsByTagName("skipped");
                if (skipped.getLength() > 0) {
                    skips.add(new Skip(
                            testCase.getAttribute("classname"),
                            testCase.getAttribute("name"),
                            reason((Element) skipped.item(0))));
                }
            }
        }
        List<Skip> unexpected = new ArrayList<>();
        System.out.printf("%d test cases in %d reports, %d skipped%n", tests, reports.size(), skips.size());
        for (Skip skip : skips) {
            String verdict = EXPECTED.stream()
                    .filter(e -> e.testClass().equals(skip.testClass()) && skip.reason().contains(e.reasonContains()))
                    .map(e -> "expected: " + e.why())
                    .findFirst()
                    .orElse("UNEXPECTED");
            if (verdict.equals("UNEXPECTED")) {
                unexpected.add(skip);
            }
            System.out.printf(
                    "  %-30s %s%n      reason: %s%n      %s%n",
                    simpleName(skip.testClass()), skip.test(), skip.reason(), verdict);
        }
        if (!unexpected.isEmpty()) {
            System.err.printf(
                    "%d unexpected skip(s): a skip is not a pass. Make the test run (or fail), or add it to"
                            + " .ci/SkippedTests.java's EXPECTED with the reason it may skip.%n",
                    unexpected.size());
            System.exit(1);
        }
    }

    /** TEST-*.xml in every reports directory under a module's target/ (one module level deep, as this repo has). */
    static List<Path> reports(Path root, FileTime newerThan) throws IOException {
        List<Path> found = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path target : modules.map(m -> m.resolve("target")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> dirs = Files.list(target)) {
                    for (Path dir : dirs.filter(d -> Files.isDirectory(d)
                                    && d.getFileName().toString().contains("reports"))
                            .toList()) {
                        try (Stream<Path> files = Files.list(dir)) {
                            files.filter(f -> f.getFileName().toString().startsWith("TEST-")
                                            && f.toString().endsWith(".xml"))
                                    .filter(f -> newerThan == null || modified(f).compareTo(newerThan) > 0)
                                    .sorted()
                                    .forEach(found::add);
                        }
                    }
                }
            }
        }
        return found;
    }

    /** The skip's message, or the first line of its text (an assumption's stack trace starts with its message). */
    static String reason(Element skipped) {
        String message = skipped.getAttribute("message");
        if (!message.isBlank()) {
            return message.strip();
        }
        String text = skipped.getTextContent().strip();
        String first = text.lines().findFirst().orElse("(no reason given)");
        return first.replaceFirst("^org\\.opentest4j\\.TestAbortedException: ", "");
    }

    static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
