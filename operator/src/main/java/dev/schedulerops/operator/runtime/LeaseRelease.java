package dev.schedulerops.operator.runtime;

import dev.schedulerops.operator.reconcile.SchedulerLeaseHandOver;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.ZonedDateTime;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the leader lease back when the operator stops, as client-go's {@code ReleaseOnCancel} does: JOSDK 5 builds
 * its elector with release off, so an upgrade or a drain used to leave the operator without a leader for the whole
 * lease duration after the old pod stopped. Only a lease this instance still holds is released, and only after the
 * operator has stopped reconciling (and none of its reconciles is still running); the update carries the read
 * resource version, so a lease another instance has taken meanwhile is left alone.
 */
final class LeaseRelease {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseRelease.class);

    private LeaseRelease() {}

    /**
     * The lease as client-go writes a released one (no holder, a 1 s duration, the transition count kept), or empty
     * when {@code identity} does not hold it.
     */
    static Optional<Lease> released(Lease lease, String identity, ZonedDateTime now) {
        if (lease == null
                || lease.getSpec() == null
                || !identity.equals(lease.getSpec().getHolderIdentity())) {
            return Optional.empty();
        }
        return Optional.of(SchedulerLeaseHandOver.releasedCopy(lease, now, "operator on stop: " + identity));
    }

    /** Tries a few times when another write to the lease came between the read and the update (HTTP 409). */
    static final int ATTEMPTS = 3;

    /** @return whether the lease was released */
    static boolean release(KubernetesClient client, String namespace, String name, String identity) {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                Lease lease =
                        client.leases().inNamespace(namespace).withName(name).get();
                Optional<Lease> released = released(lease, identity, ZonedDateTime.now());
                if (released.isEmpty()) {
                    LOG.info(
                            "leader lease {}/{} not held by this instance ({}): nothing to release",
                            namespace,
                            name,
                            lease == null || lease.getSpec() == null
                                    ? "no lease"
                                    : "held by " + lease.getSpec().getHolderIdentity());
                    return false;
                }
                client.leases().inNamespace(namespace).resource(released.get()).update();
                LOG.info("released the leader lease {}/{}", namespace, name);
                return true;
            } catch (RuntimeException e) {
                boolean conflict =
                        e instanceof KubernetesClientException k && k.getCode() == HttpURLConnection.HTTP_CONFLICT;
                if (!conflict || attempt == ATTEMPTS) {
                    // Then the standby waits out the lease duration, as before.
                    LOG.warn("could not release the leader lease {}/{}: {}", namespace, name, e.getMessage());
                    return false;
                }
                LOG.info("leader lease {}/{} changed while being released: reading it again", namespace, name);
            }
        }
        return false;
    }
}
