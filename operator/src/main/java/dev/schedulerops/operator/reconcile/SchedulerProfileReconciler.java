package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileStatus;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.render.DesiredState;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a SchedulerProfile into what {@link ProfileRenderer} says it becomes. A thin orchestrator: rendering and
 * validation are the renderer's, status is {@link ProfileStatuses}', readiness is {@link DeploymentReadiness}'.
 *
 * <p>Design: a small hand-written ordered applier rather than JOSDK dependent resources. The renderer already yields
 * the objects split into two stages, and the rules between the stages (stage 2 only once the extender Deployment is
 * Available at its current generation; an invalid profile touches nothing, whereas a reconcile precondition would
 * delete dependents) are plain code here instead of workflow conditions. Every reconcile server-side applies stage 1
 * with {@code force}, then stage 2 if the extender is available; unchanged objects are server-side no-ops. Informers
 * on every owned type ({@link OwnedInformers}) reconcile the profile on any change to its objects, so a hand edit or
 * deletion is put back at once. Deletion is a {@link Cleaner} ({@link ProfileTeardown}) that goes in reverse order.
 */
@ControllerConfiguration(
        name = SchedulerProfileReconciler.NAME,
        finalizerName = SchedulerProfileReconciler.FINALIZER,
        fieldManager = ResourceApplier.FIELD_MANAGER,
        maxReconciliationInterval = @MaxReconciliationInterval(interval = 10, timeUnit = TimeUnit.MINUTES))
public class SchedulerProfileReconciler implements Reconciler<SchedulerProfile>, Cleaner<SchedulerProfile> {
    public static final String NAME = "schedulerprofile";
    public static final String FINALIZER = "schedulerops.dev/cleanup";

    /**
     * Re-check a profile refused for a schedulerName conflict: no event reaches it when the holder goes away or
     * changes its schedulerName. Every other non-Ready state is event-driven: the owned informers reconcile the
     * profile on every change of its Deployments, and an invalid profile can only become valid by its own change.
     * maxReconciliationInterval still covers missed events.
     */
    static final Duration RECHECK = Duration.ofSeconds(30);

    static final long TEARDOWN_POLL_MILLIS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(SchedulerProfileReconciler.class);

    private final ClusterFacts facts;
    private final ProfileEvents events;
    private final Map<ResourceID, Boolean> readiness = new ConcurrentHashMap<>();
    private final StatusMemory statuses = new StatusMemory();
    private volatile OwnedInformers informers;
    private volatile ResourceApplier applier;
    private volatile ProfileTeardown teardown;

    public SchedulerProfileReconciler(ClusterFacts facts, ProfileEvents events) {
        this.facts = facts;
        this.events = events;
    }

    @Override
    public List<EventSource<?, SchedulerProfile>> prepareEventSources(EventSourceContext<SchedulerProfile> context) {
        informers = OwnedInformers.create(context);
        applier = new ResourceApplier(context.getClient(), informers);
        teardown = new ProfileTeardown(context.getClient());
        return informers.eventSources();
    }

    @Override
    public UpdateControl<SchedulerProfile> reconcile(SchedulerProfile profile, Context<SchedulerProfile> context) {
        String namespace = profile.getMetadata().getNamespace();
        Names names = new Names(profile.getMetadata().getName(), namespace);
        Deployment extender = informers
                .cached(Deployment.class, new ResourceID(names.extender(), namespace))
                .orElse(null);
        Deployment scheduler = informers
                .cached(Deployment.class, new ResourceID(names.scheduler(), namespace))
                .orElse(null);

        ConfigOutcome outcome;
        Optional<SchedulerProfile> holder = SchedulerNameConflicts.holderOf(
                profile, context.getPrimaryCache().list().toList());
        if (holder.isPresent()) {
            outcome = new ConfigOutcome.Conflict(
                    profile.effectiveSchedulerName(), SchedulerNameConflicts.key(holder.get()));
        } else {
            RenderResult rendered = ProfileRenderer.render(profile, facts);
            if (rendered instanceof RenderResult.Valid valid) {
                outcome = new ConfigOutcome.Valid(valid.state());
            } else {
                outcome = new ConfigOutcome.Invalid(((RenderResult.Invalid) rendered).errors());
            }
        }

        if (outcome instanceof ConfigOutcome.Valid valid) {
            DesiredState state = valid.state();
            extender = applyStage(
                    profile,
                    state.extenderStage(),
                    state.extenderDeployment(),
                    (deployment, applied) -> events.normal(
                            profile,
                            "ExtenderRolloutStarted",
                            "Rolling out the extender Deployment " + ResourceApplier.qualifiedName(deployment)
                                    + " (generation " + deployment.getMetadata().getGeneration()
                                    + "); the scheduler waits for it"));
            if (DeploymentReadiness.isAvailableAtCurrentGeneration(extender)) {
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
            } else {
                LOG.debug(
                        "extender not available yet ({}): scheduler stage left as it is",
                        DeploymentReadiness.describe(extender));
            }
        }

        String labelKey = profile.getSpec() == null ? null : profile.getSpec().getLabelKey();
        ProfileStatuses.Observation observation = new ProfileStatuses.Observation(
                profile.getMetadata().getGeneration() == null
                        ? 0
                        : profile.getMetadata().getGeneration(),
                profile.effectiveSchedulerName(),
                outcome,
                extender,
                scheduler,
                labelKey == null ? 0 : (int) informers.nodesLabelled(labelKey));
        String uid = profile.getMetadata().getUid();
        SchedulerProfileStatus previous = statuses.previous(uid, profile.getStatus());
        SchedulerProfileStatus next = ProfileStatuses.compute(previous, observation, Instant.now());
        announceTransitions(profile, previous, next);
        boolean ready = ProfileStatuses.isTrue(next.getConditions(), ProfileStatuses.READY);
        readiness.put(ResourceID.fromResource(profile), ready);
        if (statuses.needsPatch(uid, profile.getStatus(), next)) {
            patchStatus(context, profile, next);
            statuses.wrote(uid, next);
        }
        UpdateControl<SchedulerProfile> control = UpdateControl.noUpdate();
        if (outcome instanceof ConfigOutcome.Conflict) {
            control.rescheduleAfter(RECHECK);
        }
        return control;
    }

    /** Server-side applies the whole status (we own all of it) to the status subresource. */
    private static void patchStatus(
            Context<SchedulerProfile> context, SchedulerProfile profile, SchedulerProfileStatus status) {
        SchedulerProfile patch = new SchedulerProfile();
        patch.setMetadata(new ObjectMetaBuilder()
                .withName(profile.getMetadata().getName())
                .withNamespace(profile.getMetadata().getNamespace())
                .build());
        patch.setStatus(status);
        context.getClient()
                .resource(patch)
                .subresource("status")
                .patch(new PatchContext.Builder()
                        .withPatchType(PatchType.SERVER_SIDE_APPLY)
                        .withFieldManager(ResourceApplier.FIELD_MANAGER)
                        .withForce(true)
                        .build());
    }

    /**
     * Applies a stage's objects in order and returns its Deployment named like {@code watched} as the API server
     * returned it; {@code onRollout} runs when that apply changed the Deployment's generation (a new rollout).
     */
    private Deployment applyStage(
            SchedulerProfile profile,
            List<HasMetadata> stage,
            Deployment watched,
            BiConsumer<Deployment, ResourceApplier.Applied> onRollout) {
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
        ResourceApplier.Applied applied = applier.apply(profile, object);
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

    /** Events for condition changes: refusals as warnings, availability as normal events. */
    private void announceTransitions(
            SchedulerProfile profile, SchedulerProfileStatus previous, SchedulerProfileStatus next) {
        List<Condition> before = previous == null ? List.of() : previous.getConditions();
        List<Condition> after = next.getConditions();
        Condition configValid =
                ProfileStatuses.find(after, ProfileStatuses.CONFIG_VALID).orElseThrow();
        Optional<Condition> configValidBefore = ProfileStatuses.find(before, ProfileStatuses.CONFIG_VALID);
        boolean refusalChanged = configValidBefore.isEmpty()
                || !Objects.equals(configValidBefore.get().getStatus(), configValid.getStatus())
                || !Objects.equals(configValidBefore.get().getMessage(), configValid.getMessage());
        if ("False".equals(configValid.getStatus()) && refusalChanged) {
            events.warning(profile, configValid.getReason(), configValid.getMessage());
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

    @Override
    public DeleteControl cleanup(SchedulerProfile profile, Context<SchedulerProfile> context) {
        readiness.remove(ResourceID.fromResource(profile));
        statuses.forget(profile.getMetadata().getUid());
        try {
            if (teardown.advance(profile)) {
                LOG.info(
                        "everything of {}/{} is deleted",
                        profile.getMetadata().getNamespace(),
                        profile.getMetadata().getName());
                return DeleteControl.defaultDelete();
            }
            return DeleteControl.noFinalizerRemoval().rescheduleAfter(TEARDOWN_POLL_MILLIS);
        } catch (KubernetesClientException e) {
            events.warning(profile, "CleanupFailed", "Could not delete what the profile created: " + e.getMessage());
            throw e;
        }
    }

    /** How many profiles this operator instance has last seen Ready (true) and not Ready (false). */
    public long profilesWithReady(boolean ready) {
        return readiness.values().stream().filter(r -> r == ready).count();
    }
}
