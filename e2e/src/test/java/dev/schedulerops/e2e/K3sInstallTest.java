package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.operator.reconcile.DeploymentReadiness;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The whole product in a real cluster with real kubelets: k3s in a container (Testcontainers), the operator installed
 * from deploy/ with images built from this checkout, a sample SchedulerProfile that must become Ready, and a pod that
 * its scheduler must bind to the labelled node.
 *
 * <p>Self-sufficient where a Docker engine runs: {@code ./test k3s} builds the operator and extender images as
 * tarballs ({@code jib:buildTar}, under their public names) and runs this test, which imports them into the k3s
 * node's containerd, so nothing needs to be published. Skipped, saying so, without Docker (as on the machines that
 * build this project, which have no Docker engine and no Docker Hub).
 */
class K3sInstallTest {

    private static final Logger LOG = LoggerFactory.getLogger(K3sInstallTest.class);

    private static final String K3S_IMAGE = System.getProperty("schedulerops.k3s.image", "rancher/k3s:v1.33.1-k3s1");
    private static final List<String> IMAGE_TARS =
            List.of("operator/target/jib-image.tar", "extender/target/jib-image.tar");
    private static final String PROFILE = "label-priority";
    private static final String TEAM_NAMESPACE = "team-k3s";
    private static final String LABEL_KEY = "priority.lixueduan.com";

    @BeforeEach
    void requireDocker() {
        boolean docker = DockerClientFactory.instance().isDockerAvailable();
        String reason =
                "No Docker engine: the k3s end-to-end install test needs one (Testcontainers could not find it)";
        if (!docker) {
            // Surefire keeps skip reasons in its report files; say it on the console too, where CI readers look.
            System.out.println("SKIPPED K3sInstallTest: " + reason);
        }
        assumeTrue(docker, reason);
    }

    @Test
    void operatorFromDeployMakesASampleProfileReadyAndItsSchedulerBindsPods() throws Exception {
        for (String tar : IMAGE_TARS) {
            assertThat(E2eSettings.repoRoot().resolve(tar))
                    .as("%s: build the images first with ./test k3s (jib:buildTar)", tar)
                    .isRegularFile();
        }
        try (K3sContainer k3s = new K3sContainer(DockerImageName.parse(K3S_IMAGE))) {
            k3s.start();
            importImages(k3s);
            try (KubernetesClient client = new KubernetesClientBuilder()
                    .withConfig(Config.fromKubeconfig(k3s.getKubeConfigYaml()))
                    .build()) {
                try {
                    installOperator(client);
                    String node = labelOneNode(client);
                    applySampleProfile(client);
                    waitForReady(client);
                    assertSchedulerBindsPodTo(client, node);
                } catch (RuntimeException | AssertionError e) {
                    dumpOperatorLogs(client);
                    throw e;
                }
            }
        }
    }

    /** The tarballs into the node's containerd, where the kubelet finds them (imagePullPolicy IfNotPresent). */
    private static void importImages(K3sContainer k3s) throws Exception {
        for (String tar : IMAGE_TARS) {
            String inContainer = "/tmp/" + tar.replace('/', '-');
            k3s.copyFileToContainer(
                    org.testcontainers.utility.MountableFile.forHostPath(
                            E2eSettings.repoRoot().resolve(tar)),
                    inContainer);
            var result = k3s.execInContainer("ctr", "-n", "k8s.io", "images", "import", inContainer);
            assertThat(result.getExitCode())
                    .as("ctr images import %s: %s", tar, result.getStderr())
                    .isZero();
        }
    }

    private static void installOperator(KubernetesClient client) {
        String manifests = Commands.run(
                        List.of(
                                Commands.kubectl(),
                                "kustomize",
                                E2eSettings.repoRoot().resolve("deploy").toString()),
                        Duration.ofMinutes(1))
                .requireSuccess("kubectl kustomize deploy/")
                .stdout();
        client.load(stream(manifests)).forceConflicts().serverSideApply();

        Deployment operator = client.apps()
                .deployments()
                .inNamespace(DeployManifestsTest.NAMESPACE)
                .withName(DeployManifestsTest.OPERATOR)
                .waitUntilCondition(DeploymentReadiness::isAvailableAtCurrentGeneration, 5, TimeUnit.MINUTES);
        assertThat(operator.getStatus().getAvailableReplicas()).isPositive();
    }

    private static String labelOneNode(KubernetesClient client) {
        Node node = client.nodes().list().getItems().get(0);
        String name = node.getMetadata().getName();
        MergePatch.nodeLabel(client, name, LABEL_KEY, "10");
        return name;
    }

    private static void applySampleProfile(KubernetesClient client) throws IOException {
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(TEAM_NAMESPACE)
                        .endMetadata()
                        .build())
                .serverSideApply();
        String version = K3S_IMAGE.substring(K3S_IMAGE.indexOf(':') + 1).replaceFirst("-k3s\\d+$", "");
        String profile;
        try (InputStream in = K3sInstallTest.class.getResourceAsStream("/deploy/k3s-profile.yaml")) {
            profile = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("${SCHEDULER_IMAGE}", "registry.k8s.io/kube-scheduler:" + version);
        }
        client.load(stream(profile)).serverSideApply();
    }

    private static void waitForReady(KubernetesClient client) {
        GenericKubernetesResource profile = client.genericKubernetesResources(
                        "schedulerops.dev/v1beta1", "SchedulerProfile")
                .withName(PROFILE)
                .waitUntilCondition(K3sInstallTest::ready, 10, TimeUnit.MINUTES);
        assertThat(ready(profile)).isTrue();
    }

    private static void assertSchedulerBindsPodTo(KubernetesClient client, String node) {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName("scheduled-by-label-priority")
                .withNamespace(TEAM_NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(PROFILE)
                .addNewContainer()
                .withName("pause")
                .withImage("registry.k8s.io/pause:3.10")
                .endContainer()
                .endSpec()
                .build();
        client.pods().resource(pod).create();

        Pod scheduled = client.pods()
                .inNamespace(TEAM_NAMESPACE)
                .withName(pod.getMetadata().getName())
                .waitUntilCondition(p -> p != null && p.getSpec().getNodeName() != null, 3, TimeUnit.MINUTES);
        assertThat(scheduled.getSpec().getNodeName()).isEqualTo(node);
    }

    @SuppressWarnings("unchecked")
    private static boolean ready(GenericKubernetesResource profile) {
        if (profile == null || !(profile.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
            return false;
        }
        Object generation = profile.getMetadata().getGeneration();
        Object observed = status.get("observedGeneration");
        if (observed == null || !String.valueOf(observed).equals(String.valueOf(generation))) {
            return false;
        }
        if (!(status.get("conditions") instanceof List<?> conditions)) {
            return false;
        }
        return conditions.stream()
                .map(c -> (Map<String, Object>) c)
                .anyMatch(c -> "Ready".equals(c.get("type")) && "True".equals(c.get("status")));
    }

    private static void dumpOperatorLogs(KubernetesClient client) {
        try {
            client.pods()
                    .inNamespace(DeployManifestsTest.NAMESPACE)
                    .withLabel("app.kubernetes.io/name", DeployManifestsTest.OPERATOR)
                    .list()
                    .getItems()
                    .forEach(p -> LOG.error(
                            "operator pod {} log:\n{}",
                            p.getMetadata().getName(),
                            client.pods()
                                    .inNamespace(DeployManifestsTest.NAMESPACE)
                                    .withName(p.getMetadata().getName())
                                    .getLog()));
        } catch (RuntimeException e) {
            LOG.error("could not read the operator's logs", e);
        }
    }

    private static InputStream stream(String yaml) {
        return new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8));
    }
}
