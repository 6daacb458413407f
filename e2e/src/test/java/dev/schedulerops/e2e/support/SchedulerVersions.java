package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The kube-scheduler of every supported minor version ({@code e2e/scheduler-versions}), as
 * {@code e2e/cluster build-schedulers} leaves them in {@code ~/.cache/schedulerops/k8s/<version>/kube-scheduler}.
 */
public final class SchedulerVersions {
    private SchedulerVersions() {}

    /** One supported release: e.g. "1.33.13" and where its kube-scheduler is. */
    public record Release(String version, Path kubeScheduler) {
        public String minor() {
            return version.substring(0, version.lastIndexOf('.'));
        }

        @Override
        public String toString() {
            return "v" + version;
        }
    }

    public static List<Release> all() {
        Path file = E2eSettings.repoRoot().resolve("e2e/scheduler-versions");
        Path cache = Path.of(System.getProperty("user.home"), ".cache/schedulerops/k8s");
        try {
            return Files.readAllLines(file).stream()
                    .map(line -> line.replaceAll("#.*", "").trim())
                    .filter(line -> !line.isEmpty())
                    .map(v -> new Release(v, cache.resolve(v).resolve("kube-scheduler")))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every release, failing (never skipping: ./test builds them first) when a binary is missing. */
    public static List<Release> built() {
        List<Release> all = all();
        List<String> missing = all.stream()
                .filter(r -> !Files.isExecutable(r.kubeScheduler()))
                .map(Release::toString)
                .toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("kube-scheduler " + missing + " not built: run 'e2e/cluster"
                    + " build-schedulers' (./test does; each takes a few minutes cold on 2 cores)");
        }
        return all;
    }
}
