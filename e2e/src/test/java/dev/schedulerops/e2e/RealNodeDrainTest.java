package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.ApiServerMetrics;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.LeaseTimeline;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.PodTimeline;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.SchedulerLeaseHandOver;
import dev.schedulerops.operator.runtime.SchedulerLeaseWatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link DrainTest} for real: two real nodes (the second in a network namespace of its own, {@code e2e/cluster real-node
 * 2}), a profile with 2 extender and 2 scheduler replicas as real containers, one of each per node, and {@code kubectl
 * drain} of each node in turn, back to back, while a pod for the profile's scheduler arrives every half second. The
 * real kubelet stops the evicted containers (kube-scheduler gives up its lease on SIGTERM, the extender's endpoint is
 * removed), the PodDisruptionBudgets hold the second eviction until the replacement is Ready, and every pod must still
 * be bound, once, to the node its label says, within a bound. The operator runs as docs/profiles.md advises for drains:
 * two replicas, one on each node (deploy/'s PodDisruptionBudget and spread), so that a replica with warm caches always
 * runs to give back the lease of a kube-scheduler the drain stops.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealNodeDrainTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String PROFILE = "real-drain";
    static final String LABEL = "real-drain.example.com/rank";
    static final String POOL = "e2e.schedulerops.dev/real-drain";
    static final String SECOND_NODE_TAINT = "e2e.schedulerops.dev/second-node";
    /** The operator's pods, by their name: deploy/'s Deployment schedulerops-operator. */
    static final String OPERATOR_POD_PREFIX = "schedulerops-operator-";

    static final Duration ROLLOUT = Duration.ofMinutes(3);
    /** The operator's replicas here: docs/profiles.md's advice for drains. */
    static final int OPERATOR_REPLICAS = 2;
    /**
     * From the eviction of the scheduler that holds the lease to another holding it, whoever gave it back: the evicted
     * kube-scheduler releases it on SIGTERM (bench/scheduler-lease-release), or, when that fails, its pod's
     * release-lease sidecar does as soon as kube-scheduler has exited (the kubelet stops it after the main container);
     * the standby takes it at its next try (retryPeriod 500ms plus up to 1.2 times it of jitter, so
     * at most 1.1 s). Asserted. With one operator replica, a drain that evicts it while its replacement is still starting
     * leaves the lease to run out (up to about two lease durations): docs/profiles.md says so.
     */
    static final Duration HAND_OVER_BOUND = Duration.ofSeconds(3);
    /**
     * The same when kube-scheduler's own release failed (its last renewal raced with it: "Failed to release lock: ...
     * the object has been modified", client-go#1417) and an operator replica gave the lease back before the sidecar
     * (or instead of one that was not running yet: the replica on the other node, when the drain evicts the leading
     * operator with the leading scheduler). That replica waits
     * for the kubelet to report the container stopped, which the kubelet notices at its next relist (every 1 s) and
     * reports after; in one CI run it came 1.8 s after kube-scheduler had exited, and the hand-over took 3.6 s.
     */
    static final Duration OPERATOR_HAND_OVER_BOUND = Duration.ofSeconds(5);
    /**
     * The longest a pod may wait for its binding while the nodes are drained: the hand-over's bound, the standby's
     * first scheduling cycle after it takes the lease, and the binding through the extender on a loaded machine.
     */
    static final Duration BINDING_BOUND = Duration.ofSeconds(10);

    /**
     * Room on the KWOK node the pods go to. A pod arrives every 500 ms for as long as the drains take, and e2e/cluster's
     * usual 110 filled up in CI once the drains took over 55 s: the rest were "Too many pods" and waited for good. The
     * drains' own limits (kubectl's 180 s a node, then 120 s for both components) allow at most 960 arrivals. The node
     * has CPU for them too (e2e/cluster's --pods): with its usual 4 CPUs, 400 of these 10m pods filled it once drains
     * took over 200 s in CI, and the rest were "Insufficient cpu".
     */
    static final int KWOK_NODE_PODS = 1000;

    /** How long after the drains the last pod may still be unbound before the test gives up and says why. */
    static final Duration UNBOUND_BOUND = Duration.ofMinutes(2);

    private final Names names = new Names(PROFILE, WORKLOAD);
    private Cluster cluster;
    private KubernetesClient client;
    private String kwokNode;
    private String namespace;
    private List<String> realNodes;
    private AutoCloseable followedLogs;

    static void say(String line) {
        System.out.println("[real drain] " + line);
        System.out.flush();
    }

    @BeforeAll
    void twoRealNodesAndAProfileWithTwoOfEach(Cluster cluster) {
        this.cluster = cluster;
        client = cluster.client();
        followedLogs =
                cluster.followProductLogs("drainingBothRealNodesInTurnKeepsBothComponentsAvailableAndEveryPodIsBound");
        kwokNode = OperatorTests.installTheProductOnTheRealNode(
                cluster, "real-drain", LABEL, ROLLOUT, java.util.OptionalInt.of(KWOK_NODE_PODS));
        realNodes = List.of(RealNode.ensure(), RealNode.ensureSecond());
        // Two replicas, as docs/profiles.md advises for drains; the second node's taint keeps other tests' pods off it,
        // so the operator tolerates it here as a profile's pods do.
        cluster.kubectl(
                        "-n",
                        WORKLOAD,
                        "patch",
                        "deployment",
                        InClusterTest.OPERATOR,
                        "--type=strategic",
                        "-p",
                        "{\"spec\":{\"replicas\":" + OPERATOR_REPLICAS + ",\"template\":{\"spec\":{\"tolerations\":"
                                + "[{\"key\":\"" + SECOND_NODE_TAINT + "\",\"operator\":\"Exists\","
                                + "\"effect\":\"NoSchedule\"}]}}}}")
                .requireSuccess("kubectl patch the operator to " + OPERATOR_REPLICAS + " replicas");
        OperatorTests.awaitTheDeployedOperator(client, ROLLOUT);
        for (String node : realNodes) {
            assertThat(podsOn(node, p -> !WORKLOAD.equals(p.getMetadata().getNamespace())))
                    .as("pods of other tests on %s (a drain would evict them)", node)
                    .isEmpty();
            MergePatch.nodeLabel(client, node, POOL, "yes");
        }
        String placement =
                """
                  replicas: 2
                  nodeSelector: {%s: "yes"}
                  tolerations: [{key: %s, operator: Exists, effect: NoSchedule}]
                """
                        .formatted(POOL, SECOND_NODE_TAINT);
        client.resource(OperatorTests.profile(
                        "real-drain",
                        PROFILE,
                        "labelKey: " + LABEL + "\nextender:\n" + placement + "scheduler:\n" + placement))
                .create();
        OperatorTests.awaitCurrent(client, PROFILE, ROLLOUT);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "real-drain");
    }

    @AfterAll
    void removeTheSecondNodeAndTheProduct() throws Exception {
        if (followedLogs != null) {
            followedLogs.close();
        }
        if (client == null) {
            return;
        }
        try {
            if (realNodes != null) {
                realNodes.forEach(node -> cluster.kubectl("uncordon", node));
            }
            OperatorTests.removeTheProductFromTheRealNode(
                    cluster, namespace, LABEL, Arrays.asList(kwokNode), ROLLOUT, PROFILE);
            if (realNodes != null) {
                realNodes.forEach(node -> MergePatch.nodeLabel(client, node, POOL, null));
            }
        } finally {
            RealNode.removeSecond();
        }
    }

    @Test
    void drainingBothRealNodesInTurnKeepsBothComponentsAvailableAndEveryPodIsBound() throws Exception {
        for (String component : List.of(Labels.COMPONENT_EXTENDER, Labels.COMPONENT_SCHEDULER)) {
            assertThat(OperatorTests.hostnameSpread(deployment(component)).getWhenUnsatisfiable())
                    .as("%s: each replica needs a node of its own", component)
                    .isEqualTo("DoNotSchedule");
            Await.until(ROLLOUT, component + ": one Ready pod on each real node", () -> realNodes.stream()
                    .allMatch(node -> readyPods(component).stream()
                                    .filter(p -> node.equals(p.getSpec().getNodeName()))
                                    .count()
                            == 1));
            Pod onSecond = readyPods(component).stream()
                    .filter(p -> realNodes.get(1).equals(p.getSpec().getNodeName()))
                    .findFirst()
                    .orElseThrow();
            String cgroup = RealNode.inspect(
                            onSecond.getStatus().getContainerStatuses().get(0).getContainerID())
                    .memoryCgroup();
            assertThat(cgroup)
                    .as("%s's container on %s runs under that node's own cgroup root", component, realNodes.get(1))
                    .startsWith("/schedulerops-node2/kubepods/");
            // The API server reaches the second node's kubelet (its serving address is in its namespace) and that
            // kubelet serves the container's log from its own pod-log directory.
            assertThat(client.pods()
                            .inNamespace(WORKLOAD)
                            .withName(onSecond.getMetadata().getName())
                            .getLog())
                    .as("the log of %s's pod on %s", component, realNodes.get(1))
                    .isNotBlank();
        }

        acrossNodesThePolicyIsEnforcedByTheDestinationsNode();
        Await.until(ROLLOUT, "one Ready operator pod on each real node", this::oneOperatorPodOnEachNode);
        String leaderNode = theLeaderOnTheLeadingOperatorsNode();
        List<String> drainOrder =
                leaderNode.equals(realNodes.get(0)) ? realNodes : List.of(realNodes.get(1), realNodes.get(0));

        Map<String, Long> bindingsBefore = ApiServerMetrics.bindingRequests(cluster);
        AtomicInteger minExtender = new AtomicInteger(Integer.MAX_VALUE);
        AtomicInteger minScheduler = new AtomicInteger(Integer.MAX_VALUE);
        AtomicInteger minEndpoints = new AtomicInteger(Integer.MAX_VALUE);
        long startNanos = System.nanoTime();
        Map<String, Long> created = new ConcurrentHashMap<>();
        AtomicBoolean watching = new AtomicBoolean(true);
        List<String> arrivalErrors = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread monitor = new Thread(() -> {
            while (watching.get()) {
                try {
                    minExtender.accumulateAndGet(available(Labels.COMPONENT_EXTENDER), Math::min);
                    minScheduler.accumulateAndGet(available(Labels.COMPONENT_SCHEDULER), Math::min);
                    minEndpoints.accumulateAndGet(readyExtenderEndpoints(), Math::min);
                } catch (RuntimeException e) {
                    say("monitor: " + e);
                }
                Await.sleep(100);
            }
        });
        AtomicBoolean arriving = new AtomicBoolean(true);
        Thread arrivals = new Thread(() -> {
            for (int i = 0; arriving.get() && i < KWOK_NODE_PODS; i++) {
                String name = "pod-" + i;
                long now = System.nanoTime();
                try {
                    client.resource(RestrictedPods.forScheduler(namespace, name, PROFILE))
                            .create();
                    created.put(name, now);
                } catch (RuntimeException e) {
                    arrivalErrors.add(name + ": " + e);
                }
                Await.sleep(500);
            }
        });
        monitor.setDaemon(true);
        arrivals.setDaemon(true);
        Map<String, Duration> drainTimes = new java.util.LinkedHashMap<>();
        Map<String, String> placements = new java.util.LinkedHashMap<>();
        Map<String, Duration> handOvers = new java.util.LinkedHashMap<>();
        List<String> sidecarReleases = new java.util.ArrayList<>();
        String timeline;
        // When each pod was bound, as a watch opened before the first pod saw it (the pod's own event, not a poll).
        Map<String, Long> bound = new java.util.HashMap<>();
        Map<String, Integer> restarted = new java.util.TreeMap<>();
        try (LeaseTimeline lease = new LeaseTimeline(client, WORKLOAD, names.schedulerLease());
                PodTimeline pods = PodTimeline.start(client)) {
            monitor.start();
            arrivals.start();
            try {
                try {
                    drainInTurn(drainOrder, drainTimes, placements);
                } finally {
                    arriving.set(false);
                    arrivals.join();
                }
                if (!Await.within(UNBOUND_BOUND, () -> boundAt(pods).keySet().containsAll(created.keySet()))) {
                    throw new AssertionError("pods not bound " + UNBOUND_BOUND + " after the drains:\n"
                            + unbound(created.keySet(), boundAt(pods).keySet(), lease, pods, startNanos)
                            + "timeline (ms since the pods began to arrive):\n"
                            + timeline(lease, pods, startNanos));
                }
            } finally {
                watching.set(false);
                monitor.join();
            }
            bound.putAll(boundAt(pods));
            handOvers.putAll(handOvers(lease, pods));
            sidecarReleases.addAll(sidecarReleases(lease));
            timeline = timeline(lease, pods, startNanos);
            restarted.putAll(restarted(pods));
        }

        ApiServerMetrics.Bindings bindings = ApiServerMetrics.Bindings.of(
                ApiServerMetrics.difference(ApiServerMetrics.bindingRequests(cluster), bindingsBefore));
        Duration slowest = created.entrySet().stream()
                .map(e -> Duration.ofNanos(bound.get(e.getKey()) - e.getValue()))
                .max(Duration::compareTo)
                .orElseThrow();
        List<String> elsewhere = client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> !kwokNode.equals(p.getSpec().getNodeName()))
                .map(p -> p.getMetadata().getName() + " on " + p.getSpec().getNodeName())
                .toList();
        List<String> failedScheduling = client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> "FailedScheduling".equals(e.getReason()))
                .map(e -> e.getInvolvedObject().getName() + ": " + e.getMessage())
                .toList();
        // Which leases the operator gave back, and which of its pods did (the evicted one while stopping, or its
        // replacement): the rest were the schedulers' own releases, or nobody's.
        List<String> operatorReleases = client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> SchedulerLeaseWatch.REASON_RELEASED.equals(e.getReason())
                        && PROFILE.equals(e.getInvolvedObject().getName()))
                .map(e -> e.getReportingInstance() + ": " + e.getMessage())
                .toList();
        say("The operator gave back " + operatorReleases.size() + " lease(s) " + operatorReleases
                + "; the release-lease sidecar of " + sidecarReleases + "; kube-scheduler itself the others");
        say("With " + OPERATOR_REPLICAS + " operator replicas, the leading one and the leading kube-scheduler both on "
                + leaderNode + ", drained " + drainTimes
                + " back to back while " + created.size() + " pods arrived (one every 500 ms):"
                + " fewest available extender pods " + minExtender + ", scheduler pods " + minScheduler
                + ", ready extender endpoints " + minEndpoints + "; lease hand-overs after the leader's eviction "
                + handOvers + "; slowest binding " + slowest.toMillis() + " ms; binding requests by status "
                + bindings.byCode() + "; FailedScheduling events " + failedScheduling
                + "; Ready pods (extender / scheduler) by node as each drain returned " + placements
                + ", at the end " + placement(Labels.COMPONENT_EXTENDER) + " / "
                + placement(Labels.COMPONENT_SCHEDULER));
        // Always, not only on a failure: where each hand-over's time went (eviction, the container's stop as the
        // kubelet reported it, the next holder) is the evidence for HAND_OVER_BOUND.
        say("timeline (ms since the pods began to arrive):\n" + timeline);

        List<String> slowPods = created.entrySet().stream()
                .filter(e ->
                        Duration.ofNanos(bound.get(e.getKey()) - e.getValue()).compareTo(BINDING_BOUND) > 0)
                .map(e -> e.getKey() + " created at +" + TimeUnit.NANOSECONDS.toMillis(e.getValue() - startNanos)
                        + " ms, bound at +" + TimeUnit.NANOSECONDS.toMillis(bound.get(e.getKey()) - startNanos)
                        + " ms")
                .sorted()
                .toList();
        // Every check is made and reported together, with the timeline: a failure on a machine far away must say why.
        String why = "; slow pods " + slowPods + "; timeline (ms since the pods began to arrive):\n" + timeline;
        // Each hand-over against its bound: the operator's releases name the scheduler pod they were for.
        java.util.function.Predicate<String> givenBackByTheOperator =
                pod -> operatorReleases.stream().anyMatch(r -> r.contains("scheduler pod " + pod + ","));
        List<String> slowHandOvers = handOvers.entrySet().stream()
                .filter(h -> h.getValue()
                                .compareTo(
                                        givenBackByTheOperator.test(h.getKey())
                                                ? OPERATOR_HAND_OVER_BOUND
                                                : HAND_OVER_BOUND)
                        > 0)
                .map(h -> h.getKey() + " " + h.getValue().toMillis() + " ms ("
                        + (givenBackByTheOperator.test(h.getKey())
                                ? "given back by an operator replica, bound " + OPERATOR_HAND_OVER_BOUND.toMillis()
                                : "not given back by an operator replica, bound " + HAND_OVER_BOUND.toMillis())
                        + " ms)")
                .toList();
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(arrivalErrors)
                    .as("pods that could not be created")
                    .isEmpty();
            softly.assertThat(created.size())
                    .as("pods created (the KWOK node holds %d: the drains outlasted the arrivals)", KWOK_NODE_PODS)
                    .isLessThan(KWOK_NODE_PODS);
            softly.assertThat(minExtender.get())
                    .as("fewest available extender pods")
                    .isGreaterThanOrEqualTo(1);
            softly.assertThat(minScheduler.get())
                    .as("fewest available scheduler pods")
                    .isGreaterThanOrEqualTo(1);
            softly.assertThat(minEndpoints.get())
                    .as("fewest ready endpoints of the extender Service")
                    .isGreaterThanOrEqualTo(1);
            softly.assertThat(elsewhere)
                    .as("pods not on the node the label names")
                    .isEmpty();
            softly.assertThat(bindings.conflicts())
                    .as("binding requests refused as conflicts (a pod bound twice): %s", bindings.byCode())
                    .isZero();
            softly.assertThat(bindings.other())
                    .as("binding requests answered 1xx, 3xx or 4xx but 409: %s", bindings.byCode())
                    .isZero();
            softly.assertThat(bindings.serverErrors())
                    .as(
                            "binding requests the API server failed (5xx; kube-scheduler retries them): %s",
                            bindings.byCode())
                    .isLessThanOrEqualTo(bindings.serverErrorBound());
            softly.assertThat(bindings.made())
                    .as(
                            "bindings made, cluster-wide: the pods, and the components' replacements (%s)",
                            bindings.byCode())
                    .isGreaterThanOrEqualTo(created.size());
            softly.assertThat(slowest)
                    .as("the longest a pod waited for its binding%s", why)
                    .isLessThanOrEqualTo(BINDING_BOUND);
            softly.assertThat(handOvers)
                    .as("the leader was evicted at least once")
                    .isNotEmpty();
            softly.assertThat(slowHandOvers)
                    .as(
                            "hand-overs (from the leader's eviction to another scheduler holding the lease) over their"
                                    + " bound; all: %s%s",
                            handOvers, why)
                    .isEmpty();
            // A stopping extender keeps answering until every kube-proxy has dropped it (its --shutdown-delay):
            // without that, a scheduling attempt in the moment between SIGTERM and the endpoint's removal got a 503.
            // A scheduler pod that takes the lease the moment it starts (its predecessor gave it back) waited in its
            // init container until the extender answered its own address: before that, its first calls came before
            // the NetworkPolicy enforcer had admitted the new address and were refused ("connection refused").
            softly.assertThat(failedScheduling).as("failed scheduling attempts").isEmpty();
            // A replacement starts on a node that is busy with the evicted pods' replacements: slow, but a probe that
            // gives up on it restarts it and the drain waits for the start all over again.
            softly.assertThat(restarted)
                    .as("containers of the operator and the profile's pods restarted during the drains%s", why)
                    .isEmpty();
        });
        OperatorTests.awaitCurrent(client, PROFILE, Duration.ofSeconds(60));
    }

    /**
     * A pod on the first node that no NetworkPolicy admits connects to the extender's verb port on the second node: it
     * opens with the enforcer off (the two nodes' pods reach each other) and is refused with it on (the second node's own
     * kube-router, in its namespace, polices what arrives from the other node). The drain's bindings, with {@code
     * ignorable: false}, are the other half: the scheduler's calls across the nodes are admitted.
     */
    private void acrossNodesThePolicyIsEnforcedByTheDestinationsNode() {
        boolean enforced = RealNode.networkPolicyEnforced();
        Pod extender = readyPods(Labels.COMPONENT_EXTENDER).stream()
                .filter(p -> realNodes.get(1).equals(p.getSpec().getNodeName()))
                .findFirst()
                .orElseThrow();
        String ip = extender.getStatus().getPodIP();
        int port = NetworkPolicyEnforcementTest.VERBS;
        Pod outsider = client.resource(RestrictedPods.client(
                        namespace,
                        "outsider",
                        extender.getSpec().getContainers().get(0).getImage(),
                        Map.of()))
                .create();
        try {
            outsider = client.resource(outsider).waitUntilCondition(Readiness::isPodReady, 120, TimeUnit.SECONDS);
            assertThat(outsider.getSpec().getNodeName())
                    .as("the outsider's node")
                    .isEqualTo(realNodes.get(0));
            RealNode.networkPolicy(false);
            NetworkPolicyEnforcementTest.Probe open = NetworkPolicyEnforcementTest.probe(cluster, outsider, ip, port);
            assertThat(open.result())
                    .as(
                            "without the enforcer, a pod on %s connects to %s:%d on %s (%s)",
                            realNodes.get(0), ip, port, realNodes.get(1), open)
                    .isEqualTo("open");
            if (!enforced) {
                say("NetworkPolicy enforcement is off for this run (-D" + RealNode.NETWORK_POLICY_PROPERTY
                        + "=off): the cross-node refusal was not checked; the connection opened (" + open + ").");
                return;
            }
            RealNode.networkPolicy(true);
            Pod from = outsider;
            NetworkPolicyEnforcementTest.Probe refused =
                    Await.value(Duration.ofSeconds(60), "the second node's kube-router refuses the outsider", () -> {
                        NetworkPolicyEnforcementTest.Probe probe =
                                NetworkPolicyEnforcementTest.probe(cluster, from, ip, port);
                        return probe.filtered() ? probe : null;
                    });
            say("Across the nodes, " + realNodes.get(0) + " to the extender on " + realNodes.get(1) + ":" + port + ": "
                    + open + " without the enforcer, " + refused + " with it.");
        } finally {
            RealNode.networkPolicy(enforced);
            // A bare pod would stop the drain (kubectl drain evicts only pods a controller recreates).
            client.resource(outsider).withGracePeriod(0).delete();
            String name = outsider.getMetadata().getName();
            Await.until(
                    Duration.ofSeconds(60),
                    "the outsider is gone",
                    () -> client.pods().inNamespace(namespace).withName(name).get() == null);
        }
    }

    /**
     * The hardest case for the hand-over, every run: the leading operator shares the first drained node with the leading
     * kube-scheduler, so the drain evicts both at once and the hand-over must come from the replica on the other node.
     * A scheduler leader elsewhere is moved by deleting its pod, which gives the lease to the scheduler on the leading
     * operator's node. Returns that node.
     */
    private String theLeaderOnTheLeadingOperatorsNode() {
        // Its identity is its pod's name, "-" and a random suffix; a holder that is gone (the pod the patch replaced)
        // leads no more once its lease runs out.
        String operatorNode = Await.value(ROLLOUT, "a Ready operator pod holds the operator's lease", () -> {
            var lease = client.leases()
                    .inNamespace(WORKLOAD)
                    .withName(SchedulerHandOverTest.OPERATOR_LEASE)
                    .get();
            String holder = lease == null ? null : lease.getSpec().getHolderIdentity();
            return holder == null
                    ? null
                    : operatorPods().stream()
                            .filter(Readiness::isPodReady)
                            .filter(p -> holder.startsWith(p.getMetadata().getName() + "-"))
                            .map(p -> p.getSpec().getNodeName())
                            .findFirst()
                            .orElse(null);
        });
        Await.until(ROLLOUT, "a Ready scheduler pod holds the lease", () -> leaderPod()
                .isPresent());
        Pod leader = leaderPod().orElseThrow();
        if (!operatorNode.equals(leader.getSpec().getNodeName())) {
            say("The leader " + leader.getMetadata().getName() + " runs on "
                    + leader.getSpec().getNodeName() + ", not with the leading operator on " + operatorNode
                    + ": deleting it so that the lease moves there");
            client.resource(leader).delete();
            Await.until(
                    ROLLOUT,
                    "the lease held by a scheduler on " + operatorNode + " and both schedulers available",
                    () -> leaderPod()
                                    .map(p -> operatorNode.equals(p.getSpec().getNodeName()))
                                    .orElse(false)
                            && available(Labels.COMPONENT_SCHEDULER) == 2);
        }
        return operatorNode;
    }

    /**
     * Whether each real node runs one Ready operator pod: deploy/'s spread over hostnames (a preference, which counts
     * only the current revision's pods) puts the second replica beside the first only when no other node can take it.
     */
    private boolean oneOperatorPodOnEachNode() {
        return realNodes.stream()
                .allMatch(node -> operatorPods().stream()
                                .filter(Readiness::isPodReady)
                                .filter(p -> node.equals(p.getSpec().getNodeName()))
                                .count()
                        == 1);
    }

    private List<Pod> operatorPods() {
        return OperatorTests.livePods(client, WORKLOAD, Map.of("app.kubernetes.io/name", InClusterTest.OPERATOR));
    }

    /** The Ready pod whose kube-scheduler holds the profile's lease (its identity: the pod's name, "_", a random id). */
    private java.util.Optional<Pod> leaderPod() {
        var lease = client.leases()
                .inNamespace(WORKLOAD)
                .withName(names.schedulerLease())
                .get();
        String holder = lease == null ? null : lease.getSpec().getHolderIdentity();
        if (holder == null) {
            return java.util.Optional.empty();
        }
        return readyPods(Labels.COMPONENT_SCHEDULER).stream()
                .filter(p -> holder.startsWith(p.getMetadata().getName() + "_"))
                .findFirst();
    }

    private void drainInTurn(List<String> order, Map<String, Duration> drainTimes, Map<String, String> placements) {
        for (String node : order) {
            Instant start = Instant.now();
            // Back to back: the next drain starts while the pods evicted by this one may still be starting, so
            // only the PodDisruptionBudgets keep one replica of each component up.
            Commands.Result drain =
                    cluster.kubectl("drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=180s");
            assertThat(drain.exitCode())
                    .as("kubectl drain %s:\n%s\n%s", node, drain.stdout(), drain.stderr())
                    .isZero();
            drainTimes.put(node, Duration.between(start, Instant.now()));
            placements.put(node, placement(Labels.COMPONENT_EXTENDER) + " / " + placement(Labels.COMPONENT_SCHEDULER));
            cluster.kubectl("uncordon", node).requireSuccess("kubectl uncordon " + node);
        }
        Await.until(
                Duration.ofSeconds(120),
                "both components fully available again",
                () -> available(Labels.COMPONENT_EXTENDER) == 2 && available(Labels.COMPONENT_SCHEDULER) == 2);
    }

    private Deployment deployment(String component) {
        return client.apps()
                .deployments()
                .inNamespace(WORKLOAD)
                .withName(PROFILE + "-" + component)
                .get();
    }

    private int available(String component) {
        return OperatorTests.available(deployment(component));
    }

    private int readyExtenderEndpoints() {
        return (int) client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(WORKLOAD)
                .withLabel("kubernetes.io/service-name", names.extender())
                .list()
                .getItems()
                .stream()
                .flatMap(s -> s.getEndpoints() == null ? java.util.stream.Stream.empty() : s.getEndpoints().stream())
                .filter(e -> e.getConditions() != null
                        && Boolean.TRUE.equals(e.getConditions().getReady()))
                .count();
    }

    /**
     * Each eviction of the scheduler pod that held the lease at that moment, and how long until another scheduler held
     * it (both as the watches here saw them), by the evicted pod's name; no other holder reads as a very long time.
     */
    private Map<String, Duration> handOvers(LeaseTimeline lease, PodTimeline pods) {
        Map<String, Duration> found = new java.util.LinkedHashMap<>();
        for (LeaseTimeline.Holder holder : lease.holders()) {
            if (holder.identity() == null) {
                continue;
            }
            String pod = holder.identity().substring(0, holder.identity().lastIndexOf('_'));
            PodTimeline.Change evicted = pods.changes().stream()
                    .filter(c -> c.name().equals(pod) && c.pod().getMetadata().getDeletionTimestamp() != null)
                    .findFirst()
                    .orElse(null);
            if (evicted == null
                    || evicted.nanos() < holder.nanos()
                    || heldBySomeoneElse(lease, holder, evicted.nanos())) {
                continue; // not evicted while it led
            }
            long next = lease.nextHolderAfter(holder.identity(), evicted.nanos());
            found.put(pod, next < 0 ? Duration.ofDays(1) : Duration.ofNanos(next - evicted.nanos()));
        }
        return found;
    }

    /** The holders whose lease their scheduler pod's release-lease sidecar gave back (their own release failed). */
    private static List<String> sidecarReleases(LeaseTimeline lease) {
        List<LeaseTimeline.Holder> holders = lease.holders();
        List<String> found = new java.util.ArrayList<>();
        for (int i = 1; i < holders.size(); i++) {
            String previous = holders.get(i - 1).identity();
            if (previous != null && holders.get(i).releasedBySidecarOf(previous)) {
                found.add(previous);
            }
        }
        return found;
    }

    /** The operator's and the profile's pods whose containers restarted while recorded, with their most restarts. */
    private Map<String, Integer> restarted(PodTimeline pods) {
        Map<String, Integer> restarts = new java.util.TreeMap<>();
        for (PodTimeline.Change change : pods.changes()) {
            Pod pod = change.pod();
            if (componentOrOperator(pod) && restarts(pod) > 0) {
                restarts.merge(change.name(), restarts(pod), Math::max);
            }
        }
        return restarts;
    }

    private boolean componentOrOperator(Pod pod) {
        return WORKLOAD.equals(pod.getMetadata().getNamespace())
                && (pod.getMetadata().getName().startsWith(OPERATOR_POD_PREFIX)
                        || (pod.getMetadata().getLabels() != null
                                && PROFILE.equals(pod.getMetadata().getLabels().get(Labels.PROFILE))));
    }

    private static int restarts(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null
                ? 0
                : pod.getStatus().getContainerStatuses().stream()
                        .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
                        .sum();
    }

    /**
     * What happened to the components and the lease, in order, in ms since {@code startNanos}: each component pod's
     * first sight, Ready, eviction (deletion timestamp), container restarts and removal, and each lease holder.
     */
    private String timeline(LeaseTimeline lease, PodTimeline pods, long startNanos) {
        java.util.TreeMap<Long, List<String>> lines = new java.util.TreeMap<>();
        java.util.function.BiConsumer<Long, String> at = (nanos, line) -> lines.computeIfAbsent(
                        TimeUnit.NANOSECONDS.toMillis(nanos - startNanos), k -> new java.util.ArrayList<>())
                .add(line);
        lease.holders()
                .forEach(h -> at.accept(
                        h.nanos(),
                        "lease held by " + h.identity() + (h.releasedBy() == null ? "" : " (" + h.releasedBy() + ")")));
        Map<String, String> last = new java.util.HashMap<>();
        for (PodTimeline.Change change : pods.changes()) {
            Pod pod = change.pod();
            // The operator's own pods too: its hand-over cannot come while it is evicted by the same drain.
            if (!componentOrOperator(pod)) {
                continue;
            }
            String state = (change.action() == io.fabric8.kubernetes.client.Watcher.Action.DELETED
                            ? "removed"
                            : pod.getMetadata().getDeletionTimestamp() != null
                                    // when the kubelet reported kube-scheduler stopped: what the operator acts on
                                    ? SchedulerLeaseHandOver.schedulerStopped(pod)
                                            ? "evicted, kube-scheduler stopped"
                                            : "evicted"
                                    : change.ready() ? "Ready" : change.bound() ? "not ready" : "pending")
                    + " on " + pod.getSpec().getNodeName() + ", restarts " + restarts(pod);
            if (!state.equals(last.put(change.name(), state))) {
                at.accept(change.nanos(), change.name() + ": " + state);
            }
        }
        StringBuilder text = new StringBuilder();
        lines.forEach((ms, what) -> what.forEach(
                w -> text.append("  +").append(ms).append(" ").append(w).append('\n')));
        return text.toString();
    }

    /**
     * Why pods are not bound, read without the cluster: each unbound pod as the API server has it now (bound there but
     * not seen bound by the watch, or its PodScheduled condition), its events with their times and reporters, the lease
     * holder, and when the watch last delivered anything.
     */
    private String unbound(
            java.util.Set<String> created,
            java.util.Set<String> seenBound,
            LeaseTimeline lease,
            PodTimeline pods,
            long startNanos) {
        StringBuilder text = new StringBuilder();
        List<io.fabric8.kubernetes.api.model.Event> events =
                client.v1().events().inNamespace(namespace).list().getItems();
        created.stream().filter(name -> !seenBound.contains(name)).sorted().forEach(name -> {
            Pod pod = client.pods().inNamespace(namespace).withName(name).get();
            String now = pod == null
                    ? "gone"
                    : pod.getSpec().getNodeName() != null
                            ? "bound to " + pod.getSpec().getNodeName() + " (the watch did not deliver it)"
                            : pod.getStatus() == null || pod.getStatus().getConditions() == null
                                    ? "no conditions"
                                    : pod.getStatus().getConditions().stream()
                                            .map(c -> c.getType() + "=" + c.getStatus() + " " + c.getReason() + ": "
                                                    + c.getMessage())
                                            .toList()
                                            .toString();
            text.append("  ").append(name).append(": ").append(now).append('\n');
            events.stream()
                    .filter(e -> name.equals(e.getInvolvedObject().getName()))
                    .forEach(e -> text.append("    ")
                            .append(
                                    e.getLastTimestamp() != null
                                            ? e.getLastTimestamp()
                                            : e.getEventTime() == null
                                                    ? null
                                                    : e.getEventTime().getTime())
                            .append(" ")
                            .append(e.getReason())
                            .append(" by ")
                            .append(
                                    e.getReportingInstance() != null
                                            ? e.getReportingInstance()
                                            : e.getSource() == null
                                                    ? null
                                                    : e.getSource().getComponent())
                            .append(e.getCount() == null || e.getCount() < 2 ? "" : " x" + e.getCount())
                            .append(": ")
                            .append(e.getMessage())
                            .append('\n'));
        });
        var holder = client.leases()
                .inNamespace(WORKLOAD)
                .withName(names.schedulerLease())
                .get();
        List<PodTimeline.Change> changes = pods.changes();
        text.append("  lease now: ")
                .append(holder == null ? null : holder.getSpec())
                .append("\n  the pod watch's last change at +")
                .append(
                        changes.isEmpty()
                                ? "never"
                                : TimeUnit.NANOSECONDS.toMillis(
                                                changes.get(changes.size() - 1).nanos() - startNanos) + " ms, now +"
                                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms")
                .append('\n');
        return text.toString();
    }

    /** The first time the watch saw each pod of the test's namespace bound, in {@link System#nanoTime}. */
    private Map<String, Long> boundAt(PodTimeline pods) {
        Map<String, Long> at = new java.util.HashMap<>();
        for (PodTimeline.Change change : pods.changes()) {
            if (namespace.equals(change.pod().getMetadata().getNamespace()) && change.bound()) {
                at.putIfAbsent(change.name(), change.nanos());
            }
        }
        return at;
    }

    /** Whether the lease had passed from {@code holder} to another before {@code nanos}. */
    private static boolean heldBySomeoneElse(LeaseTimeline lease, LeaseTimeline.Holder holder, long nanos) {
        return lease.holders().stream()
                .anyMatch(h -> h.nanos() > holder.nanos()
                        && h.nanos() <= nanos
                        && !holder.identity().equals(h.identity()));
    }

    private List<Pod> readyPods(String component) {
        return OperatorTests.livePods(client, WORKLOAD, Labels.selector(PROFILE, component)).stream()
                .filter(Readiness::isPodReady)
                .toList();
    }

    private Map<String, Long> placement(String component) {
        return readyPods(component).stream()
                .collect(java.util.stream.Collectors.groupingBy(
                        p -> p.getSpec().getNodeName(), java.util.stream.Collectors.counting()));
    }

    private List<String> podsOn(String node, Predicate<Pod> filter) {
        return client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems().stream()
                .filter(filter)
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
                .toList();
    }
}
