package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.ApiServerMetrics;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.ControlPlaneFaults;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The control plane goes away under a running product: first kube-apiserver, then etcd, each stopped as an upgrade
 * stops it (SIGTERM; {@code e2e/cluster stop-component}) while a profile rolls out, another changes and its pods wait
 * to be scheduled, and started again as it ran. The product, installed from deploy/ on the real node, must resume on
 * its own: the extender's node cache sees a label moved to another node as soon as the API server answers again (the
 * next pod goes there), the rollouts finish, status converges, no object is duplicated and every pod is bound once.
 * Last, the extender's own node watch is cut on the node while the API server is fine.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ControlPlaneFaultsTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String STEADY = "restart-steady";
    static final String LABEL = "restart.example.com/rank";
    static final Duration ROLLOUT = Duration.ofMinutes(4);
    static final Duration BIND = Duration.ofMinutes(3);
    static final int PODS_BEFORE = 5;
    static final String TOUCH = "restart.example.com/touched";
    /**
     * The extender retries a lost watch with a backoff that ends at 8 s (ExtenderApp), then lists the nodes; measured
     * 13 s after an API server restart on an idle machine (it was up to 32 s plus the list before). A loaded CI machine
     * gets about twice that.
     */
    static final Duration CACHE_RESUMES = Duration.ofSeconds(30);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    static final String LAST_EVENT = "schedulerops_extender_node_cache_last_event_timestamp_seconds";
    /** How often the extender's node cache polls its informer's resource version (InformerNodeCache). */
    static final Duration NODE_CACHE_POLL = Duration.ofSeconds(10);
    /** Node changes made, one a second, while the extender's node watch is cut. */
    static final int CUT_CHANGES = 25;

    private final List<String> rolling = new ArrayList<>();
    private Cluster cluster;
    private KubernetesClient client;
    private String nodeA;
    private String nodeB;
    private String namespace;
    private int weight = 1;
    private int created;

    static void say(String line) {
        System.out.println("[control-plane] " + line);
        System.out.flush();
    }

    @BeforeAll
    void installTheProductAndAProfile(Cluster cluster) {
        this.cluster = cluster;
        client = cluster.client();
        nodeA = OperatorTests.installTheProductOnTheRealNode(cluster, "restart", LABEL, ROLLOUT);
        nodeB = cluster.addNodes(1, Map.of("schedulerops.dev/e2e-pool", "restart"))
                .get(0);
        client.resource(OperatorTests.profile("restart", STEADY, spec(weight))).create();
        OperatorTests.awaitCurrent(client, STEADY, ROLLOUT);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "restart");
    }

    @AfterAll
    void removeTheProduct() {
        if (client != null) {
            List<String> profiles = new ArrayList<>(rolling);
            profiles.add(STEADY);
            OperatorTests.removeTheProductFromTheRealNode(
                    cluster,
                    namespace,
                    LABEL,
                    java.util.Arrays.asList(nodeA, nodeB),
                    ROLLOUT,
                    profiles.toArray(String[]::new));
        }
    }

    @Test
    @Order(1)
    void theProductResumesAfterTheApiServerRestarts() {
        survive("kube-apiserver", nodeA, nodeB);
    }

    @Test
    @Order(2)
    void theProductResumesAfterEtcdRestarts() {
        survive("etcd", nodeB, nodeA);
    }

    /**
     * The extender's node watch is cut on the node (its packets to and from the API server dropped) while the API
     * server is fine. What extender/README.md decides: the extender stays Ready and answers from the labels it last saw,
     * and its metrics show that it has heard nothing since; once the network is back it catches up by itself.
     */
    @Test
    @Order(3)
    void aCutNodeWatchLeavesTheExtenderOnItsLastLabelsVisiblyUntilTheNetworkReturns() {
        Pod extender = OperatorTests.livePods(client, WORKLOAD, Labels.selector(STEADY, Labels.COMPONENT_EXTENDER))
                .get(0);
        String ip = extender.getStatus().getPodIP();
        double frozen;
        Instant restored;
        try (RealNode.Blackhole cut = OperatorTests.cutFromTheApiServer(client, ip)) {
            double cutAt = Instant.now().toEpochMilli() / 1000.0;
            MergePatch.nodeLabel(client, nodeA, LABEL, null);
            MergePatch.nodeLabel(client, nodeB, LABEL, "10");
            // A hold, which is the point: for 25 s, more than two of the cache's polls, the node changes every second
            // and the extender must hear none of it. The cache polls its informer's resource version every 10 s and
            // stamps what it finds new with the time of the poll, so what arrived just before the cut may be stamped
            // up to one poll after it; a change heard after the cut would be stamped within a second of it, 15 s or
            // more after that bound.
            for (int i = 0; i < CUT_CHANGES; i++) {
                MergePatch.nodeLabel(client, nodeB, TOUCH, String.valueOf(i));
                Await.sleep(1_000);
            }
            frozen = extenderMetric(ip, LAST_EVENT);
            double watching = extenderMetric(ip, "schedulerops_extender_node_cache_watching");
            assertThat(frozen)
                    .as(
                            "when the extender's cache last heard from the API server (s since the epoch; the cut at"
                                    + " %.1f, %d node changes in the %d s after it)",
                            cutAt, CUT_CHANGES, CUT_CHANGES)
                    .isLessThanOrEqualTo(cutAt + NODE_CACHE_POLL.toSeconds() + 2);
            assertThat(client.pods()
                            .inNamespace(WORKLOAD)
                            .withName(extender.getMetadata().getName())
                            .get())
                    .as("the extender stays Ready on a stale cache")
                    .matches(Readiness::isPodReady);
            Pod stale = create("watch-cut-during");
            assertThat(awaitBound(stale))
                    .as("during the cut the extender answers from the labels it last saw")
                    .isEqualTo(nodeA);
            assertThat(cut.droppedPackets())
                    .as("the watch's packets were dropped")
                    .isPositive();
            say("The node watch of " + STEADY + "'s extender was cut on the node and the label moved from " + nodeA
                    + " to " + nodeB + ": " + CUT_CHANGES + " s later the extender read watching=" + (int) watching
                    + ", had heard nothing of " + CUT_CHANGES + " node changes, was Ready, and sent a pod to " + nodeA
                    + "; "
                    + cut.droppedPackets() + " packets dropped");
            restored = Instant.now();
        }
        Await.until(
                Duration.ofMinutes(5),
                "the extender hears of the label move",
                () -> extenderMetric(ip, LAST_EVENT) > frozen);
        Duration caughtUp = Duration.between(restored, Instant.now());
        Pod fresh = create("watch-cut-after");
        assertThat(awaitBound(fresh))
                .as("once the cache caught up, pods follow the label")
                .isEqualTo(nodeB);
        say("The network is back: the extender's cache heard of the move " + caughtUp.toMillis()
                + " ms later, by itself, and the next pod went to " + nodeB);
    }

    /** One value of the extender's /metrics, read from the node on its health port. */
    private static double extenderMetric(String podIp, String name) {
        HttpResponse<String> response;
        try {
            response = HTTP.send(
                    HttpRequest.newBuilder(
                                    URI.create("http://" + podIp + ":" + Names.EXTENDER_HEALTH_PORT + "/metrics"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return response.body()
                .lines()
                .filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in the extender's metrics"));
    }

    /**
     * Starts a rollout of a new profile and of a changed one, creates pods, stops {@code component}, starts it again,
     * moves the label from {@code from} to {@code to} as soon as the API server answers, and asserts what the product
     * must do after it.
     */
    private void survive(String component, String from, String to) {
        String newProfile = "restart-" + component.replace("kube-", "");
        rolling.add(newProfile);
        weight++;
        String run = "restart-" + component;
        client.resource(OperatorTests.profile(run, newProfile, spec(1))).create();
        patchWeight(weight);
        List<Pod> before = new ArrayList<>();
        for (int i = 0; i < PODS_BEFORE; i++) {
            before.add(create(component + "-before-" + i));
        }
        Map<String, Integer> restartsBefore = containerRestarts();
        Map<String, Long> bindingsBefore = ApiServerMetrics.bindingRequests(cluster);

        try (ControlPlaneFaults.Outage outage = ControlPlaneFaults.stop(component)) {
            // A hold, which is the point: the component stays down 5 s after it has exited (a SIGTERMed API server
            // stops answering at once and takes up to 30 s to exit), longer than the first retries of every client
            // (the extender's watch retries after 250 ms, doubling; the operator's informers after 1 s;
            // kube-scheduler's
            // reflectors after 0.8 s), so that each of them meets the outage rather than a blip.
            Await.sleep(5_000);
            Instant back = outage.start();
            Duration down = Duration.between(outage.stopped(), back);
            // The first writes after the outage: the label moves. The extender's node cache must hear of it within
            // its watch's reconnect backoff (8 s at most), and the next pod must follow it.
            MergePatch.nodeLabel(client, from, LABEL, null);
            MergePatch.nodeLabel(client, to, LABEL, "10");
            double moved = Instant.now().toEpochMilli() / 1000.0;
            Await.until(CACHE_RESUMES, "the extender's node cache hears of the moved label", () -> {
                Pod extender = OperatorTests.livePods(
                                client, WORKLOAD, Labels.selector(STEADY, Labels.COMPONENT_EXTENDER))
                        .get(0);
                return extenderMetric(extender.getStatus().getPodIP(), LAST_EVENT) >= moved;
            });
            Duration cacheResumed = Duration.between(back, Instant.now());
            Pod after = create(component + "-after");

            String afterNode = awaitBound(after);
            Duration firstCorrectBinding = Duration.between(back, Instant.now());
            assertThat(afterNode)
                    .as("the pod created after the outage goes where the label is now")
                    .isEqualTo(to);
            for (Pod pod : before) {
                assertThat(awaitBound(pod))
                        .as("pod " + pod.getMetadata().getName() + " created before the outage is bound to a labelled"
                                + " node")
                        .isIn(nodeA, nodeB);
            }
            assertThat(client.pods().inNamespace(namespace).list().getItems())
                    .as("no pod lost (the names are fixed, so none can be duplicated)")
                    .hasSize(created);

            OperatorTests.awaitCurrent(client, newProfile, ROLLOUT);
            OperatorTests.awaitCurrent(client, STEADY, ROLLOUT);
            Duration converged = Duration.between(back, Instant.now());
            for (String profile : List.of(newProfile, STEADY)) {
                assertTheObjectsOfTheProfileAreThereOnce(profile);
            }
            assertThat(client.configMaps()
                            .inNamespace(WORKLOAD)
                            .withName(new Names(STEADY, WORKLOAD).schedulerConfig())
                            .get()
                            .getData()
                            .get(Names.CONFIG_FILE))
                    .as("the change made before the outage is in the scheduler's config")
                    .contains("weight: " + weight);
            Deployment scheduler = deployment(new Names(STEADY, WORKLOAD).scheduler());
            assertThat(scheduler.getStatus().getUpdatedReplicas())
                    .as("the scheduler's rollout finished: every replica runs the new config")
                    .isEqualTo(scheduler.getSpec().getReplicas())
                    .isEqualTo(scheduler.getStatus().getAvailableReplicas());

            Map<String, Long> bindings = component.equals("kube-apiserver")
                    ? ApiServerMetrics.bindingRequests(cluster)
                    : ApiServerMetrics.difference(ApiServerMetrics.bindingRequests(cluster), bindingsBefore);
            Map<String, Integer> restarts = restartsSince(restartsBefore);
            say(component + " stopped and started again: the API server did not answer for " + down.toMillis()
                    + " ms; the extender's node cache heard of the label moved right after it "
                    + cacheResumed.toMillis() + " ms after the API server was back; the next pod was bound to "
                    + afterNode + ", where the label had moved, "
                    + firstCorrectBinding.toMillis() + " ms after the API server was back; both profiles Current "
                    + converged.toMillis() + " ms after it; binding requests by status " + bindings
                    + (component.equals("kube-apiserver") ? " (counted by the new API server)" : "")
                    + "; product containers restarted meanwhile: " + (restarts.isEmpty() ? "none" : restarts)
                    + "; control-plane processes that exited and were started again: " + outage.revived());
            assertThat(ApiServerMetrics.Bindings.of(bindings).conflicts())
                    .as("binding requests refused as conflicts (a pod bound twice): %s", bindings)
                    .isZero();
        }
    }

    private void assertTheObjectsOfTheProfileAreThereOnce(String profile) {
        Map<String, String> labels = Map.of(Labels.PROFILE, profile);
        Names names = new Names(profile, WORKLOAD);
        List<String> deployments = names(client.apps()
                .deployments()
                .inNamespace(WORKLOAD)
                .withLabels(labels)
                .list()
                .getItems());
        assertThat(deployments)
                .as("the Deployments of " + profile)
                .containsExactlyInAnyOrder(names.extender(), names.scheduler());
        assertThat(names(client.services()
                        .inNamespace(WORKLOAD)
                        .withLabels(labels)
                        .list()
                        .getItems()))
                .as("the Services of " + profile)
                .containsExactly(names.extender());
        assertThat(names(client.configMaps()
                        .inNamespace(WORKLOAD)
                        .withLabels(labels)
                        .list()
                        .getItems()))
                .as("the ConfigMaps of " + profile)
                .containsExactly(names.schedulerConfig());
        for (String deployment : deployments) {
            Deployment d = deployment(deployment);
            assertThat(OperatorTests.livePods(
                            client, WORKLOAD, d.getSpec().getSelector().getMatchLabels()))
                    .as("the running pods of " + deployment)
                    .hasSize(d.getSpec().getReplicas());
        }
    }

    private static List<String> names(List<? extends HasMetadata> objects) {
        return objects.stream().map(o -> o.getMetadata().getName()).toList();
    }

    private static String spec(int weight) {
        return "labelKey: %s\nweight: %d\nextender:\n  replicas: 1\n".formatted(LABEL, weight);
    }

    private void patchWeight(int newWeight) {
        client.resources(SchedulerProfile.class).withName(STEADY).edit(p -> {
            p.getSpec().setWeight(newWeight);
            return p;
        });
    }

    private Deployment deployment(String name) {
        return client.apps().deployments().inNamespace(WORKLOAD).withName(name).get();
    }

    private Pod create(String name) {
        created++;
        return client.resource(RestrictedPods.forScheduler(namespace, name, STEADY))
                .create();
    }

    private String awaitBound(Pod pod) {
        return OperatorTests.awaitBound(client, pod, BIND);
    }

    /** Restart counts of the product's containers (the operator's, the extenders' and the schedulers'). */
    private Map<String, Integer> containerRestarts() {
        return client.pods().inNamespace(WORKLOAD).list().getItems().stream()
                .filter(p -> p.getStatus() != null && p.getStatus().getContainerStatuses() != null)
                .collect(Collectors.toMap(
                        p -> p.getMetadata().getName(),
                        p -> p.getStatus().getContainerStatuses().stream()
                                .mapToInt(s -> s.getRestartCount())
                                .sum(),
                        Integer::sum,
                        TreeMap::new));
    }

    private Map<String, Integer> restartsSince(Map<String, Integer> before) {
        Map<String, Integer> since = new TreeMap<>();
        containerRestarts().forEach((pod, count) -> {
            int d = count - before.getOrDefault(pod, 0);
            if (d > 0) {
                since.put(pod, d);
            }
        });
        return since;
    }
}
