package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Where the repository and the e2e module's build directory are (set by the e2e pom). */
public final class E2eSettings {
    private E2eSettings() {}

    public static Path repoRoot() {
        String configured = System.getProperty("schedulerops.repoRoot");
        if (configured != null) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isExecutable(dir.resolve("e2e/cluster"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("cannot find the repository root: set -Dschedulerops.repoRoot");
        }
        return dir;
    }

    /** {@code e2e/target}: every file the tests write goes below it. */
    public static Path targetDir() {
        String configured = System.getProperty("schedulerops.targetDir");
        return configured != null
                ? Path.of(configured).toAbsolutePath().normalize()
                : repoRoot().resolve("e2e/target");
    }

    /** {@code e2e/target/cluster-logs}: component and process logs of failed tests. */
    public static Path failureLogDir() {
        String configured = System.getProperty("schedulerops.logDir");
        return configured != null
                ? Path.of(configured).toAbsolutePath().normalize()
                : targetDir().resolve("cluster-logs");
    }

    /**
     * The extender's shaded jar; fails when it has not been built. {@code -Dschedulerops.extenderJar} names another
     * (bench/label-to-bind runs an older commit's this way, for a before-and-after).
     */
    public static Path extenderJar() {
        String other = System.getProperty("schedulerops.extenderJar");
        return other == null || other.isBlank()
                ? builtJar("extender/target/schedulerops-extender.jar")
                : Path.of(other);
    }

    /** The operator's shaded jar; fails when it has not been built. */
    public static Path operatorJar() {
        return builtJar("operator/target/schedulerops-operator.jar");
    }

    private static Path builtJar(String relative) {
        Path jar = repoRoot().resolve(relative);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: run ./mvnw -pl extender,operator package"
                    + " (./mvnw -pl e2e -am verify builds it before the e2e tests)");
        }
        return jar;
    }

    /**
     * The release version: {@code <image.tag>} of the root pom.xml, the one place it is written by hand
     * ({@code deploy/set-version} copies it into deploy/ and the READMEs).
     */
    public static String releaseVersion() {
        Path pom = repoRoot().resolve("pom.xml");
        try {
            Matcher tag = Pattern.compile("<image\\.tag>([^<]+)</image\\.tag>").matcher(Files.readString(pom));
            if (!tag.find()) {
                throw new IllegalStateException("no <image.tag> in " + pom);
            }
            return tag.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path clusterScript() {
        return repoRoot().resolve("e2e/cluster");
    }
}
