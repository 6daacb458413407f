package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.KubeSchedulerProcess;
import dev.schedulerops.operator.reconcile.DeploymentReadiness;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The control plane really works: controllers, KWOK kubelets and a second kube-scheduler as a process. */
@ExtendWith(ClusterExtension.class)
class ControlPlaneSmokeTest {
    private static final String PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

    @Test
    void apiServerReportsTheBuiltVersion(Cluster cluster) {
        assertThat(cluster.client().getKubernetesVersion().getGitVersion())
                .isEqualTo("v" + cluster.kubernetesVersion());
    }

    @Test
    void deploymentBecomesAvailable(Cluster cluster) {
        cluster.ensureNodes(1, Map.of("type", "kwok"));
        String namespace = cluster.createNamespace("smoke-deploy").getMetadata().getName();
        Map<String, String> selector = Map.of("app", "smoke");

        cluster.client()
                .apps()
                .deployments()
                .inNamespace(namespace)
                .resource(new DeploymentBuilder()
                        .withNewMetadata()
                        .withName("smoke")
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(2)
                        .withNewSelector()
                        .withMatchLabels(selector)
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .withLabels(selector)
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("pause")
                        .withImage(PAUSE_IMAGE)
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build())
                .create();

        Deployment available = cluster.client()
                .apps()
                .deployments()
                .inNamespace(namespace)
                .withName("smoke")
                .waitUntilCondition(DeploymentReadiness::isAvailableAtCurrentGeneration, 90, TimeUnit.SECONDS);
        assertThat(available.getStatus().getAvailableReplicas()).isEqualTo(2);
        assertThat(cluster.client().pods().inNamespace(namespace).list().getItems())
                .hasSize(2)
                .allSatisfy(pod -> {
                    assertThat(pod.getSpec().getNodeName()).isNotBlank();
                    assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
                });
    }

    @Test
    void secondSchedulerProcessBindsItsPodToTheChosenNode(Cluster cluster) {
        String namespace = cluster.createNamespace("smoke-sched").getMetadata().getName();
        List<String> nodes = cluster.addNodes(2, Map.of("schedulerops.dev/smoke-pool", namespace));
        String chosen = nodes.get(1);
        String schedulerName = "smoke-" + namespace;
        Pod pod = cluster.client()
                .pods()
                .inNamespace(namespace)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("picky")
                        .endMetadata()
                        .withNewSpec()
                        .withSchedulerName(schedulerName)
                        .withNodeSelector(Map.of("kubernetes.io/hostname", chosen))
                        .addNewContainer()
                        .withName("pause")
                        .withImage(PAUSE_IMAGE)
                        .endContainer()
                        .endSpec()
                        .build())
                .create();

        // Nobody else schedules for this schedulerName: the pod waits for our process.
        Await.holdsFor(
                Duration.ofSeconds(3),
                "the pod stays unbound",
                () -> nodeNameOf(cluster, namespace, pod.getMetadata().getName()) == null);
        assertThat(nodeNameOf(cluster, namespace, pod.getMetadata().getName())).isNull();

        try (KubeSchedulerProcess scheduler = cluster.startKubeScheduler(
                "kube-scheduler-" + schedulerName,
                """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                leaderElection:
                  leaderElect: true
                  resourceName: %s
                  resourceNamespace: %s
                profiles:
                  - schedulerName: %s
                """
                        .formatted(schedulerName, namespace, schedulerName))) {
            scheduler.awaitReady(Duration.ofSeconds(60));

            Pod bound = cluster.client()
                    .pods()
                    .inNamespace(namespace)
                    .withName("picky")
                    .waitUntilCondition(p -> p != null && p.getSpec().getNodeName() != null, 60, TimeUnit.SECONDS);
            assertThat(bound.getSpec().getNodeName()).isEqualTo(chosen);

            Lease lease = cluster.client()
                    .leases()
                    .inNamespace(namespace)
                    .withName(schedulerName)
                    .get();
            assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();

            Event scheduled = cluster.client()
                    .events()
                    .v1()
                    .events()
                    .inNamespace(namespace)
                    .withField("reason", "Scheduled")
                    .waitUntilCondition(e -> e != null, 30, TimeUnit.SECONDS);
            assertThat(scheduled.getReportingController()).isEqualTo(schedulerName);
            assertThat(scheduled.getNote()).contains(namespace + "/picky").contains(chosen);
        }
    }

    private static String nodeNameOf(Cluster cluster, String namespace, String pod) {
        return cluster.client()
                .pods()
                .inNamespace(namespace)
                .withName(pod)
                .get()
                .getSpec()
                .getNodeName();
    }
}
