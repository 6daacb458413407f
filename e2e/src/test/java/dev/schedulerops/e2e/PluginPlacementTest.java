package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.LabelToBindReport;
import dev.schedulerops.e2e.support.MergePatch;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a profile's plugins and pluginConfig do to placement, measured through the real kube-scheduler running the
 * configuration the operator rendered, on KWOK nodes (4 CPUs and 16Gi each) in pools of the test's own: each pod
 * selects its pool by label, so every other node of the cluster fails the NodeAffinity filter and plays no part.
 *
 * <p>Every assertion compares placements whose scores differ by construction (or a filter), never ties: kube-scheduler
 * breaks ties between equally scored nodes at random. Pods are created one at a time, each after the last was bound,
 * so the scheduler's cache holds the previous placements when it scores the next pod.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PluginPlacementTest {
    static final String POOL = "e2e.schedulerops.dev/placement-pool";
    static final String BEST = "e2e.schedulerops.dev/best";
    private static final YAMLMapper YAML = new YAMLMapper();

    private Cluster cluster;
    private KubernetesClient client;
    private ProfileHarness harness;
    private String pods;
    private final String suffix = OperatorTests.suffix();
    private final List<String> createdNodes = new ArrayList<>();
    private int podCounter;

    @BeforeAll
    void start(Cluster cluster) {
        this.cluster = cluster;
        this.client = cluster.client();
        // Room for the profiles' own pods (the operator waits for the extender Deployment, spread over two nodes).
        cluster.addNodes(2, Map.of("e2e.schedulerops.dev/role", "system"));
        harness = new ProfileHarness(cluster, "plugins");
        pods = cluster.createNamespace("plugin-placement-pods").getMetadata().getName();
    }

    @AfterAll
    void stop() {
        if (harness != null) {
            harness.close();
        }
        createdNodes.forEach(n -> client.nodes().withName(n).delete());
    }

    /**
     * samples/plugins-only.yaml as shipped (no labelKey, so no extender: the profile is kube-scheduler alone) packs:
     * NodeResourcesFit with MostAllocated scores a node higher the fuller it is, counting the pod being placed, so once
     * the first pod is on a node (a tie among empty nodes, broken at random) that node outscores the empty ones for
     * every next pod. The same profile with LeastAllocated spreads: each next pod scores an empty node higher.
     * NodeResourcesBalancedAllocation, which would pull the other way, is disabled by the sample.
     */
    @Test
    void mostAllocatedPacksAndLeastAllocatedSpreadsWithAPluginsOnlyProfile() throws Exception {
        String sample = sampleSpec("plugins-only.yaml");
        assertThat(sample).doesNotContain("labelKey");
        List<String> packPool = pool("pack", 3);
        List<String> packed;
        try (ProfileHarness.Running profile = harness.run("plugins-only-" + suffix, sample)) {
            assertThat(profile.extender())
                    .as("a plugins-only profile has no extender")
                    .isEmpty();
            assertThat(profile.config().has("extenders")).isFalse();
            packed = placeOneByOne(profile.profile(), "pack-" + suffix, 4, "500m", "1Gi");
        }
        System.out.println("[plugins] MostAllocated (samples/plugins-only.yaml) on " + packPool + ": " + packed);
        assertThat(new HashSet<>(packed)).as("every pod on one node").hasSize(1);

        List<String> spreadPool = pool("spread", 3);
        List<String> spread;
        try (ProfileHarness.Running profile =
                harness.run("least-allocated-" + suffix, sample.replace("MostAllocated", "LeastAllocated"))) {
            spread = placeOneByOne(profile.profile(), "spread-" + suffix, 3, "500m", "1Gi");
        }
        System.out.println("[plugins] LeastAllocated on " + spreadPool + ": " + spread);
        assertThat(new HashSet<>(spread)).as("three pods on three nodes").hasSize(3);
    }

    /**
     * samples/custom-plugins.yaml (bundled extender with Filter and Prioritize, NodeResourcesFit weighted 5 with
     * MostAllocated): among nodes whose labels are equal (the extender scores them alike) the pods pack onto one, and
     * none goes to the pool's unlabelled node, which the filter rejects although it is the emptiest.
     */
    @Test
    void theCustomPluginsSamplePacksOntoLabelledNodes() throws Exception {
        String sample = sampleSpec("custom-plugins.yaml");
        String labelKey = YAML.readTree(sample).path("labelKey").asText();
        List<String> nodes = pool("custom", 4);
        List<String> labelled = nodes.subList(0, 3);
        labelled.forEach(n -> MergePatch.nodeLabel(client, n, labelKey, "1"));
        List<String> placed;
        try (ProfileHarness.Running profile = harness.run("bin-packing-" + suffix, sample)) {
            assertThat(profile.extender()).isPresent();
            placed = placeOneByOne(profile.profile(), "custom-" + suffix, 4, "500m", "1Gi");
        }
        System.out.println("[plugins] samples/custom-plugins.yaml, labelled " + labelled + " unlabelled " + nodes.get(3)
                + ": " + placed);
        assertThat(new HashSet<>(placed)).hasSize(1);
        assertThat(labelled).contains(placed.get(0));
    }

    /**
     * A preferred node affinity (weight 100 for the pool's one "best" node, which is already half full) decides while
     * the NodeAffinity score plugin is on: 2 x 100 against LeastAllocated's lead of the empty nodes, which is below 60.
     * With NodeAffinity disabled at score the preference stops mattering and LeastAllocated sends the pod to an empty
     * node. The filter part of NodeAffinity (the pool selector) is untouched by disabling it at score.
     */
    @Test
    void aDisabledScorePluginStopsMattering() throws Exception {
        List<String> nodes = pool("affinity", 3);
        String best = nodes.get(0);
        MergePatch.nodeLabel(client, best, BEST, "yes");
        fill(best, "2", "8Gi");
        String common = "plugins:\n  score:\n    disabled:\n      - name: NodeResourcesBalancedAllocation\n";
        String counted;
        try (ProfileHarness.Running profile = harness.run("affinity-counts-" + suffix, common)) {
            counted = placeOneByOne(profile.profile(), "affinity-" + suffix, 1, "100m", "256Mi", true)
                    .get(0);
        }
        String ignored;
        try (ProfileHarness.Running profile =
                harness.run("affinity-ignored-" + suffix, common + "      - name: NodeAffinity\n")) {
            ignored = placeOneByOne(profile.profile(), "affinity-" + suffix, 1, "100m", "256Mi", true)
                    .get(0);
        }
        System.out.println("[plugins] preferred affinity for " + best + " (half full): with NodeAffinity scoring -> "
                + counted + ", disabled at score -> " + ignored);
        assertThat(counted).isEqualTo(best);
        assertThat(ignored).isNotEqualTo(best).isIn(nodes);
    }

    /**
     * pluginConfig NodeAffinity addedAffinity (applied to every pod of the profile) keeps pods off the nodes it
     * excludes: the excluded node is the pool's emptiest, so LeastAllocated would choose it, and a pod that selects
     * it by name stays Pending with NodeAffinity's reason.
     */
    @Test
    void addedAffinityKeepsPodsOffNodes() throws Exception {
        List<String> nodes = pool("added", 3);
        String excluded = nodes.get(0);
        MergePatch.nodeLabel(client, excluded, "e2e.schedulerops.dev/tier", "blocked");
        fill(nodes.get(1), "1", "4Gi");
        fill(nodes.get(2), "1", "4Gi");
        String spec =
                """
                pluginConfig:
                  - name: NodeAffinity
                    args:
                      addedAffinity:
                        requiredDuringSchedulingIgnoredDuringExecution:
                          nodeSelectorTerms:
                            - matchExpressions:
                                - {key: e2e.schedulerops.dev/tier, operator: NotIn, values: [blocked]}
                """;
        try (ProfileHarness.Running profile = harness.run("added-affinity-" + suffix, spec)) {
            List<String> placed = placeOneByOne(profile.profile(), "added-" + suffix, 4, "100m", "256Mi");
            System.out.println("[plugins] addedAffinity excludes " + excluded + " (the emptiest): " + placed);
            assertThat(placed).doesNotContain(excluded).allMatch(nodes::contains);

            Pod pinned = createPod(profile.profile(), "added-" + suffix, "100m", "256Mi", false);
            pinned.getSpec().getNodeSelector().put("kubernetes.io/hostname", excluded);
            pinned = client.resource(pinned).create();
            Event failed = awaitEvent(pinned, "FailedScheduling");
            System.out.println("[plugins] a pod that selects " + excluded + ": " + failed.getMessage());
            // addedAffinity has a reason of its own, apart from the pod's own selector's.
            assertThat(failed.getMessage()).contains("1 node(s) didn't match scheduler-enforced node affinity");
            assertThat(client.resource(pinned).get().getSpec().getNodeName()).isNull();
        }
    }

    /**
     * percentageOfNodesToScore: kube-scheduler stops filtering once it has found that share of the cluster's nodes
     * feasible (never fewer than 100 nodes, so the pool has 150), scores only those, and starts the next pod's search
     * where this one stopped. With 100 every pod sees all 150 and goes to the pool's one "best" node (preferred
     * affinity, weight 100, which outweighs the few points LeastAllocated gives the emptier nodes). With less, each pod
     * sees 100 consecutive pool nodes of the 150 and the windows move on by 100 each pod, so of any three consecutive
     * pods one does not see the best node and goes elsewhere: six pods cannot all land there. (1 percent gives the
     * floor of 100 nodes, as kube-scheduler's adaptive default does for a cluster of this size: it is the 100 that
     * the scheduler would not apply if the setting did not reach it.)
     */
    @Test
    void percentageOfNodesToScoreIsHonoured() throws Exception {
        List<String> nodes = pool("pct", 150);
        String best = nodes.get(75);
        MergePatch.nodeLabel(client, best, BEST, "yes");
        List<String> all;
        JsonNode rendered;
        try (ProfileHarness.Running profile =
                harness.run("score-all-" + suffix, "scheduler:\n  percentageOfNodesToScore: 100\n")) {
            rendered = profile.config().path("percentageOfNodesToScore");
            all = placeOneByOne(profile.profile(), "pct-" + suffix, 4, "10m", "16Mi", true);
        }
        List<String> few;
        try (ProfileHarness.Running profile =
                harness.run("score-few-" + suffix, "scheduler:\n  percentageOfNodesToScore: 1\n")) {
            few = placeOneByOne(profile.profile(), "pct-" + suffix, 6, "10m", "16Mi", true);
        }
        System.out.println(
                "[plugins] best node " + best + " of 150: percentageOfNodesToScore 100 -> " + all + "; 1 -> " + few);
        assertThat(all).as("with 100, every pod goes to the best node").containsOnly(best);
        assertThat(few).as("with 1, some pod does not see the best node").anyMatch(n -> !n.equals(best));
        assertThat(rendered.asInt())
                .as("the rendered configuration's percentageOfNodesToScore")
                .isEqualTo(100);
    }

    /**
     * The names-only Filter's reason as kubectl describe pod shows it: kube-scheduler groups the nodes the extender
     * rejected under the extender's one reason.
     */
    @Test
    void theFilterReasonInKubectlDescribePod() throws Exception {
        List<String> nodes = pool("reason", 3);
        String labelKey = "e2e.schedulerops.dev/reason-" + suffix;
        try (ProfileHarness.Running profile =
                harness.run("filter-reason-" + suffix, "labelKey: " + labelKey + "\nverbs: [Filter]\n")) {
            assertThat(profile.config().at("/extenders/0/nodeCacheCapable").asBoolean())
                    .isTrue();
            Pod pending = client.resource(createPod(profile.profile(), "reason-" + suffix, "100m", "256Mi", false))
                    .create();
            awaitEvent(pending, "FailedScheduling");
            Commands.Result describe = cluster.kubectl("-n", pods, "describe", "pod", name(pending));
            assertThat(describe.exitCode()).isZero();
            String expected = nodes.size() + " node(s) lack the label \"" + labelKey
                    + "\" required by the SchedulerProfile extender";
            System.out.println("[plugins] kubectl describe pod: "
                    + describe.stdout()
                            .lines()
                            .filter(l -> l.contains("FailedScheduling"))
                            .findFirst()
                            .orElse("")
                            .strip());
            assertThat(describe.stdout()).contains("FailedScheduling").contains(expected);

            // Labelled, the node is kept: the label alone brings the pod there (kube-scheduler retries it on the node's
            // change, and the extender catches up with the API server before it would reject every node again).
            long labelled = System.nanoTime();
            MergePatch.nodeLabel(client, nodes.get(1), labelKey, "x");
            Pod bound = client.resource(pending)
                    .waitUntilCondition(p -> p.getSpec().getNodeName() != null, 10, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - labelled);
            assertThat(bound.getSpec().getNodeName()).isEqualTo(nodes.get(1));
            System.out.println("[plugins] labelled " + nodes.get(1) + ": the pending pod was bound there " + millis
                    + " ms later, nothing else touched it");
            assertThat(millis).as("label to binding, ms").isLessThanOrEqualTo(LabelToBindReport.MAX_MILLIS);
        }
    }

    // --- pools, pods and placements ---

    /**
     * {@code n} new KWOK nodes (4 CPUs, 16Gi) of a pool of their own, created through the API at once. They carry a
     * NoSchedule taint that only the test's pods tolerate, so the cluster's own scheduler never puts the pods of the
     * Deployments the operator renders on them: only the test's pods and fill pods use their resources.
     */
    private List<String> pool(String name, int n) {
        String pool = name + "-" + suffix;
        Map<String, Quantity> capacity =
                Map.of("cpu", new Quantity("4"), "memory", new Quantity("16Gi"), "pods", new Quantity("110"));
        List<String> names = IntStream.range(0, n).mapToObj(i -> pool + "-" + i).toList();
        for (String node : names) {
            client.resource(new NodeBuilder()
                            .withNewMetadata()
                            .withName(node)
                            .addToAnnotations("kwok.x-k8s.io/node", "fake")
                            .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                            .addToLabels("kubernetes.io/hostname", node)
                            .addToLabels("kubernetes.io/os", "linux")
                            .addToLabels("kubernetes.io/arch", "amd64")
                            .addToLabels("type", "kwok")
                            .addToLabels(POOL, pool)
                            .endMetadata()
                            .withNewSpec()
                            .addNewTaint()
                            .withKey(POOL)
                            .withValue(pool)
                            .withEffect("NoSchedule")
                            .endTaint()
                            .endSpec()
                            .withNewStatus()
                            .withCapacity(capacity)
                            .withAllocatable(capacity)
                            .endStatus()
                            .build())
                    .create();
            createdNodes.add(node);
        }
        Await.until(
                Duration.ofSeconds(180),
                n + " nodes of pool " + pool + " Ready and without the node lifecycle's taints",
                () -> client.nodes().withLabel(POOL, pool).list().getItems().stream()
                                .filter(node -> node.getStatus().getConditions() != null
                                        && node.getStatus().getConditions().stream()
                                                .anyMatch(c ->
                                                        "Ready".equals(c.getType()) && "True".equals(c.getStatus()))
                                        && node.getSpec().getTaints().stream()
                                                .noneMatch(t -> t.getKey().startsWith("node.kubernetes.io/")))
                                .count()
                        == n);
        return names;
    }

    /** Pods bound to the node directly (no scheduler), using {@code cpu} and {@code memory} of it. */
    private void fill(String node, String cpu, String memory) {
        Pod fill = new PodBuilder()
                .withNewMetadata()
                .withName("fill-" + node)
                .withNamespace(pods)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("app")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .addToRequests("cpu", new Quantity(cpu))
                .addToRequests("memory", new Quantity(memory))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        client.resource(fill).create();
    }

    private List<String> placeOneByOne(String scheduler, String pool, int count, String cpu, String memory) {
        return placeOneByOne(scheduler, pool, count, cpu, memory, false);
    }

    /** Creates {@code count} pods of the scheduler in the pool, each after the last was bound; their nodes. */
    private List<String> placeOneByOne(
            String scheduler, String pool, int count, String cpu, String memory, boolean preferBest) {
        List<String> placed = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Pod pod = client.resource(createPod(scheduler, pool, cpu, memory, preferBest))
                    .create();
            placed.add(awaitBound(pod));
        }
        return placed;
    }

    private Pod createPod(String scheduler, String pool, String cpu, String memory, boolean preferBest) {
        PodBuilder builder = new PodBuilder()
                .withNewMetadata()
                .withName(scheduler + "-" + (++podCounter))
                .withNamespace(pods)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(scheduler)
                .withNodeSelector(new HashMap<>(Map.of(POOL, pool)))
                .addNewToleration()
                .withKey("kwok.x-k8s.io/node")
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .addNewToleration()
                .withKey(POOL)
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .addNewContainer()
                .withName("app")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .addToRequests("cpu", new Quantity(cpu))
                .addToRequests("memory", new Quantity(memory))
                .endResources()
                .endContainer()
                .endSpec();
        if (preferBest) {
            builder.editSpec()
                    .withNewAffinity()
                    .withNewNodeAffinity()
                    .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                    .withWeight(100)
                    .withNewPreference()
                    .addNewMatchExpression()
                    .withKey(BEST)
                    .withOperator("In")
                    .withValues("yes")
                    .endMatchExpression()
                    .endPreference()
                    .endPreferredDuringSchedulingIgnoredDuringExecution()
                    .endNodeAffinity()
                    .endAffinity()
                    .endSpec();
        }
        return builder.build();
    }

    private String awaitBound(Pod pod) {
        return client.pods()
                .inNamespace(pods)
                .withName(name(pod))
                .waitUntilCondition(p -> p != null && p.getSpec().getNodeName() != null, 90, TimeUnit.SECONDS)
                .getSpec()
                .getNodeName();
    }

    private Event awaitEvent(Pod pod, String reason) {
        Event[] found = new Event[1];
        Await.until(Duration.ofSeconds(90), reason + " for " + name(pod), () -> {
            Optional<Event> event = client.v1().events().inNamespace(pods).list().getItems().stream()
                    .filter(e -> name(pod).equals(e.getInvolvedObject().getName()))
                    .filter(e -> reason.equals(e.getReason()))
                    .findFirst();
            event.ifPresent(e -> found[0] = e);
            return event.isPresent();
        });
        return found[0];
    }

    /** The spec of a shipped sample, as YAML text to apply under another name. */
    private String sampleSpec(String file) throws IOException {
        JsonNode sample = YAML.readTree(
                Files.readString(cluster.repoRoot().resolve("samples").resolve(file)));
        ObjectNode spec = (ObjectNode) sample.path("spec").deepCopy();
        spec.remove("schedulerName");
        return YAML.writeValueAsString(spec).replaceFirst("^---\\n", "");
    }

    private static String name(Pod pod) {
        return pod.getMetadata().getName();
    }
}
