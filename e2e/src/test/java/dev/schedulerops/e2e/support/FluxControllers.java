package dev.schedulerops.e2e.support;

import dev.schedulerops.operator.preview.LoopbackPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Flux's source-controller and kustomize-controller (built by {@code e2e/tools/build flux}) as processes of the test
 * class, against the e2e cluster with its kubeconfig (cluster-admin: no impersonation, no service account), watching
 * one namespace only ({@code RUNTIME_NAMESPACE}, {@code --watch-all-namespaces=false}). Each listens on ports of its
 * own on 127.0.0.1; source-controller serves its artifacts from a directory of the class and advertises them on
 * 127.0.0.1. Flux's CRDs ({@code crds/}, copied from each module's config/crd/bases/) are applied first.
 */
public final class FluxControllers {
    private final ChildProcess sourceController;
    private final ChildProcess kustomizeController;

    private FluxControllers(ChildProcess sourceController, ChildProcess kustomizeController) {
        this.sourceController = sourceController;
        this.kustomizeController = kustomizeController;
    }

    public static FluxControllers start(Cluster cluster, Path fluxDir, String namespace) {
        cluster.kubectl(
                        "apply",
                        "--server-side",
                        "--force-conflicts",
                        "--field-manager=schedulerops-e2e",
                        "-f",
                        fluxDir.resolve("crds").toString())
                .requireSuccess("applying Flux's CRDs");
        // Every Flux CRD, not only the two the test uses: source-controller maps all its kinds at start and exits when
        // one is not served yet ("no matches for kind HelmRepository", seen in CI).
        Crds.awaitEstablished(
                cluster,
                cluster.client().apiextensions().v1().customResourceDefinitions().list().getItems().stream()
                        .map(crd -> crd.getMetadata().getName())
                        .filter(name -> name.endsWith(".toolkit.fluxcd.io"))
                        .toArray(String[]::new));
        Map<String, String> environment =
                Map.of("KUBECONFIG", cluster.kubeconfig().toString(), "RUNTIME_NAMESPACE", namespace);
        int storagePort = LoopbackPorts.free();
        int sourceHealth = LoopbackPorts.free();
        ChildProcess source = cluster.startProcess(
                "source-controller",
                List.of(
                        fluxDir.resolve("source-controller").toString(),
                        "--watch-all-namespaces=false",
                        "--enable-leader-election=false",
                        "--storage-path=" + cluster.workDir("flux-artifacts"),
                        "--storage-addr=127.0.0.1:" + storagePort,
                        "--storage-adv-addr=127.0.0.1:" + storagePort,
                        "--metrics-addr=127.0.0.1:" + LoopbackPorts.free(),
                        "--health-addr=127.0.0.1:" + sourceHealth,
                        "--log-encoding=console"),
                environment);
        // The artifact server listens only once the manager runs: before anything else may take a port, and with a
        // clear failure when it could not bind (source-controller logs that and keeps running).
        Await.until(Duration.ofSeconds(60), "Flux's source-controller serves artifacts on port " + storagePort, () -> {
            if (!source.isAlive()) {
                throw new IllegalStateException("source-controller exited: " + source.tail());
            }
            if (source.log().contains("artifact server error")) {
                throw new IllegalStateException("source-controller could not serve artifacts: " + source.tail());
            }
            return Loopback.status(storagePort, "/") > 0;
        });
        int kustomizeHealth = LoopbackPorts.free();
        ChildProcess kustomize = cluster.startProcess(
                "kustomize-controller",
                List.of(
                        fluxDir.resolve("kustomize-controller").toString(),
                        "--watch-all-namespaces=false",
                        "--enable-leader-election=false",
                        "--metrics-addr=127.0.0.1:" + LoopbackPorts.free(),
                        "--health-addr=127.0.0.1:" + kustomizeHealth,
                        "--log-encoding=console"),
                environment);
        for (var probe : List.of(Map.entry(source, sourceHealth), Map.entry(kustomize, kustomizeHealth))) {
            Await.until(Duration.ofSeconds(60), "Flux's controllers answer /readyz", () -> {
                if (!probe.getKey().isAlive()) {
                    throw new IllegalStateException(
                            "a Flux controller exited: " + probe.getKey().tail());
                }
                return Loopback.status(probe.getValue(), "/readyz") == 200;
            });
        }
        return new FluxControllers(source, kustomize);
    }

    public ChildProcess sourceController() {
        return sourceController;
    }

    public ChildProcess kustomizeController() {
        return kustomizeController;
    }
}
