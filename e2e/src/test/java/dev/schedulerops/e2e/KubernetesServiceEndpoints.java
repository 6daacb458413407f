package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The ready addresses of the {@code kubernetes} Service (its EndpointSlices in {@code default}), which the API server
 * writes itself, as a control-plane upgrade changes them. Every in-cluster client, the operator included, reaches the
 * API server only through that Service: the first failed control-plane upgrade (2026-11-26) read as the Service left
 * without an endpoint under the new API server, which nothing recorded then.
 */
final class KubernetesServiceEndpoints {
    private record Change(Instant at, List<String> addresses) {}

    private final KubernetesClient client;
    private final Instant start = Instant.now();
    private final List<Change> changes = new ArrayList<>();
    private int unreadable;

    KubernetesServiceEndpoints(KubernetesClient client) {
        this.client = client;
    }

    /** Reads the addresses once and records them if they changed; an API server that does not answer is counted. */
    synchronized void sample() {
        List<String> now;
        try {
            now = current();
        } catch (RuntimeException e) {
            unreadable++;
            return;
        }
        if (changes.isEmpty() || !changes.get(changes.size() - 1).addresses().equals(now)) {
            changes.add(new Change(Instant.now(), now));
        }
    }

    /** Fails unless the Service has a ready address within {@code limit} of {@code back}, when the API server answered. */
    void awaitAnAddressSince(Instant back, Duration limit) {
        Duration left = limit.minus(Duration.between(back, Instant.now()));
        boolean found = Await.within(left.isNegative() ? Duration.ZERO : left, () -> {
            try {
                return !current().isEmpty();
            } catch (RuntimeException e) {
                return false;
            }
        });
        sample();
        assertThat(found)
                .as(
                        "the kubernetes Service has a ready endpoint within %s of the new API server answering (in-cluster"
                                + " clients reach it only through that Service); seen: %s",
                        limit, this)
                .isTrue();
    }

    private List<String> current() {
        TreeSet<String> addresses = new TreeSet<>();
        for (EndpointSlice slice : client.discovery()
                .v1()
                .endpointSlices()
                .inNamespace("default")
                .withLabel("kubernetes.io/service-name", "kubernetes")
                .list()
                .getItems()) {
            for (Endpoint endpoint : Objects.requireNonNullElse(slice.getEndpoints(), List.<Endpoint>of())) {
                if (endpoint.getConditions() == null
                        || !Boolean.FALSE.equals(endpoint.getConditions().getReady())) {
                    addresses.addAll(endpoint.getAddresses());
                }
            }
        }
        return List.copyOf(addresses);
    }

    @Override
    public synchronized String toString() {
        StringBuilder text = new StringBuilder();
        for (Change change : changes) {
            text.append(text.isEmpty() ? "" : ", then ")
                    .append(change.addresses())
                    .append(" at +")
                    .append(Duration.between(start, change.at()).toMillis())
                    .append(" ms");
        }
        // The client retries a refused connection, so a read made while the API server is away mostly returns once
        // it is back rather than failing.
        return text.append(" (").append(unreadable).append(" reads failed)").toString();
    }
}
