package dev.schedulerops.e2e.support;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one cluster of a test run: started through {@code e2e/cluster up} when absent, reused when present. */
final class SharedCluster {
    private static final Logger LOG = LoggerFactory.getLogger(SharedCluster.class);
    private static final String STOP_AFTER_RUN = "schedulerops.e2e.stopClusterAfterRun";
    private static SharedCluster instance;

    final KubernetesBinaries binaries;
    final Path kubeconfig;
    final KubernetesClient client;

    private SharedCluster(KubernetesBinaries binaries, Path kubeconfig, KubernetesClient client) {
        this.binaries = binaries;
        this.kubeconfig = kubeconfig;
        this.client = client;
    }

    static synchronized SharedCluster get() {
        if (instance == null) {
            instance = start();
        }
        return instance;
    }

    private static SharedCluster start() {
        KubernetesBinaries binaries = KubernetesBinaries.locate();
        ClusterScript.Result up = ClusterScript.runOrFail(Duration.ofMinutes(5), "up");
        Path kubeconfig = Path.of(up.lastLine());
        if (!Files.isRegularFile(kubeconfig)) {
            throw new IllegalStateException("'e2e/cluster up' did not print a kubeconfig path:\n" + up.stderr());
        }
        boolean startedHere = up.stderr().contains("starting cluster");
        LOG.info(
                "cluster {} (Kubernetes v{}), kubeconfig {}",
                startedHere ? "started" : "reused",
                binaries.kubernetesVersion(),
                kubeconfig);
        if (startedHere && Boolean.getBoolean(STOP_AFTER_RUN)) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> ClusterScript.run(Duration.ofMinutes(1), "down")));
        }
        // Only this file configures the client: never ~/.kube/config, $KUBECONFIG or in-cluster settings.
        KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(kubeconfig.toFile()))
                .build();
        return new SharedCluster(binaries, kubeconfig, client);
    }
}
