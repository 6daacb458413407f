package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.PodTimeline;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Preemption through the real kube-scheduler with the configuration the operator rendered, against KWOK nodes: two
 * nodes carry the profile's label, two do not, all four are full of lower-priority pods, and a pod of the profile with
 * a higher priority arrives.
 *
 * <p>The pods on the unlabelled nodes have the lowest priority, so kube-scheduler's own choice among preemption
 * candidates (the node whose most important victim is least important) is always an unlabelled node: only the
 * extender's answer to the preempt call can move the victims onto a labelled node. Every node fails the in-tree filter
 * (NodeResourcesFit: no CPU left), so kube-scheduler never calls the extender's filter for this pod, and which nodes
 * preemption considers is decided by the preempt call alone.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreemptionTest {
    static final String LABEL = "priority.lixueduan.com";

    private KubernetesClient client;
    private ProfileHarness harness;
    private PreemptionPools pools;
    private String suffix;

    @BeforeAll
    void start(Cluster cluster) {
        this.client = cluster.client();
        // The profiles' own pods (the extender Deployment, which the operator waits for, spread over two nodes) need
        // nodes with room.
        cluster.addNodes(2, Map.of("e2e.schedulerops.dev/role", "system"));
        harness = new ProfileHarness(cluster, "preemption");
        pools = new PreemptionPools(cluster, LABEL);
        suffix = pools.suffix();
    }

    @AfterAll
    void stop() {
        try {
            if (harness != null) {
                harness.close();
            }
        } finally {
            if (pools != null) {
                pools.close();
            }
        }
    }

    @Test
    void withPreemptTheVictimsAreOnlyOnNodesTheFilterKeeps() throws Exception {
        PreemptionPools.Pool pool = pools.fullPool("preempt-on");
        try (PodTimeline timeline = PodTimeline.start(client);
                ProfileHarness.Running profile =
                        harness.run("preempt-on-" + suffix, "labelKey: " + LABEL + "\nverbs: [Filter, Preempt]\n")) {
            Pod high = pools.createHighPriorityPod("high-" + suffix, profile.profile(), pool);
            String node = awaitBound(high);
            List<String> victims = pools.victims(pool);
            System.out.printf(
                    "[preemption] Preempt on: labelled %s, unlabelled %s; victims %s; the pod went to %s%n",
                    pool.labelled(), pool.unlabelled(), victims, node);

            assertThat(pool.labelled()).contains(node);
            assertThat(victims).isNotEmpty().allSatisfy(v -> assertThat(pool.nodeOf(v))
                    .as("victim " + v + " is on the node the pod went to")
                    .isEqualTo(node));
            // No node the filter rejects was freed, although each held the least important pods.
            assertThat(victims).noneMatch(v -> pool.unlabelled().contains(pool.nodeOf(v)));
            assertThat(profile.extenderMetric("schedulerops_extender_requests_total", "verb=\"preempt\""))
                    .as("kube-scheduler called the extender's preempt verb")
                    .isPositive();
            pools.assertVictimsGoneBeforeBinding(timeline, victims, name(high));
        }
    }

    /**
     * Without {@code Preempt} kube-scheduler's own preemption does not respect the filter: it asks the extender's filter
     * only about nodes that passed its in-tree filters, and a full node fails NodeResourcesFit first, so an unlabelled
     * full node is a preemption candidate like any other, and the one with the least important victims. It is freed,
     * then refused by the filter once it has room (the FailedScheduling reason names the label); the pod itself only
     * ever lands on a labelled node. docs/profiles.md and deploy/README say so, and recommend {@code Preempt}.
     */
    @Test
    void withoutPreemptTheSchedulersOwnPreemptionFreesUnlabelledNodesButThePodLandsOnALabelledOne() throws Exception {
        PreemptionPools.Pool pool = pools.fullPool("preempt-off");
        try (PodTimeline timeline = PodTimeline.start(client);
                ProfileHarness.Running profile =
                        harness.run("preempt-off-" + suffix, "labelKey: " + LABEL + "\nverbs: [Filter]\n")) {
            Pod high = pools.createHighPriorityPod("high-off-" + suffix, profile.profile(), pool);
            // The first victim is on an unlabelled node: nothing told kube-scheduler that node was of no use.
            Await.until(Duration.ofSeconds(60), "a first victim", () -> !PreemptionPools.deleted(timeline, pool)
                    .isEmpty());
            String firstVictim = PreemptionPools.deleted(timeline, pool).get(0);
            assertThat(pool.unlabelled()).contains(pool.nodeOf(firstVictim));
            // It goes on until it has freed a labelled node (each unlabelled one, once it has room, is refused by the
            // filter as unresolvable, and so is not freed twice). Nothing touches the pod: the operator turns
            // kube-scheduler's asynchronous preemption off (SchedulerFeatureGates), which left a preemptor in the
            // unschedulable pool after its victims were gone (kubernetes/kubernetes#141694).
            Await.until(
                    Duration.ofSeconds(90),
                    "a victim on a labelled node",
                    () -> PreemptionPools.deleted(timeline, pool).stream()
                            .anyMatch(v -> pool.labelled().contains(pool.nodeOf(v))));
            String node = awaitBound(high, Duration.ofSeconds(60));
            List<String> victims = PreemptionPools.deleted(timeline, pool);
            System.out.printf(
                    "[preemption] Preempt off: labelled %s, unlabelled %s; victims in order %s; the pod went to %s%n",
                    pool.labelled(), pool.unlabelled(), victims, node);
            assertThat(pool.labelled()).contains(node);
            assertThat(victims).anyMatch(v -> pool.unlabelled().contains(pool.nodeOf(v)));
            assertThat(timeline.changes().stream()
                            .filter(c -> c.name().equals(name(high)) && c.bound())
                            .map(c -> c.pod().getSpec().getNodeName()))
                    .as("the pod was never bound to a node the filter rejects")
                    .allMatch(pool.labelled()::contains);
        }
    }

    private String awaitBound(Pod pod) {
        return pools.awaitBound(pod, Duration.ofSeconds(120));
    }

    private String awaitBound(Pod pod, Duration timeout) {
        return pools.awaitBound(pod, timeout);
    }

    private static String name(Pod pod) {
        return pod.getMetadata().getName();
    }
}
