package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * HA during node drains, on the real control plane (the real Deployment, ReplicaSet and disruption controllers, the
 * real kube-scheduler placing the pods and the API server's eviction API enforcing the PodDisruptionBudgets): a
 * profile with 2 extender and 2 scheduler replicas on 4 KWOK nodes of its own (its placement nodeSelector) has each
 * replica on a node of its own, and `kubectl drain` of every node in turn, back to back, never leaves either component
 * without an available pod. On KWOK no kube-scheduler process runs, so leader hand-over itself is not observed here;
 * an available scheduler pod is the proxy.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DrainTest {
    private static final String PROFILE = "drain";
    private static final int NODES = 4;

    private Cluster cluster;
    private KubernetesClient client;
    private OperatorRuntime operator;
    private String namespace;
    private List<String> nodes;
    private String pool;

    @BeforeAll
    void start(Cluster cluster) throws java.io.IOException {
        this.cluster = cluster;
        client = cluster.client();
        OperatorTests.installCrd(client);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "drain");
        pool = "drain-" + OperatorTests.suffix();
        nodes = cluster.addNodes(NODES, Map.of("e2e.schedulerops.dev/pool", pool));
        operator = OperatorRuntime.start(OperatorTests.operatorConfig(Map.of(), namespace), client);
    }

    @AfterAll
    void stop() {
        if (nodes != null) {
            nodes.forEach(node -> kubectl("uncordon", node));
        }
        if (operator != null) {
            OperatorTests.deleteProfiles(client, namespace);
            operator.close();
        }
    }

    @Test
    void drainingEveryNodeInTurnNeverLeavesAComponentWithoutAnAvailablePod() throws Exception {
        SchedulerProfile profile = OperatorTests.profile(
                namespace,
                PROFILE,
                """
                labelKey: e2e.schedulerops.dev/tier
                extender:
                  replicas: 2
                  nodeSelector: {e2e.schedulerops.dev/pool: %s}
                scheduler:
                  replicas: 2
                  nodeSelector: {e2e.schedulerops.dev/pool: %s}
                """
                        .formatted(pool, pool));
        client.resource(profile).create();
        Await.until(
                Duration.ofSeconds(120),
                "the profile becomes Ready",
                () -> OperatorTests.isCurrent(client.resources(SchedulerProfile.class)
                        .withName(PROFILE)
                        .get()));

        for (String component : List.of(Labels.COMPONENT_EXTENDER, Labels.COMPONENT_SCHEDULER)) {
            assertThat(OperatorTests.hostnameSpread(deployment(component)).getWhenUnsatisfiable())
                    .as("%s: the cluster has a node to spare, so each replica needs a node of its own", component)
                    .isEqualTo("DoNotSchedule");
            assertThat(client.policy()
                            .v1()
                            .podDisruptionBudget()
                            .inNamespace(namespace)
                            .withName(PROFILE + "-" + component)
                            .get())
                    .as("%s PodDisruptionBudget", component)
                    .isNotNull();
            Await.until(Duration.ofSeconds(60), component + " pods on distinct nodes", () -> {
                List<String> placed = runningPods(component).stream()
                        .map(p -> p.getSpec().getNodeName())
                        .toList();
                return placed.size() == 2 && placed.stream().distinct().count() == 2;
            });
        }

        AtomicInteger minExtender = new AtomicInteger(Integer.MAX_VALUE);
        AtomicInteger minScheduler = new AtomicInteger(Integer.MAX_VALUE);
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread monitor = new Thread(() -> {
            while (watching.get()) {
                minExtender.accumulateAndGet(available(Labels.COMPONENT_EXTENDER), Math::min);
                minScheduler.accumulateAndGet(available(Labels.COMPONENT_SCHEDULER), Math::min);
                Await.sleep(100);
            }
        });
        monitor.start();
        List<String> drained = new ArrayList<>();
        try {
            for (String node : nodes) {
                // Back to back: the next drain starts while the pods evicted by this one may still be starting, so
                // only the PodDisruptionBudgets keep one replica of each component up.
                Commands.Result drain =
                        kubectl("drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=180s");
                assertThat(drain.exitCode())
                        .as("kubectl drain %s:\n%s\n%s", node, drain.stdout(), drain.stderr())
                        .isZero();
                kubectl("uncordon", node);
                drained.add(node);
            }
            Await.until(
                    Duration.ofSeconds(120),
                    "both components fully available again",
                    () -> available(Labels.COMPONENT_EXTENDER) == 2 && available(Labels.COMPONENT_SCHEDULER) == 2);
        } finally {
            watching.set(false);
            monitor.join();
        }

        assertThat(drained).containsExactlyElementsOf(nodes);
        assertThat(minExtender.get())
                .as("fewest available extender pods during the drains")
                .isGreaterThanOrEqualTo(1);
        assertThat(minScheduler.get())
                .as("fewest available scheduler pods during the drains")
                .isGreaterThanOrEqualTo(1);
        Await.until(
                Duration.ofSeconds(60),
                "the profile is Ready after the drains",
                () -> OperatorTests.isCurrent(client.resources(SchedulerProfile.class)
                        .withName(PROFILE)
                        .get()));
    }

    private Deployment deployment(String component) {
        return client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(PROFILE + "-" + component)
                .get();
    }

    private int available(String component) {
        return OperatorTests.available(deployment(component));
    }

    private List<Pod> runningPods(String component) {
        return client
                .pods()
                .inNamespace(namespace)
                .withLabel(Labels.INSTANCE, PROFILE)
                .withLabel(Labels.COMPONENT, component)
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .filter(p -> p.getSpec().getNodeName() != null)
                .filter(p -> "Running".equals(p.getStatus().getPhase()))
                .toList();
    }

    private Commands.Result kubectl(String... args) {
        return cluster.kubectl(args);
    }
}
