package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfileStatus;
import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.render.DesiredState;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.validation.NodeRestriction;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The status a profile should have, computed from what the reconciler observed. Pure: {@link ProfileStatusRecorder}
 * compares the result with the status last written and patches only when they differ, so lastTransitionTime is
 * carried over from the previous condition whenever its status did not change.
 */
public final class ProfileStatuses {
    public static final String READY = "Ready";
    public static final String EXTENDER_AVAILABLE = "ExtenderAvailable";
    public static final String SCHEDULER_AVAILABLE = "SchedulerAvailable";
    public static final String CONFIG_VALID = "ConfigValid";

    /**
     * kstatus' abnormal-true conditions, which Flux reads for custom resources (it does not read Ready): present only
     * while true. Reconciling while the profile rolls out, Stalled while it cannot be rolled out at all.
     */
    public static final String RECONCILING = "Reconciling";

    public static final String STALLED = "Stalled";

    /**
     * Present, and True, only while spec.extender.tls.mode is not Mutual: the extender's verbs (including /bind,
     * which places pods) can be called by more than this profile's scheduler.
     */
    public static final String EXTENDER_OPEN = "ExtenderOpen";

    /**
     * Present, and True, only while spec.labelKey is a key a node's kubelet may set on its own Node: a compromised node
     * can then draw the profile's pods to itself. Keys under node-restriction.kubernetes.io/ are safe from that.
     */
    public static final String LABEL_KEY_UNPROTECTED = "LabelKeyUnprotected";

    public static final String REASON_KUBELET_MAY_SET_LABEL = "KubeletMaySetLabel";

    public static final String REASON_TLS_DISABLED = "TLSDisabled";
    public static final String REASON_CLIENT_NOT_AUTHENTICATED = "ClientNotAuthenticated";

    public static final String REASON_AVAILABLE = "Available";
    public static final String REASON_WAITING_FOR_EXTENDER = "WaitingForExtender";
    /** ExtenderAvailable of a plugins-only profile (no labelKey): there is no bundled extender to wait for. */
    public static final String REASON_NOT_USED = "NotUsed";

    public static final String REASON_ROLLING_OUT_SCHEDULER = "RollingOutScheduler";
    /** A change would restart the running pods, and the other profiles hold every rollout slot ({@link RolloutSlots}). */
    public static final String REASON_WAITING_FOR_ROLLOUT_SLOT = "WaitingForRolloutSlot";

    public static final String REASON_INVALID_CONFIG = "InvalidConfig";
    public static final String REASON_CONFLICT = "SchedulerNameConflict";
    public static final String REASON_VALID = "Valid";
    public static final String REASON_NOT_FOUND = "NotFound";
    public static final String REASON_PROGRESSING = "Progressing";
    public static final String REASON_APPLY_FAILED = "ApplyFailed";

    private ProfileStatuses() {}

    /**
     * What the reconciler saw.
     *
     * @param rendered what the profile renders to, with the desired config hash and the resolved images, or why it
     *     does not render
     * @param conflict the older profile that holds the same schedulerName, if any: nothing is rolled out then
     * @param applyFailure the apply the API server refused in this reconcile, if any
     * @param waitingForRolloutSlot a change would restart the running pods and must wait its turn: nothing was applied
     * @param extender the extender Deployment as it is now, or null
     * @param scheduler the scheduler Deployment as it is now, or null
     * @param extenderPods the extender's pods as the informer has them: their status says why it is not available
     * @param schedulerPods the scheduler's pods, likewise
     */
    public record Observation(
            long generation,
            String schedulerName,
            RenderResult rendered,
            Optional<SchedulerNameConflicts.Conflict> conflict,
            Optional<ApplyFailure> applyFailure,
            boolean waitingForRolloutSlot,
            Deployment extender,
            Deployment scheduler,
            int labelledNodes,
            List<Pod> extenderPods,
            List<Pod> schedulerPods) {

        /** What the profile rolls out; empty when it does not render or is refused. */
        Optional<DesiredState> desired() {
            return conflict.isEmpty() && rendered instanceof RenderResult.Valid valid
                    ? Optional.of(valid.state())
                    : Optional.empty();
        }
    }

    public static SchedulerProfileStatus compute(SchedulerProfileStatus previous, Observation o, Instant now) {
        SchedulerProfileStatus prior = previous == null ? new SchedulerProfileStatus() : previous;
        SchedulerProfileStatus status = new SchedulerProfileStatus();
        status.setObservedGeneration(o.generation());
        status.setConditions(carryTransitionTimes(prior.getConditions(), conditions(o), now));
        status.setSchedulerName(o.schedulerName());
        // An invalid profile changes nothing, so the images in use stay what they were.
        Optional<DesiredState> desired = o.desired();
        status.setSchedulerImage(desired.map(DesiredState::schedulerImage).orElse(prior.getSchedulerImage()));
        status.setExtenderImage(desired.map(DesiredState::extenderImage).orElse(prior.getExtenderImage()));
        status.setConfigHash(appliedConfigHash(o.scheduler()).orElse(null));
        status.setLabelledNodes(o.labelledNodes());
        return status;
    }

    /** The config hash on the scheduler Deployment's pod template: the config its pods run with. */
    public static Optional<String> appliedConfigHash(Deployment scheduler) {
        if (scheduler == null
                || scheduler.getSpec() == null
                || scheduler.getSpec().getTemplate() == null
                || scheduler.getSpec().getTemplate().getMetadata() == null) {
            return Optional.empty();
        }
        Map<String, String> annotations =
                scheduler.getSpec().getTemplate().getMetadata().getAnnotations();
        return Optional.ofNullable(annotations == null ? null : annotations.get(Labels.CONFIG_HASH));
    }

    /** The four conditions, plus Reconciling or Stalled while not Ready, without lastTransitionTime. */
    static List<Condition> conditions(Observation o) {
        long generation = o.generation();
        boolean pluginsOnly = o.desired().map(d -> !d.bundledExtender()).orElse(false);
        boolean extenderAvailable = pluginsOnly || DeploymentReadiness.isAvailableAtCurrentGeneration(o.extender());
        boolean schedulerAvailable = DeploymentReadiness.isAvailableAtCurrentGeneration(o.scheduler());
        // Only an unavailable Deployment's pods are read: during an ordinary rollout the old pods speak for nothing.
        Optional<PodTrouble> extenderTrouble =
                extenderAvailable ? Optional.empty() : PodTrouble.of(o.extenderPods(), "spec.extender.resources");
        Optional<PodTrouble> schedulerTrouble =
                schedulerAvailable ? Optional.empty() : PodTrouble.of(o.schedulerPods(), "spec.scheduler.resources");

        Condition configValid;
        Condition ready;
        if (o.conflict().isPresent()) {
            SchedulerNameConflicts.Conflict conflict = o.conflict().get();
            String message = "schedulerName '" + conflict.schedulerName() + "' is already claimed by the older"
                    + " SchedulerProfile '" + conflict.holder() + "'; choose another spec.schedulerName."
                    + " Nothing was rolled out for this profile.";
            configValid = condition(CONFIG_VALID, false, REASON_CONFLICT, message, generation);
            ready = condition(READY, false, REASON_CONFLICT, message, generation);
        } else if (o.rendered() instanceof RenderResult.Invalid invalid) {
            String message =
                    switch (invalid.refusal()) {
                                case INVALID_CONFIG -> "The profile is invalid; running objects are left unchanged: ";
                                case IMAGE_NOT_ALLOWED -> "The profile names an image this installation does not allow;"
                                        + " running objects are left unchanged: ";
                                default -> "";
                            }
                            + String.join("; ", invalid.errors());
            String reason = invalid.refusal().reason();
            configValid = condition(CONFIG_VALID, false, reason, message, generation);
            ready = condition(READY, false, reason, message, generation);
        } else {
            configValid = condition(CONFIG_VALID, true, REASON_VALID, "The profile renders and validates", generation);
            ready = o.applyFailure().isPresent()
                    ? condition(
                            READY,
                            false,
                            REASON_APPLY_FAILED,
                            o.applyFailure().get().message(),
                            generation)
                    : o.waitingForRolloutSlot()
                            ? condition(
                                    READY,
                                    false,
                                    REASON_WAITING_FOR_ROLLOUT_SLOT,
                                    "A change restarts this profile's pods and the maximum of profiles rolling out at"
                                            + " once is reached (the operator's --max-concurrent-rollouts); the"
                                            + " running extender and scheduler are left as they are until its turn",
                                    generation)
                            : readyWhenValid(
                                    o,
                                    pluginsOnly,
                                    extenderAvailable,
                                    schedulerAvailable,
                                    extenderTrouble,
                                    schedulerTrouble);
        }
        Condition extender = pluginsOnly
                ? condition(
                        EXTENDER_AVAILABLE,
                        true,
                        REASON_NOT_USED,
                        "The profile has no labelKey: no bundled extender runs (plugins only)",
                        generation)
                : availability(
                        EXTENDER_AVAILABLE, "extender", o.extender(), extenderAvailable, extenderTrouble, generation);
        Condition scheduler = availability(
                SCHEDULER_AVAILABLE, "scheduler", o.scheduler(), schedulerAvailable, schedulerTrouble, generation);
        List<Condition> conditions = new ArrayList<>(List.of(ready, extender, scheduler, configValid));
        o.desired()
                .filter(DesiredState::bundledExtender)
                .map(DesiredState::tlsMode)
                .flatMap(mode -> extenderOpen(mode, generation))
                .ifPresent(conditions::add);
        o.desired()
                .map(DesiredState::labelKey)
                .flatMap(key -> labelKeyUnprotected(key, generation))
                .ifPresent(conditions::add);
        if ("False".equals(ready.getStatus())) {
            // Stalled: it cannot progress without someone's change (to the profile, or to what refused the apply).
            // A pod that waits on a sidecar its kubelet does not run as one never starts, whatever the kubelet retries.
            boolean stalled = !"True".equals(configValid.getStatus())
                    || REASON_APPLY_FAILED.equals(ready.getReason())
                    || PodTrouble.REASON_NO_NATIVE_SIDECARS.equals(ready.getReason());
            conditions.add(condition(
                    stalled ? STALLED : RECONCILING, true, ready.getReason(), ready.getMessage(), generation));
        }
        return List.copyOf(conditions);
    }

    /** The warning for a label key that a node may set on itself. */
    static Optional<Condition> labelKeyUnprotected(String labelKey, long generation) {
        if (labelKey == null || !NodeRestriction.kubeletMaySet(labelKey)) {
            return Optional.empty();
        }
        return Optional.of(condition(
                LABEL_KEY_UNPROTECTED,
                true,
                REASON_KUBELET_MAY_SET_LABEL,
                "spec.labelKey " + labelKey + " is a label a node's kubelet may set on its own Node"
                        + " (NodeRestriction stops a kubelet only from setting keys under " + NodeRestriction.PREFIX
                        + " and other kubernetes.io and k8s.io keys): a compromised node can give itself the highest"
                        + " value and draw every pod of this profile, and the Secrets they mount. Label nodes with a"
                        + " key under " + NodeRestriction.PREFIX + " (e.g. " + NodeRestriction.PREFIX
                        + suggestedName(labelKey) + "), which only the cluster's administrators may set.",
                generation));
    }

    /** The name part of a label key, for the suggestion. */
    private static String suggestedName(String labelKey) {
        return labelKey.substring(labelKey.indexOf('/') + 1);
    }

    /** The warning for the modes that let more than the scheduler call the extender. */
    static Optional<Condition> extenderOpen(TlsMode mode, long generation) {
        return switch (mode) {
            case MUTUAL -> Optional.empty();
            case DISABLED -> Optional.of(condition(
                    EXTENDER_OPEN,
                    true,
                    REASON_TLS_DISABLED,
                    "spec.extender.tls.mode is Disabled: the extender serves plain HTTP, and any pod that reaches its"
                            + " Service can call its verbs (and /bind, if enabled, places pods) or read what they"
                            + " answer; only the NetworkPolicy, where the network plugin enforces it, stands in the"
                            + " way. Remove spec.extender.tls (or set mode: Mutual) once you are done debugging.",
                    generation));
            case SERVER -> Optional.of(condition(
                    EXTENDER_OPEN,
                    true,
                    REASON_CLIENT_NOT_AUTHENTICATED,
                    "spec.extender.tls.mode is Server: traffic is encrypted and the scheduler verifies the extender,"
                            + " but the extender does not authenticate its caller, so any pod that reaches its Service"
                            + " (past the NetworkPolicy) can call its verbs. Set mode: Mutual (the default) to admit"
                            + " only this profile's scheduler.",
                    generation));
        };
    }

    private static Condition readyWhenValid(
            Observation o,
            boolean pluginsOnly,
            boolean extenderAvailable,
            boolean schedulerAvailable,
            Optional<PodTrouble> extenderTrouble,
            Optional<PodTrouble> schedulerTrouble) {
        long generation = o.generation();
        if (extenderTrouble.isPresent()) {
            PodTrouble trouble = extenderTrouble.get();
            return condition(
                    READY,
                    false,
                    trouble.reason(),
                    "The extender cannot run: " + trouble.message()
                            + "; the scheduler is configured once the extender is available",
                    generation);
        }
        if (!extenderAvailable) {
            return condition(
                    READY,
                    false,
                    REASON_WAITING_FOR_EXTENDER,
                    "Waiting for the extender Deployment: " + DeploymentReadiness.describe(o.extender())
                            + "; the scheduler is configured once the extender is available",
                    generation);
        }
        Optional<String> applied = appliedConfigHash(o.scheduler());
        String desiredConfigHash = o.desired().map(DesiredState::configHash).orElse(null);
        if (applied.isEmpty() || !applied.get().equals(desiredConfigHash)) {
            return condition(
                    READY,
                    false,
                    REASON_ROLLING_OUT_SCHEDULER,
                    "Rolling out the scheduler with config hash " + desiredConfigHash,
                    generation);
        }
        if (schedulerTrouble.isPresent()) {
            PodTrouble trouble = schedulerTrouble.get();
            return condition(
                    READY, false, trouble.reason(), "The scheduler cannot run: " + trouble.message(), generation);
        }
        if (!schedulerAvailable) {
            return condition(
                    READY,
                    false,
                    REASON_ROLLING_OUT_SCHEDULER,
                    "Rolling out the scheduler Deployment: " + DeploymentReadiness.describe(o.scheduler()),
                    generation);
        }
        return condition(
                READY,
                true,
                REASON_AVAILABLE,
                pluginsOnly
                        ? "The scheduler '" + o.schedulerName() + "' is available (plugins only, no bundled extender)"
                        : "The extender and the scheduler '" + o.schedulerName() + "' are available",
                generation);
    }

    private static Condition availability(
            String type,
            String component,
            Deployment deployment,
            boolean available,
            Optional<PodTrouble> trouble,
            long generation) {
        if (available) {
            return condition(type, true, REASON_AVAILABLE, "The " + component + " Deployment is available", generation);
        }
        if (deployment != null && trouble.isPresent()) {
            return condition(
                    type,
                    false,
                    trouble.get().reason(),
                    "The " + component + " Deployment "
                            + deployment.getMetadata().getName() + ": " + DeploymentReadiness.describe(deployment)
                            + "; " + trouble.get().message(),
                    generation);
        }
        if (deployment == null) {
            return condition(
                    type, false, REASON_NOT_FOUND, "The " + component + " Deployment does not exist yet", generation);
        }
        return condition(
                type,
                false,
                REASON_PROGRESSING,
                "The " + component + " Deployment " + deployment.getMetadata().getName() + ": "
                        + DeploymentReadiness.describe(deployment),
                generation);
    }

    private static Condition condition(String type, boolean status, String reason, String message, long generation) {
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status ? "True" : "False")
                .withReason(reason)
                .withMessage(message)
                .withObservedGeneration(generation)
                .build();
    }

    /** Sets lastTransitionTime: the previous one when the condition's status is unchanged, else now. */
    static List<Condition> carryTransitionTimes(List<Condition> previous, List<Condition> next, Instant now) {
        String nowText = now.truncatedTo(ChronoUnit.SECONDS).toString();
        List<Condition> result = new ArrayList<>();
        for (Condition condition : next) {
            Optional<Condition> before = find(previous, condition.getType());
            String time = before.filter(b -> Objects.equals(b.getStatus(), condition.getStatus()))
                    .map(Condition::getLastTransitionTime)
                    .filter(t -> t != null && !t.isBlank())
                    .orElse(nowText);
            result.add(
                    new ConditionBuilder(condition).withLastTransitionTime(time).build());
        }
        return result;
    }

    public static Optional<Condition> find(List<Condition> conditions, String type) {
        if (conditions == null) {
            return Optional.empty();
        }
        return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    public static boolean isTrue(List<Condition> conditions, String type) {
        return find(conditions, type).map(c -> "True".equals(c.getStatus())).orElse(false);
    }
}
