package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A test case kept as a YAML file whose expected outcome sits next to it, in a {@code # expect: ...} comment:
 * {@code accepted}, {@code rejected: <text the message contains>}, or just the expected message text. An optional
 * {@code # kubernetes: 1.31.4} comment names the release (of {@code e2e/scheduler-versions}) whose kube-scheduler
 * judges the case; without it, the one {@code e2e/cluster build} made.
 */
public record ExpectComment(Path file, String expectation) {

    public static ExpectComment of(Path file) {
        try {
            String expectation = Files.readAllLines(file).stream()
                    .filter(line -> line.startsWith("# expect:"))
                    .map(line -> line.substring("# expect:".length()).trim())
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(file + " has no '# expect: ...' comment"));
            return new ExpectComment(file, expectation);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Every {@code *.yaml} of a directory under {@code e2e/src/test/resources}, sorted by name. Read from the
     * sources rather than the classpath, so a deleted case cannot linger in {@code target/test-classes}.
     */
    public static List<ExpectComment> allIn(String resourceDir) {
        Path dir = E2eSettings.repoRoot().resolve("e2e/src/test/resources").resolve(resourceDir);
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".yaml"))
                    .sorted()
                    .map(ExpectComment::of)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list test cases in " + dir, e);
        }
    }

    public boolean expectsAccepted() {
        return expectation.startsWith("accepted");
    }

    /** The text after {@code rejected:}, or the whole expectation when it has no verdict word. */
    public String expectedMessage() {
        return expectation.startsWith("rejected:")
                ? expectation.substring("rejected:".length()).trim()
                : expectation;
    }

    /** The release of a {@code # kubernetes: ...} comment, if the case has one. */
    public Optional<String> kubernetesVersion() {
        return yaml().lines()
                .filter(line -> line.startsWith("# kubernetes:"))
                .map(line -> line.substring("# kubernetes:".length()).trim())
                .findFirst();
    }

    public String yaml() {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String name() {
        return file.getFileName().toString();
    }

    @Override
    public String toString() {
        return name();
    }
}
