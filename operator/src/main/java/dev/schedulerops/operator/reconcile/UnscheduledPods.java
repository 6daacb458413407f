package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Why no scheduler will take a pod that waits for one: its {@code spec.schedulerName} names a profile that is not
 * Ready (a component of it is not running), is refused (invalid, a name conflict, a disallowed image, ...), is being
 * or was deleted, or names no profile at all while no scheduler has looked at the pod. Pure: {@link
 * UnscheduledPodWatch} records the answer as one Warning event on the pod, and {@code schedulerops explain pod} prints
 * it.
 *
 * <p>Pods of the default scheduler are never diagnosed, nor pods that wait for their scheduling gates, are being
 * deleted or have a node already.
 */
public final class UnscheduledPods {

    /** Why no scheduler will take a pod: the reason of its event, and the label of the metrics. */
    public enum Cause {
        PROFILE_NOT_READY("SchedulerProfileNotReady", "profile_not_ready"),
        PROFILE_REFUSED("SchedulerProfileRefused", "profile_refused"),
        PROFILE_DELETED("SchedulerProfileDeleted", "profile_deleted"),
        NO_SCHEDULER("NoSchedulerForPod", "no_scheduler");

        private final String reason;
        private final String label;

        Cause(String reason, String label) {
            this.reason = reason;
            this.label = label;
        }

        /** The event's reason. */
        public String reason() {
            return reason;
        }

        /** The {@code cause} label value of the metrics. */
        public String label() {
            return label;
        }
    }

    /**
     * @param profile the profile the pod's schedulerName names, if any
     * @param message what the event says: the profile, its state and reason, and what to do
     */
    public record Diagnosis(Cause cause, String schedulerName, Optional<String> profile, String message) {}

    /**
     * What the operator knows when it diagnoses.
     *
     * @param profiles the profiles it sees
     * @param deletedProfiles profiles this instance saw deleted, by their schedulerName
     * @param elsewhere whether a schedulerName belongs to a profile outside {@code profiles} (an operator that
     *     reconciles only the profiles of a label selector asks the API server): another operator tells those pods
     */
    public record Known(
            List<SchedulerProfile> profiles, Map<String, String> deletedProfiles, Predicate<String> elsewhere) {}

    private UnscheduledPods() {}

    /**
     * Whether {@code pod} waits for a scheduler other than the default one: no node, not being deleted, not finished, no
     * scheduling gate left.
     */
    public static boolean waitsForScheduler(Pod pod) {
        if (pod.getSpec() == null || pod.getMetadata() == null) {
            return false;
        }
        String schedulerName = pod.getSpec().getSchedulerName();
        if (schedulerName == null || schedulerName.isEmpty() || schedulerName.equals(Names.DEFAULT_SCHEDULER)) {
            return false;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return (pod.getSpec().getNodeName() == null
                        || pod.getSpec().getNodeName().isEmpty())
                && pod.getMetadata().getDeletionTimestamp() == null
                && !"Succeeded".equals(phase)
                && !"Failed".equals(phase)
                && (pod.getSpec().getSchedulingGates() == null
                        || pod.getSpec().getSchedulingGates().isEmpty());
    }

    /**
     * Why no scheduler will take {@code pod}, once it has waited {@code grace} (a scheduler may be starting, a profile
     * rolling out); empty when one will, may, or when the pod is not one to diagnose.
     */
    public static Optional<Diagnosis> diagnose(Pod pod, Known known, Instant now, Duration grace) {
        if (!waitsForScheduler(pod) || waitingFor(pod, now).compareTo(grace) < 0) {
            return Optional.empty();
        }
        String schedulerName = pod.getSpec().getSchedulerName();
        List<SchedulerProfile> named = known.profiles().stream()
                .filter(p -> schedulerName.equals(p.effectiveSchedulerName()))
                .sorted(SchedulerNameConflicts.CLAIM_ORDER)
                .toList();
        if (!named.isEmpty()) {
            if (named.stream().anyMatch(UnscheduledPods::schedules)) {
                return Optional.empty();
            }
            return ofProfile(pick(named), schedulerName);
        }
        String deleted = known.deletedProfiles().get(schedulerName);
        if (deleted != null) {
            return Optional.of(new Diagnosis(
                    Cause.PROFILE_DELETED,
                    schedulerName,
                    Optional.of(deleted),
                    "SchedulerProfile " + deleted + ", whose schedulerName was \"" + schedulerName + "\", was deleted:"
                            + " no scheduler will take this pod. Use the schedulerName of another profile (the"
                            + " cluster's administrators know them), or ask them to create the profile again."));
        }
        if (scheduledConditionOf(pod).isPresent() || known.elsewhere().test(schedulerName)) {
            // Some scheduler has looked at the pod and said why in its events; or another operator's profile has it.
            return Optional.empty();
        }
        return Optional.of(new Diagnosis(
                Cause.NO_SCHEDULER,
                schedulerName,
                Optional.empty(),
                "No SchedulerProfile has schedulerName \"" + schedulerName
                        + "\" and no scheduler has looked at this pod"
                        + " in " + seconds(waitingFor(pod, now)) + ": is spec.schedulerName misspelled?"
                        + closest(schedulerName, known)
                                .map(s -> " Did you mean \"" + s + "\"?")
                                .orElse("")
                        + " Use the schedulerName of a SchedulerProfile (the cluster's administrators know them),"
                        + " start the scheduler \"" + schedulerName + "\" names, or leave schedulerName unset for the"
                        + " default scheduler."));
    }

    /**
     * The profile a pod of {@code schedulerName} should read about: of those with that name, one not being deleted and
     * not refused for a name conflict if any, else the first claimant; empty when no profile has the name.
     */
    public static Optional<SchedulerProfile> profileFor(String schedulerName, List<SchedulerProfile> profiles) {
        List<SchedulerProfile> named = profiles.stream()
                .filter(p -> schedulerName.equals(p.effectiveSchedulerName()))
                .sorted(SchedulerNameConflicts.CLAIM_ORDER)
                .toList();
        return named.isEmpty() ? Optional.empty() : Optional.of(pick(named));
    }

    private static SchedulerProfile pick(List<SchedulerProfile> named) {
        return named.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .filter(p -> !ProfileStatuses.REASON_CONFLICT.equals(condition(p, ProfileStatuses.CONFIG_VALID)
                        .map(Condition::getReason)
                        .orElse(null)))
                .findFirst()
                .orElse(named.get(0));
    }

    /**
     * Whether a scheduler of {@code profile} runs and will take pods: Ready, or (while an update rolls, or after a
     * refused change) its scheduler and, with the bundled extender, its extender still available.
     */
    static boolean schedules(SchedulerProfile profile) {
        if (profile.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        if (isTrue(profile, ProfileStatuses.READY)) {
            return true;
        }
        // A refused change leaves what runs alone: the scheduler of the last good spec still takes pods. Only a profile
        // refused for a schedulerName conflict never runs anything of its own.
        boolean conflict = condition(profile, ProfileStatuses.CONFIG_VALID)
                .map(c -> "False".equals(c.getStatus()) && ProfileStatuses.REASON_CONFLICT.equals(c.getReason()))
                .orElse(false);
        return !conflict
                && isTrue(profile, ProfileStatuses.SCHEDULER_AVAILABLE)
                && isTrue(profile, ProfileStatuses.EXTENDER_AVAILABLE);
    }

    /**
     * What a pod of {@code profile} is told. The event lands in the pod's namespace, readable by the team that owns it,
     * so it carries the profile's state and the reason code only, never a condition's message: that can name the
     * operator's settings (allowed image repositories, the workload namespace), which a team gains nothing from. The
     * platform team reads the whole story with {@code kubectl describe schedulerprofile} or {@code schedulerops-operator
     * explain}.
     */
    private static Optional<Diagnosis> ofProfile(SchedulerProfile profile, String schedulerName) {
        String name = profile.getMetadata().getName();
        String which = "SchedulerProfile " + name + " (schedulerName \"" + schedulerName + "\")";
        String askThem = " Ask the cluster's administrators (kubectl describe schedulerprofile " + name + ").";
        if (profile.getMetadata().getDeletionTimestamp() != null) {
            return Optional.of(new Diagnosis(
                    Cause.PROFILE_DELETED,
                    schedulerName,
                    Optional.of(name),
                    which + " is being deleted: its scheduler is going away and will not take this pod. Use the"
                            + " schedulerName of another profile, or wait until the profile is created again."));
        }
        Optional<Condition> configValid = condition(profile, ProfileStatuses.CONFIG_VALID);
        if (configValid.map(c -> "False".equals(c.getStatus())).orElse(false)) {
            return Optional.of(new Diagnosis(
                    Cause.PROFILE_REFUSED,
                    schedulerName,
                    Optional.of(name),
                    which + " is refused by the operator (reason "
                            + configValid.get().getReason() + "): nothing runs"
                            + " for it, so no scheduler will take this pod until the profile is fixed." + askThem));
        }
        String state = condition(profile, ProfileStatuses.READY)
                .map(c -> "is not Ready (reason " + c.getReason() + ")")
                .orElse("has no status yet (is the operator running?)");
        return Optional.of(new Diagnosis(
                Cause.PROFILE_NOT_READY,
                schedulerName,
                Optional.of(name),
                which + " " + state + ": its scheduler does not run, so this pod stays Pending until the profile is"
                        + " Ready." + askThem));
    }

    /** How long the pod has existed (its creationTimestamp), zero when unknown. */
    static Duration waitingFor(Pod pod, Instant now) {
        String created = pod.getMetadata().getCreationTimestamp();
        if (created == null) {
            return Duration.ZERO;
        }
        try {
            Duration age = Duration.between(Instant.parse(created), now);
            return age.isNegative() ? Duration.ZERO : age;
        } catch (DateTimeParseException e) {
            return Duration.ZERO;
        }
    }

    /** The pod's PodScheduled condition: present once a scheduler has tried (False) or bound it (True). */
    public static Optional<PodCondition> scheduledConditionOf(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType()))
                .findFirst();
    }

    /** The profile scheduler name at most two edits away from {@code name}, the nearest first. */
    static Optional<String> closest(String name, Known known) {
        return known.profiles().stream()
                .map(SchedulerProfile::effectiveSchedulerName)
                .distinct()
                .filter(candidate -> editDistance(name, candidate) <= 2)
                .min(Comparator.comparingInt((String candidate) -> editDistance(name, candidate))
                        .thenComparing(Comparator.naturalOrder()));
    }

    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static String seconds(Duration duration) {
        return duration.toSeconds() + " s";
    }

    private static boolean isTrue(SchedulerProfile profile, String type) {
        return condition(profile, type).map(c -> "True".equals(c.getStatus())).orElse(false);
    }

    private static Optional<Condition> condition(SchedulerProfile profile, String type) {
        if (profile.getStatus() == null || profile.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return ProfileStatuses.find(profile.getStatus().getConditions(), type);
    }
}
