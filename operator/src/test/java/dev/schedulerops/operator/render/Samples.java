package dev.schedulerops.operator.render;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ApiServerEndpoint;
import dev.schedulerops.operator.model.ClusterFacts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The repository's samples/ and the fixed facts the golden files are rendered with. */
public final class Samples {
    public static final Path DIR = Path.of("..", "samples");
    public static final ClusterFacts FACTS = new ClusterFacts(
                    "1.33.13",
                    // A fixed tag, not the release version: a release (deploy/set-version) leaves the goldens alone.
                    "ghcr.io/schedulerops/schedulerops-extender:golden",
                    ClusterFacts.DEFAULT_SCHEDULER_IMAGE_REPOSITORY)
            // An address of the documentation range (RFC 5737): the extenders' egress policy names it.
            .withApiServer(List.of(new ApiServerEndpoint("192.0.2.10", 6443)));

    private Samples() {}

    public static List<Path> files() {
        try (Stream<Path> files = Files.list(DIR)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static SchedulerProfile load(Path file) {
        try {
            return ProfileYaml.readAll(file).get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A profile "p" from inline YAML; the test's own minimal spec goes in {@code specYaml}. */
    public static SchedulerProfile profile(String specYaml) {
        String yaml = "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata:\n  name: p\n"
                + "spec:\n"
                + specYaml.stripIndent().lines().map(l -> "  " + l).reduce("", (a, b) -> a + b + "\n");
        try {
            return ProfileYaml.readOne(yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
