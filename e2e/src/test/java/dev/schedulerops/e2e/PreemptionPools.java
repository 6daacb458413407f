package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.PodTimeline;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The preemption scenario of {@link PreemptionTest} and of InClusterTest's preemption step: pools of four full KWOK
 * nodes, the first two carrying the profile's label and full of priority-{@code mid} pods, the other two full of
 * priority-{@code low} pods, and a priority-{@code high} pod of the profile that can only run by preempting. The pods
 * tolerate KWOK's taint and select their pool, so nothing else lands there and they never reach the real node.
 * {@link #close()} removes the priority classes and the pods' namespace.
 */
final class PreemptionPools implements AutoCloseable {
    static final String POOL = "e2e.schedulerops.dev/preemption-pool";

    private final Cluster cluster;
    private final KubernetesClient client;
    private final String label;
    private final String suffix = OperatorTests.suffix();
    private final String namespace;
    private final Map<String, Integer> priorities = new LinkedHashMap<>();

    /** Four full nodes, the first two labelled: pods of priority "mid" on those, "low" on the others. */
    record Pool(String name, List<String> labelled, List<String> unlabelled, List<String> fillPods) {
        String nodeOf(String fillPod) {
            return fillPod.substring("fill-".length(), fillPod.lastIndexOf('-'));
        }
    }

    PreemptionPools(Cluster cluster, String label) {
        this.cluster = cluster;
        this.client = cluster.client();
        this.label = label;
        namespace = cluster.createNamespace("preemption-pods").getMetadata().getName();
        priorities.put("low-" + suffix, 10);
        priorities.put("mid-" + suffix, 100);
        priorities.put("high-" + suffix, 1000);
        try {
            priorities.forEach((name, value) -> client.resource(new PriorityClassBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .endMetadata()
                            .withValue(value)
                            .withPreemptionPolicy("PreemptLowerPriority")
                            .build())
                    .create());
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    String suffix() {
        return suffix;
    }

    String namespace() {
        return namespace;
    }

    Pool fullPool(String name) {
        List<String> nodes = cluster.addNodes(4, Map.of(POOL, name + "-" + suffix));
        Pool pool = new Pool(name + "-" + suffix, nodes.subList(0, 2), nodes.subList(2, 4), new ArrayList<>());
        MergePatch.nodeLabel(client, pool.labelled().get(0), label, "10");
        MergePatch.nodeLabel(client, pool.labelled().get(1), label, "20");
        for (String node : nodes) {
            String priority = pool.labelled().contains(node) ? "mid-" + suffix : "low-" + suffix;
            // 4 CPUs a node (e2e/cluster nodes), 4 pods of 1 CPU each: nothing else fits.
            for (int i = 0; i < 4; i++) {
                Pod fill = pod("fill-" + node + "-" + i, null, priority, pool.name());
                fill.getSpec().setNodeName(node);
                client.resource(fill).create();
                pool.fillPods().add(fill.getMetadata().getName());
            }
        }
        return pool;
    }

    /** Creates the high-priority pod of {@code schedulerName} for {@code pool}. */
    Pod createHighPriorityPod(String name, String schedulerName, Pool pool) {
        return client.resource(pod(name, schedulerName, "high-" + suffix, pool.name()))
                .create();
    }

    void assertVictimsGoneBeforeBinding(PodTimeline timeline, List<String> victims, String preemptor) {
        int bound = timeline.first(c -> c.name().equals(preemptor) && c.bound());
        assertThat(bound).as("the watch saw " + preemptor + " bound").isNotNegative();
        for (String victim : victims) {
            int gone = timeline.first(c -> c.name().equals(victim) && c.action() == Watcher.Action.DELETED);
            assertThat(gone)
                    .as("victim " + victim + " was deleted before " + preemptor + " was bound")
                    .isNotNegative()
                    .isLessThan(bound);
            int marked = timeline.first(c -> c.name().equals(victim)
                    && c.pod().getStatus() != null
                    && c.pod().getStatus().getConditions() != null
                    && c.pod().getStatus().getConditions().stream()
                            .anyMatch(cond -> "DisruptionTarget".equals(cond.getType())
                                    && "PreemptionByScheduler".equals(cond.getReason())));
            assertThat(marked)
                    .as("victim " + victim + " carries kube-scheduler's DisruptionTarget condition")
                    .isNotNegative()
                    .isLessThan(gone);
        }
    }

    /** The fill pods of the pool that the watch saw deleted, in that order. */
    static List<String> deleted(PodTimeline timeline, Pool pool) {
        return timeline.changes().stream()
                .filter(c ->
                        c.action() == Watcher.Action.DELETED && pool.fillPods().contains(c.name()))
                .map(PodTimeline.Change::name)
                .distinct()
                .toList();
    }

    /** The fill pods of the pool that are gone or going. */
    List<String> victims(Pool pool) {
        Map<String, Pod> present = client.pods().inNamespace(namespace).list().getItems().stream()
                .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p));
        return pool.fillPods().stream()
                .filter(p ->
                        !present.containsKey(p) || present.get(p).getMetadata().getDeletionTimestamp() != null)
                .toList();
    }

    String awaitBound(Pod pod, Duration timeout) {
        return OperatorTests.awaitBound(client, pod, timeout);
    }

    private Pod pod(String name, String schedulerName, String priorityClass, String pool) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(schedulerName)
                .withPriorityClassName(priorityClass)
                .withNodeSelector(Map.of(POOL, pool))
                .addNewToleration()
                .withKey("kwok.x-k8s.io/node")
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .withTerminationGracePeriodSeconds(0L)
                .addNewContainer()
                .withName("app")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .addToRequests("cpu", new Quantity("1"))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    @Override
    public void close() {
        priorities.keySet().forEach(name -> client.scheduling()
                .v1()
                .priorityClasses()
                .withName(name)
                .delete());
        client.namespaces().withName(namespace).delete();
    }
}
