package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * Two profiles may not claim the same schedulerName: two kube-schedulers would race for the same pods. The oldest
 * profile keeps the name (on a creation-time tie, the smaller name), every other one is refused.
 */
public final class SchedulerNameConflicts {

    /** The order in which profiles claim a name: older first, then by name. */
    static final Comparator<SchedulerProfile> CLAIM_ORDER =
            Comparator.comparing(SchedulerNameConflicts::createdAt).thenComparing(SchedulerNameConflicts::key);

    private SchedulerNameConflicts() {}

    /** {@code holder}, the name of an older profile, already claims {@code schedulerName}. */
    public record Conflict(String schedulerName, String holder) {}

    /** The conflict that refuses {@code profile}, if any. */
    public static Optional<Conflict> conflictOf(SchedulerProfile profile, Collection<SchedulerProfile> all) {
        return holderOf(profile, all).map(holder -> new Conflict(profile.effectiveSchedulerName(), key(holder)));
    }

    /** The profile that holds {@code profile}'s schedulerName instead of it, if any. */
    public static Optional<SchedulerProfile> holderOf(SchedulerProfile profile, Collection<SchedulerProfile> all) {
        String schedulerName = profile.effectiveSchedulerName();
        return all.stream()
                .filter(other -> !key(other).equals(key(profile)))
                .filter(other -> schedulerName.equals(other.effectiveSchedulerName()))
                .filter(other -> CLAIM_ORDER.compare(other, profile) < 0)
                .min(CLAIM_ORDER);
    }

    static String key(SchedulerProfile profile) {
        return profile.getMetadata().getName();
    }

    private static Instant createdAt(SchedulerProfile profile) {
        String timestamp = profile.getMetadata().getCreationTimestamp();
        // Not yet persisted (never the case for objects from the API): the youngest possible.
        return timestamp == null ? Instant.MAX : Instant.parse(timestamp);
    }
}
