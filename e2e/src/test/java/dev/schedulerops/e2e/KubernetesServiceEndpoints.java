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
    private final List<Change> changes = new ArrayList<>();
    private int unreadable;
    private Instant stopped;
    private Instant back;

    KubernetesServiceEndpoints(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Reads the addresses once and records them, with the moment the read returned, if they changed; a read that
     * fails is counted. The client retries a refused connection, so a read made while the API server is away mostly
     * returns once it is back (and is read from the new API server, possibly before it reports ready).
     */
    void sample() {
        List<String> now;
        try {
            now = current();
        } catch (RuntimeException e) {
            synchronized (this) {
                unreadable++;
            }
            return;
        }
        Instant at = Instant.now();
        synchronized (this) {
            if (changes.isEmpty()
                    || !changes.get(changes.size() - 1).addresses().equals(now)) {
                changes.add(new Change(at, now));
            }
        }
    }

    /**
     * Fails unless the Service has a ready address within {@code limit} of {@code back}, when the new API server
     * reported ready; {@code stopped} is when the old one was stopped (both for the account).
     */
    void awaitAnAddressSince(Instant stopped, Instant back, Duration limit) {
        synchronized (this) {
            this.stopped = stopped;
            this.back = back;
        }
        boolean found = Await.within(limit.minus(Duration.between(back, Instant.now())), () -> !current()
                .isEmpty());
        sample();
        assertThat(found)
                .as(
                        "the kubernetes Service has a ready endpoint within %s of the new API server answering (in-cluster"
                                + " clients reach it only through that Service); seen: %s",
                        limit, this)
                .isTrue();
    }

    /**
     * Fails if, after the new API server reported ready, the Service was seen without an address for longer than
     * {@code limit} at a stretch (a later loss, such as the 2026-11-26 run's reading, not only a slow return).
     */
    void assertNoLongerWithoutAnAddressThan(Duration limit) {
        sample();
        Duration longest = Duration.ZERO;
        synchronized (this) {
            for (int i = 0; i < changes.size(); i++) {
                if (!changes.get(i).addresses().isEmpty()) {
                    continue;
                }
                Instant from = changes.get(i).at().isBefore(back)
                        ? back
                        : changes.get(i).at();
                Instant to = i + 1 < changes.size() ? changes.get(i + 1).at() : Instant.now();
                if (to.isAfter(from) && Duration.between(from, to).compareTo(longest) > 0) {
                    longest = Duration.between(from, to);
                }
            }
        }
        assertThat(longest)
                .as(
                        "the longest the kubernetes Service was seen without an endpoint after the new API server answered;"
                                + " seen: %s",
                        this)
                .isLessThanOrEqualTo(limit);
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

    /** The changes, in ms from the new API server's readiness (negative: before it), or from the first read. */
    @Override
    public synchronized String toString() {
        Instant zero = back != null
                ? back
                : changes.isEmpty() ? Instant.now() : changes.get(0).at();
        StringBuilder text = new StringBuilder();
        for (Change change : changes) {
            long ms = Duration.between(zero, change.at()).toMillis();
            text.append(text.isEmpty() ? "" : ", then ")
                    .append(change.addresses())
                    .append(" at ")
                    .append(ms >= 0 ? "+" : "")
                    .append(ms)
                    .append(" ms");
        }
        text.append(" (ms from ").append(back != null ? "the new API server's readiness" : "the first read");
        if (back != null && stopped != null) {
            text.append("; the old one was stopped at ")
                    .append(Duration.between(back, stopped).toMillis())
                    .append(" ms");
        }
        return text.append("; ").append(unreadable).append(" reads failed)").toString();
    }
}
