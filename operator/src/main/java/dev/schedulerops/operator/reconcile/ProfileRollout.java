package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.render.DesiredState;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordered apply of one valid profile: its turn ({@link RolloutSlots}: an apply that would restart running pods
 * waits until fewer than N profiles roll), stage 1 (the extender and the RBAC), the gate (the extender Deployment
 * Available at its current generation), stage 2 (the scheduler's ConfigMap and Deployment). Announces creations and
 * new rollouts as events; a refused apply stops the rollout and is returned, not thrown.
 */
final class ProfileRollout {
    private static final Logger LOG = LoggerFactory.getLogger(ProfileRollout.class);

    /**
     * The two Deployments as they are after the rollout, the apply that failed, if one did, and whether nothing was
     * applied because the profile waits for its turn.
     */
    record Result(Deployment extender, Deployment scheduler, Optional<ApplyFailure> failure, boolean waitingForSlot) {

        static Result unchanged(Deployment extender, Deployment scheduler) {
            return new Result(extender, scheduler, Optional.empty(), false);
        }

        static Result failed(Deployment extender, Deployment scheduler, ApplyFailure failure) {
            return new Result(extender, scheduler, Optional.of(failure), false);
        }
    }

    private final ResourceApplier applier;
    private final ProfileEvents events;
    private final RolloutSlots slots;

    ProfileRollout(ResourceApplier applier, ProfileEvents events, RolloutSlots slots) {
        this.applier = applier;
        this.events = events;
        this.slots = slots;
    }

    /**
     * Applies what {@code state} says in the profile's turn: an apply that would restart running pods first takes a
     * rollout slot, and touches nothing while none is free; the slot is given back once the rollout is over.
     */
    Result applyInTurn(
            SchedulerProfile profile, DesiredState state, Deployment observedExtender, Deployment observedScheduler) {
        ResourceID id = ResourceID.fromResource(profile);
        boolean restarts = PodRollouts.restartsRunningPods(state, observedExtender, observedScheduler);
        if (restarts && !slots.take(id)) {
            LOG.debug(
                    "{} waits for a rollout slot: {} of {} taken by {}",
                    id,
                    slots.rolling().size(),
                    slots.max(),
                    slots.rolling());
            return new Result(observedExtender, observedScheduler, Optional.empty(), true);
        }
        if (!restarts) {
            slots.withdraw(id);
        }
        Result result = apply(profile, state, observedExtender, observedScheduler);
        if (PodRollouts.finished(state, result.extender(), result.scheduler())) {
            slots.release(id);
        }
        return result;
    }

    /**
     * Applies what {@code state} says, starting from the Deployments as observed.
     *
     * @param observedExtender the extender Deployment before this reconcile, or null
     * @param observedScheduler the scheduler Deployment before this reconcile, or null
     */
    private Result apply(
            SchedulerProfile profile, DesiredState state, Deployment observedExtender, Deployment observedScheduler) {
        Deployment extender = observedExtender;
        Deployment scheduler = observedScheduler;
        try {
            extender = applyStage(
                    profile,
                    state.extenderStage(),
                    state.bundledExtender() ? state.extenderDeployment() : null,
                    (deployment, applied) -> events.normal(
                            profile,
                            "ExtenderRolloutStarted",
                            "Rolling out the extender Deployment " + ResourceApplier.qualifiedName(deployment)
                                    + " (generation " + deployment.getMetadata().getGeneration()
                                    + "); the scheduler waits for it"));
            if (state.bundledExtender() && !DeploymentReadiness.isAvailableAtCurrentGeneration(extender)) {
                LOG.debug(
                        "extender not available yet ({}): scheduler stage left as it is",
                        DeploymentReadiness.describe(extender));
                return Result.unchanged(extender, scheduler);
            }
            scheduler = applyStage(
                    profile,
                    state.schedulerStage(),
                    state.schedulerDeployment(),
                    (deployment, applied) -> events.normal(
                            profile,
                            "SchedulerRolloutStarted",
                            "Rolling out the scheduler Deployment " + ResourceApplier.qualifiedName(deployment)
                                    + " with config hash " + state.configHash() + " (was "
                                    + ProfileStatuses.appliedConfigHash((Deployment) applied.before())
                                            .orElse("none")
                                    + ")"));
            if (DeploymentReadiness.isAvailableAtCurrentGeneration(scheduler)) {
                prune(profile, state);
            }
            return Result.unchanged(extender, scheduler);
        } catch (RefusedApply refused) {
            LOG.warn("{}", refused.failure.message());
            return Result.failed(extender, scheduler, refused.failure);
        }
    }

    /**
     * Deletes what the profile made before and no longer renders: the bundled extender's objects once a profile
     * drops its labelKey (plugins only), its TLS Secrets once nothing needs them, a component's PodDisruptionBudget
     * once its replicas drop back to 1. Runs only once the scheduler that
     * no longer depends on them is available at its current generation, so the old scheduler never loses its
     * extender while it still runs.
     */
    private void prune(SchedulerProfile profile, DesiredState state) {
        Names names = state.names();
        Set<String> keep = new HashSet<>();
        state.all().forEach(object -> keep.add(identity(object)));
        if (state.tlsMode().enabled()) {
            names.tlsSecrets().forEach(secret -> keep.add("Secret/" + names.namespace() + "/" + secret));
        }
        for (HasMetadata object : applier.ownedBy(names)) {
            if (keep.contains(identity(object)) || object.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            try {
                if (applier.delete(object)) {
                    events.normal(
                            profile,
                            "Deleted",
                            "Deleted " + object.getKind() + " " + ResourceApplier.qualifiedName(object)
                                    + ": the profile no longer renders it");
                }
            } catch (KubernetesClientException e) {
                throw new RefusedApply(ApplyFailure.of(object.getKind(), ResourceApplier.qualifiedName(object), e));
            }
        }
    }

    private static String identity(HasMetadata object) {
        String kind = OwnedKind.of(object).type().getSimpleName();
        return kind + "/" + ResourceApplier.qualifiedName(object);
    }

    /**
     * Applies a stage's objects in order and returns its Deployment named like {@code watched} as the API server
     * returned it; {@code onRollout} runs when that apply changed the Deployment's generation (a new rollout).
     *
     * @param watched the stage's Deployment as rendered, or null for a stage without one (plugins only)
     */
    private Deployment applyStage(
            SchedulerProfile profile,
            List<HasMetadata> stage,
            Deployment watched,
            BiConsumer<Deployment, ResourceApplier.Applied> onRollout) {
        if (watched == null) {
            stage.forEach(object -> applyAndAnnounce(profile, object));
            return null;
        }
        String watchedName = watched.getMetadata().getName();
        Deployment result = null;
        for (HasMetadata object : stage) {
            ResourceApplier.Applied applied = applyAndAnnounce(profile, object);
            if (applied.object() instanceof Deployment deployment
                    && watchedName.equals(deployment.getMetadata().getName())) {
                result = deployment;
                if (generationChanged(applied)) {
                    onRollout.accept(deployment, applied);
                }
            }
        }
        return result;
    }

    private ResourceApplier.Applied applyAndAnnounce(SchedulerProfile profile, HasMetadata object) {
        ResourceApplier.Applied applied;
        try {
            applied = applier.apply(profile, object);
        } catch (KubernetesClientException e) {
            throw new RefusedApply(ApplyFailure.of(object, e));
        }
        if (applied.created()) {
            events.normal(
                    profile,
                    "Created",
                    "Created " + applied.object().getKind() + " " + ResourceApplier.qualifiedName(applied.object()));
        }
        return applied;
    }

    private static boolean generationChanged(ResourceApplier.Applied applied) {
        return applied.changed()
                && !Objects.equals(
                        applied.before().getMetadata().getGeneration(),
                        applied.object().getMetadata().getGeneration());
    }

    /** Ends a rollout at the first refused apply; never leaves this class. */
    private static final class RefusedApply extends RuntimeException {
        private final transient ApplyFailure failure;

        RefusedApply(ApplyFailure failure) {
            super(failure.message(), null, false, false);
            this.failure = failure;
        }
    }
}
