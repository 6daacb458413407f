package dev.schedulerops.e2e.support;

import dev.schedulerops.operator.model.Labels;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every holder a Lease had, in order, with when the watch here saw the change ({@link System#nanoTime}): who led a
 * profile's schedulers when, and how long nobody did.
 */
public final class LeaseTimeline implements AutoCloseable {
    /**
     * A new holder (null: released, nobody) as first seen; for a release, the lease's {@link Labels#LEASE_RELEASED_BY}
     * then (who gave it back for whom, when the operator or the scheduler pod's sidecar did; kube-scheduler's own
     * release leaves an older value).
     */
    public record Holder(String identity, long nanos, String releasedBy) {
        /** Whether this release was written by the sidecar of {@code previous}'s pod. */
        public boolean releasedBySidecarOf(String previous) {
            return identity == null && ("release-lease for " + previous).equals(releasedBy);
        }
    }

    private final List<Holder> holders = new ArrayList<>();
    private final Watch watch;

    public LeaseTimeline(KubernetesClient client, String namespace, String name) {
        watch = client.leases().inNamespace(namespace).withName(name).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Lease lease) {
                String identity = action == Action.DELETED || lease.getSpec() == null
                        ? null
                        : lease.getSpec().getHolderIdentity();
                if (identity != null && identity.isEmpty()) {
                    identity = null;
                }
                synchronized (holders) {
                    if (holders.isEmpty()
                            || !Objects.equals(holders.get(holders.size() - 1).identity(), identity)) {
                        String releasedBy =
                                identity != null || lease.getMetadata().getAnnotations() == null
                                        ? null
                                        : lease.getMetadata().getAnnotations().get(Labels.LEASE_RELEASED_BY);
                        holders.add(new Holder(identity, System.nanoTime(), releasedBy));
                    }
                }
            }

            @Override
            public void onClose(WatcherException cause) {}
        });
    }

    public List<Holder> holders() {
        synchronized (holders) {
            return List.copyOf(holders);
        }
    }

    /** The first time after {@code nanos} that the lease had a holder other than {@code identity}, or -1. */
    public long nextHolderAfter(String identity, long nanos) {
        for (Holder holder : holders()) {
            if (holder.nanos() >= nanos
                    && holder.identity() != null
                    && !holder.identity().equals(identity)) {
                return holder.nanos();
            }
        }
        return -1;
    }

    @Override
    public void close() {
        watch.close();
    }
}
