package dev.schedulerops.operator.reconcile;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the reconciler knows of each profile and of its own work, kept for the operator's {@code /metrics}: the
 * runtime turns it into Prometheus series when it is scraped. Plain values, no metrics library, so the reconciler and
 * its tests stay free of one. Label values are bounded: profile names (created by the cluster's administrators, one
 * series each), condition reasons (a fixed vocabulary), and kinds
 * ({@link OwnedKind}); never a pod's name.
 */
public final class ProfileMetrics {

    /**
     * One profile as last reconciled by this instance.
     *
     * @param ready whether its Ready condition is True
     * @param readyReason the Ready condition's reason
     * @param labelledNodes nodes carrying its labelKey
     * @param extenderHttpTimeoutSeconds the scheduler's timeout for each extender call (spec.extender.httpTimeout), when
     *     the profile runs the bundled extender
     * @param certificateExpiries notAfter of each certificate the profile's Secrets hold, by {@code ca},
     *     {@code extender-serving}, {@code scheduler-client}; empty with TLS Disabled
     */
    public record Profile(
            String name,
            boolean ready,
            String readyReason,
            int labelledNodes,
            OptionalDouble extenderHttpTimeoutSeconds,
            Map<String, Instant> certificateExpiries) {}

    private final Map<String, Profile> profiles = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Instant>> certificates = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> applyFailures = new ConcurrentHashMap<>();
    private final Map<UnscheduledPods.Cause, LongAdder> podWarnings = new ConcurrentHashMap<>();
    private volatile Map<UnscheduledPods.Cause, Long> unscheduledPods = Map.of();

    /** What the reconcile of {@code profile} just recorded in its status. */
    public void recorded(
            String profile,
            boolean ready,
            String readyReason,
            int labelledNodes,
            OptionalDouble extenderHttpTimeoutSeconds) {
        profiles.put(
                profile,
                new Profile(
                        profile,
                        ready,
                        readyReason == null ? "" : readyReason,
                        labelledNodes,
                        extenderHttpTimeoutSeconds,
                        Map.of()));
    }

    /** The notAfter of each certificate of {@code profile} (empty: TLS Disabled, nothing to expire). */
    public void certificates(String profile, Map<String, Instant> notAfter) {
        certificates.put(profile, Map.copyOf(notAfter));
    }

    /** {@code profile} is deleted: its series go. */
    public void forget(String profile) {
        profiles.remove(profile);
        certificates.remove(profile);
    }

    /** The API server refused an apply. */
    public void applyFailed(ApplyFailure failure) {
        applyFailures.computeIfAbsent(failure.kind(), k -> new LongAdder()).increment();
    }

    /** Every profile this instance has reconciled and not seen deleted, by name. */
    public List<Profile> profiles() {
        return profiles.values().stream()
                .map(p -> new Profile(
                        p.name(),
                        p.ready(),
                        p.readyReason(),
                        p.labelledNodes(),
                        p.extenderHttpTimeoutSeconds(),
                        certificates.getOrDefault(p.name(), Map.of())))
                .sorted(Comparator.comparing(Profile::name))
                .toList();
    }

    /** Applies the API server refused, by the refused object's kind. */
    public long applyFailures(String kind) {
        return Optional.ofNullable(applyFailures.get(kind)).map(LongAdder::sum).orElse(0L);
    }

    /** A Warning event was recorded on a pod no scheduler will take. */
    public void podWarned(UnscheduledPods.Cause cause) {
        podWarnings.computeIfAbsent(cause, k -> new LongAdder()).increment();
    }

    /** Warning events recorded on pods, by cause. */
    public long podWarnings(UnscheduledPods.Cause cause) {
        return Optional.ofNullable(podWarnings.get(cause)).map(LongAdder::sum).orElse(0L);
    }

    /** How many Pending pods no scheduler will take, by cause, as last counted. */
    public void unscheduledPods(Map<UnscheduledPods.Cause, Long> counts) {
        unscheduledPods = Map.copyOf(counts);
    }

    /** Pending pods no scheduler will take, of {@code cause}, as last counted (0 while pod events are off). */
    public long unscheduledPods(UnscheduledPods.Cause cause) {
        return unscheduledPods.getOrDefault(cause, 0L);
    }
}
