package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.runtime.SchedulerLeaseWatch;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.ZonedDateTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator gives back the lease of a profile's kube-scheduler whose container the kubelet reported stopped, on a
 * real API server: the lease is released only when its holder's container is not running, and the update is refused
 * (and so nothing is written) once somebody else has taken the lease.
 */
@ExtendWith(ApiServerTier.class)
class LeaseHandOverTest {

    private static Pod schedulerPod(Tier tier, String profile, String name) {
        // No controller manager runs here to create the namespace's default ServiceAccount, which admission wants.
        tier.client()
                .serviceAccounts()
                .inNamespace(tier.namespace())
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("default")
                        .endMetadata()
                        .build())
                .serverSideApply();
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(tier.namespace())
                .withLabels(Labels.component(tier.name(profile), Labels.COMPONENT_SCHEDULER))
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName(Names.SCHEDULER_CONTAINER)
                .withImage("registry.k8s.io/kube-scheduler:v1.33.13")
                .endContainer()
                .endSpec()
                .build();
    }

    private static Lease lease(Tier tier, String profile, String holder) {
        ZonedDateTime now = ZonedDateTime.now();
        return new LeaseBuilder()
                .withNewMetadata()
                .withName(new Names(tier.name(profile), tier.namespace()).schedulerLease())
                .withNamespace(tier.namespace())
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(15)
                .withAcquireTime(now)
                .withRenewTime(now)
                .withLeaseTransitions(0)
                .endSpec()
                .build();
    }

    /** Sets the pod's kube-scheduler container state through the status subresource, as the kubelet does. */
    private static void containerState(KubernetesClient client, Pod pod, boolean running) {
        var state = running
                ? new ContainerStateBuilder().withNewRunning().endRunning().build()
                : new ContainerStateBuilder()
                        .withNewTerminated()
                        .withExitCode(0)
                        .withReason("Completed")
                        .endTerminated()
                        .build();
        Pod current = client.resource(pod).get();
        current.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                .withPhase(running ? "Running" : "Succeeded")
                .withContainerStatuses(new ContainerStatusBuilder()
                        .withName(Names.SCHEDULER_CONTAINER)
                        .withImage("registry.k8s.io/kube-scheduler:v1.33.13")
                        .withImageID("")
                        .withReady(running)
                        .withRestartCount(0)
                        .withState(state)
                        .build())
                .build());
        client.resource(current).updateStatus();
    }

    private static dev.schedulerops.operator.reconcile.ProfileEvents events(KubernetesClient client) {
        return new dev.schedulerops.operator.reconcile.ProfileEvents(client, "lease-hand-over-test");
    }

    private static String holder(KubernetesClient client, Lease lease) {
        return client.resource(lease).get().getSpec().getHolderIdentity();
    }

    @Test
    void aStoppedLeadersLeaseIsGivenBackAndARunningOnesIsNot(Tier tier) {
        KubernetesClient client = tier.client();
        Pod running = client.resource(schedulerPod(tier, "running", "running-scheduler-1"))
                .create();
        Pod leader = client.resource(schedulerPod(tier, "stopped", "stopped-scheduler-1"))
                .create();
        Lease runningLease = client.resource(lease(tier, "running", "running-scheduler-1_4f1b"))
                .create();
        Lease leaderLease = client.resource(lease(tier, "stopped", "stopped-scheduler-1_9a2c"))
                .create();
        containerState(client, running, true);
        containerState(client, leader, true);

        try (SchedulerLeaseWatch watch = new SchedulerLeaseWatch(client, tier.namespace(), events(client))) {
            watch.start();
            containerState(client, running, false);
            containerState(client, running, true); // it restarted: a new process, which the lease is not left to
            containerState(client, leader, false);

            Eventually.until("the stopped leader's lease is given back", () -> holder(client, leaderLease) == null);
            Lease released = client.resource(leaderLease).get();
            assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
            assertThat(watch.handOvers()).isGreaterThanOrEqualTo(2);
            // The watch handles events one at a time, in order: the running pod's were handled before the leader's.
            assertThat(holder(client, runningLease))
                    .as("released while its container was reported stopped, then left alone")
                    .isNull();
        } finally {
            delete(client, running, leader, runningLease, leaderLease);
        }
    }

    /** Removes what a test made, so that the next test's watch does not act on it. */
    private static void delete(KubernetesClient client, Object... objects) {
        for (Object object : objects) {
            client.resource((io.fabric8.kubernetes.api.model.HasMetadata) object)
                    .withGracePeriod(0)
                    .delete();
        }
    }

    @Test
    void aLeaseTheStandbyTookMeanwhileIsLeftAlone(Tier tier) {
        KubernetesClient client = tier.client();
        Pod leader = client.resource(schedulerPod(tier, "taken", "taken-scheduler-1"))
                .create();
        Lease lease =
                client.resource(lease(tier, "taken", "taken-scheduler-2_77aa")).create();
        Pod other = client.resource(schedulerPod(tier, "other", "other-scheduler-1"))
                .create();
        Lease otherLease =
                client.resource(lease(tier, "other", "other-scheduler-1_0b0b")).create();

        try (SchedulerLeaseWatch watch = new SchedulerLeaseWatch(client, tier.namespace(), events(client))) {
            watch.start();
            containerState(client, leader, false);
            containerState(client, other, false);
            Eventually.until(
                    "the other profile's stopped leader's lease is given back",
                    () -> holder(client, otherLease) == null);
        }
        assertThat(holder(client, lease)).as("held by the other replica").isEqualTo("taken-scheduler-2_77aa");
        delete(client, leader, lease, other, otherLease);
    }

    /**
     * Two operator replicas, the leader and a standby, both watch the scheduler pods and both see the leader's
     * container stop: the lease is given back once, and the other replica writes nothing (its update carries the
     * resource version it read and gets a 409, or it reads the lease already given back).
     */
    @Test
    void twoReplicasSeeingTheSameStoppedLeaderGiveItsLeaseBackOnce(Tier tier) {
        KubernetesClient client = tier.client();
        Pod leader = client.resource(schedulerPod(tier, "replicas", "replicas-scheduler-1"))
                .create();
        Lease lease = client.resource(lease(tier, "replicas", "replicas-scheduler-1_1234"))
                .create();
        containerState(client, leader, true);
        try (SchedulerLeaseWatch one = new SchedulerLeaseWatch(client, tier.namespace(), events(client));
                SchedulerLeaseWatch other = new SchedulerLeaseWatch(client, tier.namespace(), events(client))) {
            one.start();
            other.start();
            containerState(client, leader, false);
            Eventually.until("the stopped leader's lease is given back", () -> holder(client, lease) == null);
            Eventually.until(
                    "the replica that gave the lease back counted it", () -> one.handOvers() + other.handOvers() >= 1);
            // A second hand-over would have needed a lease held by the stopped pod again, and nobody took it.
            assertThat(one.handOvers() + other.handOvers())
                    .as("leases given back by the two replicas together")
                    .isEqualTo(1);
        } finally {
            delete(client, leader, lease);
        }
    }

    /**
     * The CI drain's case: the operator and the leading kube-scheduler share the drained node and are evicted together.
     * The operator, which led and stops first, keeps handing over while the scheduler pod is being stopped, and the
     * lease is given back once the kubelet reports the container stopped, though this operator no longer leads.
     */
    @Test
    void aStoppingOperatorHandsOverTheLeaseOfASchedulerEvictedWithIt(Tier tier) throws Exception {
        KubernetesClient client = tier.client();
        tier.createProfile("evicted", "labelKey: example.com/rank"); // the hand-over's Event goes on it
        // On a node, so that deleting it is graceful: it stays, with a deletion timestamp, until "the kubelet" is done.
        Pod leader = client.resource(new PodBuilder(schedulerPod(tier, "evicted", "evicted-scheduler-1"))
                        .editSpec()
                        .withNodeName("drained-node")
                        .endSpec()
                        .build())
                .create();
        Lease lease = client.resource(lease(tier, "evicted", "evicted-scheduler-1_c0de"))
                .create();
        containerState(client, leader, true);

        try (SchedulerLeaseWatch watch = new SchedulerLeaseWatch(client, tier.namespace(), events(client))) {
            watch.start();
            java.util.concurrent.CompletableFuture<Void> stopping =
                    java.util.concurrent.CompletableFuture.runAsync(() -> {
                        try {
                            watch.handOverWhileStopping(
                                    java.time.Duration.ofSeconds(3), java.time.Duration.ofSeconds(60));
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    });
            // The scheduler's eviction comes just after the operator's, and its container takes a while to stop.
            client.resource(leader).withGracePeriod(30).delete();
            Thread.sleep(2_500);
            assertThat(stopping)
                    .as("still handing over: a scheduler pod is being stopped")
                    .isNotDone();
            assertThat(holder(client, lease)).isEqualTo("evicted-scheduler-1_c0de");

            containerState(client, leader, false);
            stopping.get(45, TimeUnit.SECONDS);
            assertThat(holder(client, lease))
                    .as("given back by the stopping operator before it finished stopping")
                    .isNull();
            assertThat(watch.handOvers()).isEqualTo(1);
            Eventually.until(
                    "an Event on the profile says who gave the lease back", () -> tier.events("evicted").stream()
                            .anyMatch(e -> SchedulerLeaseWatch.REASON_RELEASED.equals(e.getReason())
                                    && "lease-hand-over-test".equals(e.getReportingInstance())
                                    && e.getMessage().contains("evicted-scheduler-1")));
        } finally {
            client.resource(leader).withGracePeriod(0).delete();
            client.resource(lease).delete();
        }
    }
}
