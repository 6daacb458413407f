package dev.schedulerops.operator.runtime;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.reconcile.LeanItemStore;
import dev.schedulerops.operator.reconcile.OwnedInformers;
import dev.schedulerops.operator.reconcile.ProfileEvents;
import dev.schedulerops.operator.reconcile.SchedulerLeaseHandOver;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the profiles' scheduler pods and gives back the lease of a kube-scheduler whose container has stopped
 * ({@link SchedulerLeaseHandOver}): a drain that evicts the leading scheduler then hands over at the standby's next
 * retry, whether or not the stopping scheduler's own release reached the API server. Runs in every operator replica,
 * leading or not: a drain may evict the leading operator together with the leading kube-scheduler, and a standby
 * replica on another node, its caches warm, then hands over at once. Every replica may act because the decision rests
 * only on what the kubelet reported and the update carries the resource version read: when two replicas see the same
 * stopped scheduler, one write wins and the other gets a 409 (or finds the lease already given back). Uses only the
 * rights the operator has anyway: list and watch of pods and get and update of leases in the workload namespace.
 */
public final class SchedulerLeaseWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLeaseWatch.class);
    /** The reason of the Event on the profile each hand-over records (its reporting instance is this operator pod). */
    public static final String REASON_RELEASED = "SchedulerLeaseReleased";

    private final KubernetesClient client;
    private final String namespace;
    private final ProfileEvents events;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "scheduler-lease-hand-over");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicLong handOvers = new AtomicLong();
    private SharedIndexInformer<Pod> informer;

    public SchedulerLeaseWatch(KubernetesClient client, String namespace, ProfileEvents events) {
        this.client = client;
        this.namespace = namespace;
        this.events = events;
    }

    public void start() {
        informer = client.pods()
                .inNamespace(namespace)
                .withLabel(Labels.COMPONENT, Labels.COMPONENT_SCHEDULER)
                .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                .withLimit(OwnedInformers.LIST_PAGE_SIZE)
                .runnableInformer(0)
                .itemStore(new LeanItemStore<>())
                .addEventHandler(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Pod pod) {
                        consider(pod);
                    }

                    @Override
                    public void onUpdate(Pod oldPod, Pod newPod) {
                        consider(newPod);
                    }

                    @Override
                    public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                        // A pod that is gone says nothing the kubelet confirmed: the lease runs out instead.
                    }
                })
                .run();
    }

    private void consider(Pod pod) {
        if (SchedulerLeaseHandOver.schedulerStopped(pod)) {
            try {
                worker.execute(() -> handOver(pod));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // stopped (handOverWhileStopping is over): the informer is about to stop too
            }
        }
    }

    private void handOver(Pod pod) {
        Optional<String> leaseName = SchedulerLeaseHandOver.leaseOf(pod);
        if (leaseName.isEmpty()) {
            return;
        }
        try {
            Lease lease = client.leases()
                    .inNamespace(namespace)
                    .withName(leaseName.get())
                    .get();
            Optional<Lease> released = SchedulerLeaseHandOver.released(lease, pod, ZonedDateTime.now());
            if (released.isEmpty()) {
                return;
            }
            client.leases().inNamespace(namespace).resource(released.get()).update();
            handOvers.incrementAndGet();
            String message = "gave back lease " + namespace + "/" + leaseName.get() + " of scheduler pod "
                    + pod.getMetadata().getName() + ", whose kube-scheduler has stopped (held by "
                    + lease.getSpec().getHolderIdentity() + "): the standby takes over at its next retry";
            SchedulerProfile profile = client.resources(SchedulerProfile.class)
                    .withName(pod.getMetadata().getLabels().get(Labels.PROFILE))
                    .get();
            if (profile != null) {
                events.normal(profile, REASON_RELEASED, message); // logs it too
            } else {
                LOG.info(message);
            }
        } catch (KubernetesClientException e) {
            // 409: someone (the standby taking over, the scheduler's own release) wrote the lease since the read.
            if (e.getCode() != 409) {
                LOG.warn("could not release lease {}/{}: {}", namespace, leaseName.get(), e.getMessage());
            }
        }
    }

    /** How long a stopping replica waits at most for hand-overs under way. */
    public static final Duration WORKER_STOPS_WITHIN = Duration.ofSeconds(5);

    /**
     * Keeps handing over for a while after this operator replica began to stop. A drain evicts every pod of a node at
     * about the same time: with the operator on the same node as a profile's leading kube-scheduler (and no other
     * replica on another node), the operator's replacement starts only after that scheduler pod is long gone, so the
     * hand-over must come from the stopping operator or not at all (in CI the two were evicted 0.7 s apart, and the
     * lease ran out instead). Another replica may hand over too: the update carries the resource version it read, so
     * one write wins and the other gets a 409, which is ignored. Blocks for at least {@code min}, then while a
     * scheduler pod is being stopped, at most {@code max}; then waits for hand-overs under way.
     */
    public void handOverWhileStopping(Duration min, Duration max) throws InterruptedException {
        if (informer == null) {
            return;
        }
        long start = System.nanoTime();
        while (SchedulerLeaseHandOver.keepHandingOverWhileStopping(
                Duration.ofNanos(System.nanoTime() - start),
                min,
                max,
                informer.getStore().list().stream().anyMatch(SchedulerLeaseHandOver::beingStopped))) {
            Thread.sleep(100);
        }
        worker.shutdown();
        worker.awaitTermination(WORKER_STOPS_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Leases given back on behalf of a stopped scheduler. */
    public long handOvers() {
        return handOvers.get();
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.stop();
        }
        worker.shutdownNow();
    }
}
