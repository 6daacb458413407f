package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfileStatus;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The status this instance last wrote for each profile (by uid). The informer cache can lag behind our own status
 * patch by a moment; a reconcile in that window would otherwise see the old status, announce the same transition
 * twice and patch again with a new lastTransitionTime. We are the only writer of the status, so what we wrote last is
 * the best previous status.
 */
final class StatusMemory {
    private final Map<String, SchedulerProfileStatus> written = new ConcurrentHashMap<>();

    /** The status to compute transitions against: ours if we wrote one, else the cached one. */
    SchedulerProfileStatus previous(String uid, SchedulerProfileStatus cached) {
        SchedulerProfileStatus ours = uid == null ? null : written.get(uid);
        return ours != null ? ours : cached;
    }

    /** A patch is needed only when the new status differs both from the cache and from what we wrote last. */
    boolean needsPatch(String uid, SchedulerProfileStatus cached, SchedulerProfileStatus next) {
        SchedulerProfileStatus ours = uid == null ? null : written.get(uid);
        return !next.equals(cached) && !next.equals(ours);
    }

    void wrote(String uid, SchedulerProfileStatus status) {
        if (uid != null) {
            written.put(uid, status);
        }
    }

    void forget(String uid) {
        if (uid != null) {
            written.remove(uid);
        }
    }
}
