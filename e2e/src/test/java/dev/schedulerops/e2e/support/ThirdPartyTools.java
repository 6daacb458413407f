package dev.schedulerops.e2e.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The third-party binaries {@code e2e/tools/build} puts into {@code ~/.cache/schedulerops/tools/<name>-<version>/} (or
 * {@code -Dschedulerops.tools.dir}): Flux's controllers and CRDs, our Git server, Argo CD. A tool is there when its
 * directory holds {@code .complete}. Also promtool (the {@code prometheus} tool). {@code ./test} builds them in the
 * background while the tests run (a test waits for its tool: {@link BackgroundBuild}) and passes the directory as
 * {@code -Dschedulerops.tools.dir}: then a missing tool fails the test. Without the property (a developer's run) a
 * missing tool skips it, saying so on the console.
 */
public final class ThirdPartyTools {
    public static final String PROPERTY = "schedulerops.tools.dir";

    private ThirdPartyTools() {}

    public static Path root() {
        String configured = System.getProperty(PROPERTY);
        return configured != null && !configured.isBlank()
                ? Path.of(configured).toAbsolutePath().normalize()
                : Path.of(System.getProperty("user.home"), ".cache/schedulerops/tools");
    }

    /** Whether the run promised the tools ({@code ./test} passes {@value #PROPERTY} after building them). */
    public static boolean required() {
        String configured = System.getProperty(PROPERTY);
        return configured != null && !configured.isBlank();
    }

    /** {@code flux-v<version>/}: source-controller, kustomize-controller and crds/. */
    public static Path flux(String testClass) {
        return require(testClass, "flux", versioned("flux"));
    }

    /** The {@code argocd} binary of {@code argocd-v<version>/}. */
    public static Path argocd(String testClass) {
        return require(testClass, "argocd", versioned("argocd")).resolve("argocd");
    }

    /**
     * The {@code argocd} binary when it is built; when it is not, fails if the tools are {@link #required}, else says
     * on the console that {@code what} is skipped.
     */
    public static Optional<Path> argocdIfPresent(String testClass, String what) {
        BackgroundBuild.await("argocd");
        Path dir = versioned("argocd");
        if (present(dir)) {
            return Optional.of(dir.resolve("argocd"));
        }
        String reason = missing("argocd", dir);
        if (required()) {
            throw new IllegalStateException(reason + " (-D" + PROPERTY + " was given, so the tools must be there)");
        }
        System.out.println("SKIPPED " + testClass + " (" + what + "): " + reason);
        return Optional.empty();
    }

    /** The {@code promtool} binary of {@code prometheus-v<version>/}. */
    public static Path promtool(String testClass) {
        return require(testClass, "prometheus", versioned("prometheus")).resolve("promtool");
    }

    /** The {@code prometheus} server binary of {@code prometheus-v<version>/} (API only, no web UI). */
    public static Path prometheus(String testClass) {
        return require(testClass, "prometheus", versioned("prometheus")).resolve("prometheus");
    }

    /** The {@code gitserver} binary built from e2e/src/test/go/gitserver as it is now. */
    public static Path gitserver(String testClass) {
        return require(testClass, "gitserver", root().resolve("gitserver-" + gitserverSourceHash()))
                .resolve("gitserver");
    }

    /** The directory {@code e2e/tools/build list} names for {@code tool} (its version is the script's default). */
    private static Path versioned(String tool) {
        Commands.Result list = Commands.run(
                        List.of(
                                E2eSettings.repoRoot()
                                        .resolve("e2e/tools/build")
                                        .toString(),
                                "list"),
                        null,
                        Map.of("SCHEDULEROPS_TOOLS_DIR", root().toString()),
                        Duration.ofSeconds(30))
                .requireSuccess("e2e/tools/build list");
        return list.stdout()
                .lines()
                .map(line -> line.trim().split("\\s+"))
                .filter(fields -> fields.length == 3 && fields[0].equals(tool))
                .map(fields -> Path.of(fields[2]))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("e2e/tools/build list names no " + tool));
    }

    private static Path require(String testClass, String tool, Path dir) {
        BackgroundBuild.await(tool);
        boolean present = present(dir);
        String reason = missing(tool, dir);
        if (!present && required()) {
            throw new IllegalStateException(reason + " (-D" + PROPERTY + " was given, so the tools must be there)");
        }
        if (!present) {
            // Surefire keeps skip reasons in its report files; say it on the console too, where readers look.
            System.out.println("SKIPPED " + testClass + ": " + reason);
        }
        assumeTrue(present, reason);
        return dir;
    }

    private static boolean present(Path dir) {
        return Files.isRegularFile(dir.resolve(".complete"));
    }

    private static String missing(String tool, Path dir) {
        return tool + " is not built in " + dir + ": run e2e/tools/build " + tool
                + " (./test builds it; the first build of flux or argocd takes 10 to 25 minutes on 2 cores)";
    }

    /** The cache key e2e/tools/build uses: the first 12 hex digits of sha256(go.mod go.sum *.go). */
    static String gitserverSourceHash() {
        Path source = E2eSettings.repoRoot().resolve("e2e/src/test/go/gitserver");
        try (Stream<Path> files = Files.list(source)) {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update(Files.readAllBytes(source.resolve("go.mod")));
            sha256.update(Files.readAllBytes(source.resolve("go.sum")));
            for (Path go : files.filter(f -> f.getFileName().toString().endsWith(".go"))
                    .sorted()
                    .toList()) {
                sha256.update(Files.readAllBytes(go));
            }
            return HexFormat.of().formatHex(sha256.digest()).substring(0, 12);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
