package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one writer of a profile's status: computes it from an observation ({@link ProfileStatuses}), compares it with
 * what was last written ({@link StatusMemory}), patches the status subresource when it differs, remembers what it
 * wrote, and announces condition transitions as events. Also keeps the last readiness of every profile for the
 * {@code schedulerops_profiles} metric.
 */
final class ProfileStatusRecorder {
    private final KubernetesClient client;
    private final ProfileEvents events;
    private final Clock clock;
    private final StatusMemory memory = new StatusMemory();
    private final Map<ResourceID, Boolean> readiness = new ConcurrentHashMap<>();

    ProfileStatusRecorder(KubernetesClient client, ProfileEvents events, Clock clock) {
        this.client = client;
        this.events = events;
        this.clock = clock;
    }

    /** Records the status {@code observation} calls for, and returns it. */
    SchedulerProfileStatus record(SchedulerProfile profile, ProfileStatuses.Observation observation) {
        String uid = profile.getMetadata().getUid();
        SchedulerProfileStatus previous = memory.previous(uid, profile.getStatus());
        SchedulerProfileStatus next = ProfileStatuses.compute(previous, observation, clock.instant());
        announceTransitions(profile, previous, next);
        readiness.put(
                ResourceID.fromResource(profile), ProfileStatuses.isTrue(next.getConditions(), ProfileStatuses.READY));
        if (memory.needsPatch(uid, profile.getStatus(), next)) {
            patch(profile, next);
            memory.wrote(uid, next);
        }
        return next;
    }

    /** Forgets a profile that is going away. */
    void forget(SchedulerProfile profile) {
        readiness.remove(ResourceID.fromResource(profile));
        memory.forget(profile.getMetadata().getUid());
    }

    /** How many profiles were last recorded Ready (true) and not Ready (false). */
    long profilesWithReady(boolean ready) {
        return readiness.values().stream().filter(r -> r == ready).count();
    }

    /** Server-side applies the whole status (we own all of it) to the status subresource. */
    private void patch(SchedulerProfile profile, SchedulerProfileStatus status) {
        SchedulerProfile patch = new SchedulerProfile();
        patch.setMetadata(new ObjectMetaBuilder()
                .withName(profile.getMetadata().getName())
                .build());
        patch.setStatus(status);
        client.resource(patch)
                .subresource("status")
                .patch(new PatchContext.Builder()
                        .withPatchType(PatchType.SERVER_SIDE_APPLY)
                        .withFieldManager(ResourceApplier.FIELD_MANAGER)
                        .withForce(true)
                        .build());
    }

    /** Events for condition changes: refusals and failed applies as warnings, availability as normal events. */
    private void announceTransitions(
            SchedulerProfile profile, SchedulerProfileStatus previous, SchedulerProfileStatus next) {
        List<Condition> before = previous == null ? List.of() : previous.getConditions();
        List<Condition> after = next.getConditions();
        Condition configValid =
                ProfileStatuses.find(after, ProfileStatuses.CONFIG_VALID).orElseThrow();
        if ("False".equals(configValid.getStatus()) && changed(before, configValid)) {
            events.warning(profile, configValid.getReason(), configValid.getMessage());
        }
        Condition ready = ProfileStatuses.find(after, ProfileStatuses.READY).orElseThrow();
        if (ProfileStatuses.REASON_APPLY_FAILED.equals(ready.getReason()) && changed(before, ready)) {
            events.warning(profile, ready.getReason(), ready.getMessage());
        }
        // A pod failure is announced once when it appears, not on every kubelet retry (a crash loop's termination
        // message changes with each crash).
        if (PodTrouble.REASONS.contains(ready.getReason()) && reasonChanged(before, ready)) {
            events.warning(profile, ready.getReason(), ready.getMessage());
        }
        for (String type : List.of(
                ProfileStatuses.EXTENDER_AVAILABLE, ProfileStatuses.SCHEDULER_AVAILABLE, ProfileStatuses.READY)) {
            boolean wasTrue = ProfileStatuses.isTrue(before, type);
            boolean isTrue = ProfileStatuses.isTrue(after, type);
            if (isTrue && !wasTrue) {
                Condition condition = ProfileStatuses.find(after, type).orElseThrow();
                events.normal(profile, type, condition.getMessage());
            }
        }
    }

    private static boolean reasonChanged(List<Condition> before, Condition now) {
        return !ProfileStatuses.find(before, now.getType())
                .map(Condition::getReason)
                .equals(Optional.ofNullable(now.getReason()));
    }

    /** Whether {@code now} differs from the condition of its type in {@code before} in status, reason or message. */
    private static boolean changed(List<Condition> before, Condition now) {
        Optional<Condition> was = ProfileStatuses.find(before, now.getType());
        return was.isEmpty()
                || !Objects.equals(was.get().getStatus(), now.getStatus())
                || !Objects.equals(was.get().getReason(), now.getReason())
                || !Objects.equals(was.get().getMessage(), now.getMessage());
    }
}
