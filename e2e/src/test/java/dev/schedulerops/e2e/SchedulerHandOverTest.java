package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.ApiServerMetrics;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.validation.GoDuration;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import io.fabric8.kubernetes.client.readiness.Readiness;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * The scheduler's leader dies while pods arrive: a profile with 2 kube-scheduler replicas (leader election on its
 * own lease, the defaults 15s / 10s / 500ms) runs as real containers on the real node, and the leader's process is
 * frozen (SIGSTOP from the host, so it releases nothing and renews nothing) while a pod is created every half second;
 * once the standby holds the lease the frozen process is killed. A plain SIGKILL is not enough to prove the standby
 * takes over: the kubelet restarts the killed container within a second or two, and the restarted process competes
 * for the expired lease with the standby and wins about as often (CI saw it). "Bound exactly once" is read from the
 * API server's own request counter: every pod bound, and no binding refused as a conflict. Then the operator, scaled
 * to 2 replicas (leader election is on in deploy/): its leader killed as a profile changes, and either the standby or
 * the restarted container may take over.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SchedulerHandOverTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String PROFILE = "handover";
    static final String LABEL = "handover.example.com/rank";
    static final Duration ROLLOUT = Duration.ofMinutes(3);
    static final Duration LEASE_DURATION = goDuration(Defaults.LEASE_DURATION);
    static final Duration RETRY_PERIOD = goDuration(Defaults.RETRY_PERIOD);
    static final int PODS = 60;
    /**
     * The leader renews every retryPeriod and dies after its last renewal. A candidate reads the lease every
     * retryPeriod plus up to 1.2 times it of jitter (client-go's JitterFactor), and counts leaseDuration from the moment
     * it saw the last renewal, up to one such interval after it was written; then it takes the lease at its next read,
     * up to one more interval later (each wait starts when the previous try has finished): leaseDuration + 2 x 2.2
     * retryPeriods from the last renewal. Measured from just before the freeze (renewals may still land while the
     * process is looked up and stopped) to the standby's acquireTime, with a second of room for that and for each
     * try's own request.
     */
    static final Duration HAND_OVER_BOUND =
            LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(44).dividedBy(10)).plusSeconds(1);
    /** The same for the operator's lease, which is JOSDK's defaults (OperatorRuntime). */
    static final Duration OPERATOR_HAND_OVER_BOUND = LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE.plus(
            LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE.multipliedBy(4));

    static final String OPERATOR_LEASE = "schedulerops-operator";

    private final Names names = new Names(PROFILE, WORKLOAD);
    private Cluster cluster;
    private KubernetesClient client;
    private String kwokNode;
    private String namespace;

    static void say(String line) {
        System.out.println("[hand-over] " + line);
        System.out.flush();
    }

    @BeforeAll
    void installTheProductAndAProfileWithTwoSchedulers(Cluster cluster) {
        this.cluster = cluster;
        client = cluster.client();
        kwokNode = OperatorTests.installTheProductOnTheRealNode(cluster, "hand-over", LABEL, ROLLOUT);
        client.resource(OperatorTests.profile(
                        "hand-over",
                        PROFILE,
                        """
                        labelKey: %s
                        extender: {replicas: 1}
                        scheduler: {replicas: 2}
                        """
                                .formatted(LABEL)))
                .create();
        OperatorTests.awaitCurrent(client, PROFILE, ROLLOUT);
        Await.until(
                ROLLOUT,
                "both scheduler pods are Ready",
                () -> schedulerPods().stream().filter(Readiness::isPodReady).count() == 2);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "hand-over");
    }

    @AfterAll
    void removeTheProduct() {
        if (client != null) {
            OperatorTests.removeTheProductFromTheRealNode(
                    cluster, namespace, LABEL, java.util.Arrays.asList(kwokNode), ROLLOUT, PROFILE);
        }
    }

    @Test
    @Order(1)
    void theStandbyTakesTheLeaseAndEveryPodIsBoundExactlyOnce() throws Exception {
        String holder = Await.value(Duration.ofSeconds(60), "a scheduler holds the lease", this::holder);
        Pod leader = schedulerPods().stream()
                .filter(p -> holder.startsWith(p.getMetadata().getName() + "_"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no scheduler pod holds " + holder));
        Pod standby = schedulerPods().stream()
                .filter(p -> !p.equals(leader))
                .findFirst()
                .orElseThrow();

        Map<String, Long> bindingsBefore = ApiServerMetrics.bindingRequests(cluster);
        String leaderContainer =
                leader.getStatus().getContainerStatuses().get(0).getContainerID();
        List<Pod> pods = new ArrayList<>();
        Instant frozen = null;
        Instant handedOver = null;
        Instant createdAll;
        String newHolder = null;
        boolean killed = false;
        try {
            for (int i = 0; i < PODS; i++) {
                pods.add(client.resource(RestrictedPods.forScheduler(namespace, "pod-" + i, PROFILE))
                        .create());
                if (i == 10) {
                    // Taken before the freeze (which first looks the process up): the time without a leader is
                    // counted from a moment the leader was certainly still running, never underestimated.
                    frozen = Instant.now();
                    RealNode.freezeContainer(leaderContainer);
                }
                if (frozen != null && handedOver == null) {
                    String current = holder();
                    if (current != null && !current.equals(holder)) {
                        handedOver = Instant.now();
                        newHolder = current;
                        RealNode.killContainer(leaderContainer);
                        killed = true;
                    }
                }
                Thread.sleep(500);
            }
            createdAll = Instant.now();
            if (handedOver == null) {
                newHolder = Await.value(LEASE_DURATION.multipliedBy(3), "another scheduler takes the lease", () -> {
                    String current = holder();
                    return current != null && !current.equals(holder) ? current : null;
                });
                handedOver = Instant.now();
            }
        } finally {
            if (frozen != null && !killed) {
                RealNode.killContainer(leaderContainer);
            }
        }
        // When the standby took the lease by its own record (acquireTime), not when this loop happened to look: on a
        // busy machine a pod's creation can delay the look by a second or more.
        Duration withoutLeader =
                Duration.between(frozen, acquired(names.schedulerLease()).orElse(handedOver));

        for (Pod pod : pods) {
            Await.until(
                    Duration.ofMinutes(2),
                    "pod " + pod.getMetadata().getName() + " is bound",
                    () -> client.pods()
                                    .inNamespace(namespace)
                                    .withName(pod.getMetadata().getName())
                                    .get()
                                    .getSpec()
                                    .getNodeName()
                            != null);
        }
        Duration lastBound = Duration.between(createdAll, Instant.now());
        Map<String, Long> scheduled = events("Scheduled");
        Map<String, Long> failed = events("FailedScheduling");

        assertThat(newHolder)
                .as("the standby %s took the lease", standby.getMetadata().getName())
                .startsWith(standby.getMetadata().getName() + "_");
        assertThat(withoutLeader)
                .as("the hand-over happens within the lease settings")
                .isLessThanOrEqualTo(HAND_OVER_BOUND);
        for (Pod pod : pods) {
            assertThat(client.pods()
                            .inNamespace(namespace)
                            .withName(pod.getMetadata().getName())
                            .get()
                            .getSpec()
                            .getNodeName())
                    .as("pod %s", pod.getMetadata().getName())
                    .isEqualTo(kwokNode);
            assertThat(scheduled.getOrDefault(pod.getMetadata().getName(), 0L))
                    .as("Scheduled events of pod %s", pod.getMetadata().getName())
                    .isLessThanOrEqualTo(1L);
        }
        // The API server refuses a second binding of a pod with 409 Conflict: none was even tried. (An event is no
        // proof of a binding: a leader frozen just after binding a pod never sends its Scheduled event.)
        ApiServerMetrics.Bindings bindings = ApiServerMetrics.Bindings.of(
                ApiServerMetrics.difference(ApiServerMetrics.bindingRequests(cluster), bindingsBefore));
        assertThat(bindings.conflicts())
                .as("binding requests refused as conflicts: %s", bindings.byCode())
                .isZero();
        assertThat(bindings.other())
                .as("binding requests answered 1xx, 3xx or 4xx but 409: %s", bindings.byCode())
                .isZero();
        assertThat(bindings.serverErrors())
                .as("binding requests the API server failed (5xx; kube-scheduler retries them): %s", bindings.byCode())
                .isLessThanOrEqualTo(bindings.serverErrorBound());
        assertThat(bindings.made()).as("bindings made (%s)", bindings.byCode()).isGreaterThanOrEqualTo(PODS);
        assertThat(failed)
                .as("no pod failed a binding (a second scheduler would be refused)")
                .isEmpty();
        long withoutEvent = pods.stream()
                .filter(p -> !scheduled.containsKey(p.getMetadata().getName()))
                .count();
        say("Froze the leader " + leader.getMetadata().getName() + "'s process while " + PODS
                + " pods arrived (one every 500 ms): the standby "
                + standby.getMetadata().getName()
                + " took the lease " + withoutLeader.toMillis() + " ms later (leaseDuration " + Defaults.LEASE_DURATION
                + ", retryPeriod " + Defaults.RETRY_PERIOD + "); all " + PODS + " pods were bound to " + kwokNode
                + ", the last " + lastBound.toMillis() + " ms after the last was created; binding requests"
                + " meanwhile by status " + bindings.byCode() + ", no FailedScheduling, " + withoutEvent
                + " pod(s) bound without a Scheduled event (a leader frozen just after a binding never sends it).");
    }

    @Test
    @Order(2)
    void theOperatorsStandbyTakesOverAndReconcilesTheNextChange() {
        cluster.kubectl("-n", WORKLOAD, "scale", "deployment/" + InClusterTest.OPERATOR, "--replicas=2")
                .requireSuccess("kubectl scale the operator to 2 replicas");
        Await.until(
                ROLLOUT,
                "both operator pods are Ready",
                () -> operatorPods().stream().filter(Readiness::isPodReady).count() == 2);
        String holder =
                Await.value(Duration.ofSeconds(60), "an operator holds its lease", () -> holder(OPERATOR_LEASE));
        Pod leader = operatorPods().stream()
                .filter(p -> holder.startsWith(p.getMetadata().getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no operator pod holds " + holder));
        Pod standby = operatorPods().stream()
                .filter(p -> !p.equals(leader))
                .findFirst()
                .orElseThrow();

        RealNode.killContainer(leader.getStatus().getContainerStatuses().get(0).getContainerID());
        Instant killed = Instant.now();
        cluster.kubectl("patch", "schedulerprofile", PROFILE, "--type=merge", "-p", "{\"spec\":{\"weight\":7}}")
                .requireSuccess("kubectl patch schedulerprofile " + PROFILE);
        long generation = profile().getMetadata().getGeneration();
        String newHolder = Await.value(LEASE_DURATION.multipliedBy(3), "another operator takes the lease", () -> {
            String current = holder(OPERATOR_LEASE);
            return current != null && !current.equals(holder) ? current : null;
        });
        Duration withoutLeader = Duration.between(killed, Instant.now());
        Await.until(ROLLOUT, "the new leader reconciles generation " + generation, () -> {
            SchedulerProfile profile = profile();
            return OperatorTests.isCurrent(profile) && profile.getStatus().getObservedGeneration() == generation;
        });
        Duration reconciled = Duration.between(killed, Instant.now());

        // fabric8's elector (the operator's) reads a lease as expired from the renew time in it, not from when this
        // candidate last saw it change (client-go's way): the killed pod's restarted container competes on equal terms
        // with the standby, and either may win. Both are a new process with a new identity.
        String winner = newHolder.startsWith(standby.getMetadata().getName())
                ? "the standby " + standby.getMetadata().getName()
                : "the restarted container of " + leader.getMetadata().getName();
        assertThat(newHolder)
                .as("a new operator process holds the lease")
                .isNotEqualTo(holder)
                .matches(h -> operatorPods().stream()
                        .anyMatch(p -> h.startsWith(p.getMetadata().getName() + "-")));
        assertThat(withoutLeader)
                .as("the hand-over happens within the lease settings")
                .isLessThanOrEqualTo(OPERATOR_HAND_OVER_BOUND);
        say("Killed the leading operator " + leader.getMetadata().getName() + "'s container and changed the"
                + " profile's weight at once: " + winner + " took the lease " + withoutLeader.toMillis()
                + " ms later and the profile was Ready at its new generation " + reconciled.toMillis()
                + " ms after the kill.");
    }

    /**
     * The leader's pod is deleted with this grace period while its kube-scheduler is frozen: a process that cannot give
     * its lease back (its own release failed, as one SIGTERM in 30 does at the default retryPeriod), killed by the
     * kubelet when the grace period is over (2 s is the kubelet's minimum).
     */
    static final long GRACE_SECONDS = 2;
    /**
     * From the kubelet's SIGKILL of that kube-scheduler to the standby holding the lease: the sidecar's SIGTERM comes
     * once the container has stopped, its release takes one read and one write, and the standby takes the lease at its
     * next try (retryPeriod 500ms plus up to 1.2 times it of jitter, so at most 1.1 s). Issue 44's bound.
     */
    static final Duration SIDECAR_HAND_OVER_BOUND = Duration.ofSeconds(3);

    @Test
    @Order(3)
    void aLeaderThatCannotGiveItsLeaseBackHasItGivenBackByItsPodsSidecarOnceItIsKilled() {
        // The last test's weight change rolled the scheduler pods: wait until both new ones run and one of them leads.
        Await.until(
                ROLLOUT,
                "both scheduler pods are Ready",
                () -> schedulerPods().stream().filter(Readiness::isPodReady).count() == 2);
        Map.Entry<String, Pod> led = Await.value(ROLLOUT, "a Ready scheduler pod's process holds the lease", () -> {
            String current = holder();
            return current == null
                    ? null
                    : schedulerPods().stream()
                            .filter(p -> Readiness.isPodReady(p)
                                    && current.startsWith(p.getMetadata().getName() + "_"))
                            .findFirst()
                            .map(p -> Map.entry(current, p))
                            .orElse(null);
        });
        String holder = led.getKey();
        Pod leader = led.getValue();
        String sidecar = leader.getStatus().getInitContainerStatuses().stream()
                .filter(c -> Names.RELEASE_LEASE_CONTAINER.equals(c.getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + Names.RELEASE_LEASE_CONTAINER + " in " + leader))
                .getContainerID();
        long sidecarPeakBytes = RealNode.inspect(sidecar).peakMemoryBytes();

        // Every operator replica gives the lease back too, once the kubelet reports the container stopped, and here (a
        // frozen process killed as the grace period ends, when the kubelet also signals the sidecar) it can be first.
        // With no operator running, as when a drain evicts the only operator replica with the leading scheduler, only
        // the sidecar can give the lease back within the bound.
        scaleTheOperator(0);
        Await.until(ROLLOUT, "no operator pod is left", () -> client.pods()
                .inNamespace(WORKLOAD)
                .withLabels(Map.of("app.kubernetes.io/name", InClusterTest.OPERATOR))
                .list()
                .getItems()
                .isEmpty());
        ByteArrayOutputStream sidecarLog = new ByteArrayOutputStream();
        Instant deleted;
        String newHolder;
        try (LogWatch following = client.pods()
                .inNamespace(WORKLOAD)
                .withName(leader.getMetadata().getName())
                .inContainer(Names.RELEASE_LEASE_CONTAINER)
                .watchLog(sidecarLog)) {
            RealNode.freezeContainer(
                    leader.getStatus().getContainerStatuses().get(0).getContainerID());
            deleted = Instant.now();
            client.pods()
                    .inNamespace(WORKLOAD)
                    .withName(leader.getMetadata().getName())
                    .withGracePeriod(GRACE_SECONDS)
                    .delete();
            newHolder = Await.value(LEASE_DURATION.multipliedBy(2), "another scheduler takes the lease", () -> {
                String current = holder();
                return current != null && !current.equals(holder) ? current : null;
            });
            // The sidecar's last line, once its log stream has caught up.
            Await.within(
                    Duration.ofSeconds(10),
                    () -> sidecarLog.toString(StandardCharsets.UTF_8).contains("lease not held")
                            || sidecarLog.toString(StandardCharsets.UTF_8).contains("gave back")
                            || sidecarLog.toString(StandardCharsets.UTF_8).contains("could not"));
        } finally {
            scaleTheOperator(2);
        }
        String sidecarSaid = sidecarLog.toString(StandardCharsets.UTF_8).strip();
        Lease lease = client.leases()
                .inNamespace(WORKLOAD)
                .withName(names.schedulerLease())
                .get();
        Instant acquired = lease.getSpec().getAcquireTime().toInstant();
        Duration afterTheKill = Duration.between(deleted.plusSeconds(GRACE_SECONDS), acquired);

        assertThat(lease.getMetadata().getAnnotations())
                .as(
                        "who gave the lease back (the operator's release says 'operator for'); the sidecar's log:%n%s",
                        sidecarSaid)
                .containsEntry(Labels.LEASE_RELEASED_BY, "release-lease for " + holder);
        assertThat(newHolder)
                .as("the standby took it")
                .doesNotStartWith(leader.getMetadata().getName() + "_");
        assertThat(afterTheKill)
                .as(
                        "from the kubelet's SIGKILL of the frozen leader (grace %d s after the deletion) to the standby's"
                                + " acquireTime; the sidecar's log:%n%s",
                        GRACE_SECONDS, sidecarSaid)
                .isLessThanOrEqualTo(SIDECAR_HAND_OVER_BOUND);
        say("Froze the leading kube-scheduler " + leader.getMetadata().getName() + " and deleted its pod with a "
                + GRACE_SECONDS + " s grace period: its release-lease sidecar gave the lease back and " + newHolder
                + " took it " + Duration.between(deleted, acquired).toMillis() + " ms after the deletion, "
                + afterTheKill.toMillis() + " ms after the grace period ran out (bound "
                + SIDECAR_HAND_OVER_BOUND.toMillis() + " ms); the sidecar's peak memory until then "
                + sidecarPeakBytes / (1024 * 1024) + " MiB (its cgroup's). Its log:\n" + sidecarSaid);
        Await.until(
                ROLLOUT,
                "both scheduler pods and both operator pods are Ready again",
                () -> schedulerPods().stream().filter(Readiness::isPodReady).count() == 2
                        && operatorPods().stream().filter(Readiness::isPodReady).count() == 2);
    }

    private void scaleTheOperator(int replicas) {
        cluster.kubectl("-n", WORKLOAD, "scale", "deployment/" + InClusterTest.OPERATOR, "--replicas=" + replicas)
                .requireSuccess("kubectl scale the operator to " + replicas + " replicas");
    }

    private SchedulerProfile profile() {
        return client.resources(SchedulerProfile.class).withName(PROFILE).get();
    }

    private List<Pod> operatorPods() {
        return OperatorTests.livePods(client, WORKLOAD, Map.of("app.kubernetes.io/name", InClusterTest.OPERATOR));
    }

    private String holder() {
        return holder(names.schedulerLease());
    }

    private java.util.Optional<Instant> acquired(String leaseName) {
        Lease lease = client.leases().inNamespace(WORKLOAD).withName(leaseName).get();
        return lease == null || lease.getSpec() == null || lease.getSpec().getAcquireTime() == null
                ? java.util.Optional.empty()
                : java.util.Optional.of(lease.getSpec().getAcquireTime().toInstant());
    }

    private String holder(String leaseName) {
        Lease lease = client.leases().inNamespace(WORKLOAD).withName(leaseName).get();
        return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }

    private List<Pod> schedulerPods() {
        return OperatorTests.livePods(client, WORKLOAD, Labels.selector(PROFILE, Labels.COMPONENT_SCHEDULER));
    }

    /** Events of {@code reason} in the test namespace, counted per pod (an event's count included). */
    private Map<String, Long> events(String reason) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> reason.equals(e.getReason()))
                .collect(Collectors.groupingBy(
                        e -> e.getInvolvedObject().getName(), Collectors.summingLong(SchedulerHandOverTest::count)));
    }

    private static long count(Event event) {
        return event.getCount() == null ? 1 : event.getCount();
    }

    private static Duration goDuration(String text) {
        return Duration.ofNanos(GoDuration.parseNanos(text).orElseThrow());
    }
}
