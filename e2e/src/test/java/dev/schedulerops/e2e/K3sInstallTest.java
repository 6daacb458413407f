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
 * from deploy/, a sample SchedulerProfile that must become Ready, and a pod that its scheduler must bind to the
 * labelled node.
 *
 * <p>Needs a Docker engine (skipped without one, as on the development machines here) and the operator and extender
 * images in a registry the k3s node can pull from: {@code ./mvnw -pl operator,extender -am package
 * jib:build -Dimage.registry=REGISTRY}, then run with {@code -Dschedulerops.image.registry=REGISTRY} (default: the published
 * {@code ghcr.io/schedulerops}) and {@code -Dschedulerops.image.tag=TAG} (default: the release version, {@code <image.tag>} of the root pom).
 */
class K3sInstallTest {

    private static final Logger LOG = LoggerFactory.getLogger(K3sInstallTest.class);

    private static final String K3S_IMAGE = System.getProperty("schedulerops.k3s.image", "rancher/k3s:v1.33.1-k3s1");
    private static final String REGISTRY = System.getProperty("schedulerops.image.registry", "ghcr.io/schedulerops");
    private static final String TAG = System.getProperty("schedulerops.image.tag", E2eSettings.releaseVersion());
    private static final String PROFILE_NAMESPACE = "schedulerops-k3s";
    private static final String PROFILE = "label-priority";
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
    void operatorFromDeployMakesASampleProfileReadyAndItsSchedulerBindsPods() throws IOException {
        try (K3sContainer k3s = new K3sContainer(DockerImageName.parse(K3S_IMAGE))) {
            k3s.start();
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

    private static void installOperator(KubernetesClient client) {
        String manifests = Commands.run(
                        List.of(
                                Commands.kubectl(),
                                "kustomize",
                                E2eSettings.repoRoot().resolve("deploy").toString()),
                        Duration.ofMinutes(1))
                .requireSuccess("kubectl kustomize deploy/")
                .stdout()
                .replace(
                        "ghcr.io/schedulerops/schedulerops-operator:" + E2eSettings.releaseVersion(),
                        REGISTRY + "/schedulerops-operator:" + TAG)
                .replace(
                        "ghcr.io/schedulerops/schedulerops-extender:" + E2eSettings.releaseVersion(),
                        REGISTRY + "/schedulerops-extender:" + TAG);
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
                        .withName(PROFILE_NAMESPACE)
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
                .withNamespace(PROFILE_NAMESPACE)
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
                .inNamespace(PROFILE_NAMESPACE)
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
