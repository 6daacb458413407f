package dev.schedulerops.e2e.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The binaries {@code e2e/cluster build} made: found through {@code e2e/cluster env}, never built here. */
public record KubernetesBinaries(Path binDir, String kubernetesVersion) {
    private static final List<String> REQUIRED =
            List.of("kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kwok", "kwokctl");

    private static KubernetesBinaries located;

    /** Fails (never skips: CI builds the binaries first) when they are missing. */
    public static synchronized KubernetesBinaries locate() {
        if (located == null) {
            Map<String, String> env = clusterEnv();
            KubernetesBinaries binaries = new KubernetesBinaries(
                    Path.of(env.get("SCHEDULEROPS_K8S_BIN")), env.get("SCHEDULEROPS_K8S_VERSION"));
            binaries.requirePresent();
            located = binaries;
        }
        return located;
    }

    static Map<String, String> clusterEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        ClusterScript.runOrFail(Duration.ofSeconds(30), "env").stdoutLines().forEach(line -> {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq), line.substring(eq + 1));
            }
        });
        return env;
    }

    public Path kubeScheduler() {
        return binDir.resolve("kube-scheduler");
    }

    private void requirePresent() {
        List<String> missing = REQUIRED.stream()
                .filter(b -> !Files.isExecutable(binDir.resolve(b)))
                .toList();
        if (!missing.isEmpty() || !Files.exists(binDir.resolve(".complete"))) {
            throw new IllegalStateException("The Kubernetes v" + kubernetesVersion + " binaries are missing in "
                    + binDir + (missing.isEmpty() ? " (incomplete build)" : " " + missing)
                    + ": run 'e2e/cluster build' first (needs Go 1.24 or newer; a cold build takes about"
                    + " 10 minutes on 2 cores).");
        }
    }
}
