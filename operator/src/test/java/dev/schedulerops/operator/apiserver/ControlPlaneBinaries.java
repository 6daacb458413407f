package dev.schedulerops.operator.apiserver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where kube-apiserver and etcd are: {@code $SCHEDULEROPS_K8S_BIN}, else {@code e2e/cluster build}'s cache
 * {@code ~/.cache/schedulerops/k8s/<version>}. Missing binaries fail the tier with the command that builds them; the
 * tier is never skipped.
 */
record ControlPlaneBinaries(Path dir) {
    /** The Kubernetes version {@code e2e/cluster} builds by default. */
    static final String DEFAULT_VERSION = "1.33.13";

    static ControlPlaneBinaries locate() {
        String fromEnv = System.getenv("SCHEDULEROPS_K8S_BIN");
        String version = System.getenv().getOrDefault("SCHEDULEROPS_K8S_VERSION", DEFAULT_VERSION);
        Path dir = fromEnv != null && !fromEnv.isBlank()
                ? Path.of(fromEnv)
                : Path.of(System.getProperty("user.home"), ".cache", "schedulerops", "k8s", version);
        List<String> missing = List.of("kube-apiserver", "etcd").stream()
                .filter(b -> !Files.isExecutable(dir.resolve(b)))
                .toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("The apiserver test tier needs " + missing + " in " + dir
                    + " (set SCHEDULEROPS_K8S_BIN, or run 'e2e/cluster build', which builds them there; a cold build"
                    + " takes about 10 minutes on 2 cores). It is never skipped: ./test builds them first.");
        }
        return new ControlPlaneBinaries(dir);
    }

    Path apiServer() {
        return dir.resolve("kube-apiserver");
    }

    Path etcd() {
        return dir.resolve("etcd");
    }
}
