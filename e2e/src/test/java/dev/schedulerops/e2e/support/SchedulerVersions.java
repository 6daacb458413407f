package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

        /** k8s.io/kubernetes of this release in the Go module cache (build-schedulers downloads it). */
        public Path kubernetesSources() {
            return ModuleCache.PATH.resolve("k8s.io").resolve("kubernetes@v" + version);
        }

        @Override
        public String toString() {
            return "v" + version;
        }
    }

    /** Where Go keeps modules: `go env GOMODCACHE`, asked once per test JVM (on first use, by the holder idiom). */
    private static final class ModuleCache {
        static final Path PATH = ask();

        private static Path ask() {
            try {
                Process go = new ProcessBuilder("go", "env", "GOMODCACHE")
                        .redirectErrorStream(true)
                        .start();
                String out = new String(go.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                if (!go.waitFor(30, TimeUnit.SECONDS) || go.exitValue() != 0 || out.isEmpty()) {
                    throw new IllegalStateException("go env GOMODCACHE failed: " + out);
                }
                return Path.of(out);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run go env GOMODCACHE (is Go on PATH?)", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
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

    /** Every release, failing (never skipping: ./test builds them, a test waits for them) when a binary is missing. */
    public static List<Release> built() {
        BackgroundBuild.await(BackgroundBuild.SCHEDULERS);
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

    /** The built releases of {@code versions} (e.g. "1.31.4"); fails on one that e2e/scheduler-versions lacks. */
    public static List<Release> built(List<String> versions) {
        List<Release> built = built();
        List<String> unknown = versions.stream()
                .filter(v -> built.stream().noneMatch(r -> r.version().equals(v)))
                .toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(unknown + " not in e2e/scheduler-versions");
        }
        return built.stream().filter(r -> versions.contains(r.version())).toList();
    }
}
