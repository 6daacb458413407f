package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileStatus;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.model.TlsFacts;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.tls.CertificateIssuer;
import dev.schedulerops.operator.validation.GoDuration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a SchedulerProfile into what {@link ProfileRenderer} says it becomes, in seven steps that read top to
 * bottom in {@link #reconcile}: observe (the Deployments, their pods and the labelled nodes, from the informer caches), validate
 * (render, and refuse a schedulerName another profile holds), write the TLS Secrets ({@link ProfileTls}: their
 * hashes go into a second render, so new certificates roll the pods), apply stage 1, gate (the extender Deployment Available
 * at its current generation), apply stage 2 ({@link ProfileRollout} does those three), record the status
 * ({@link ProfileStatusRecorder}, the one writer of the status).
 *
 * <p>Design: a small hand-written ordered applier rather than JOSDK dependent resources. The renderer already yields
 * the objects split into two stages, and the rules between the stages (stage 2 only once the extender Deployment is
 * Available at its current generation; an invalid profile touches nothing, whereas a reconcile precondition would
 * delete dependents) are plain code instead of workflow conditions. Every reconcile server-side applies stage 1 with
 * {@code force}, then stage 2 if the extender is available; unchanged objects are server-side no-ops. Informers on
 * every {@link OwnedKind} ({@link OwnedInformers}) reconcile the profile on any change to its objects, so a hand edit
 * or deletion is put back at once. A refused apply ends in the status (Ready and Stalled with reason ApplyFailed) and
 * a Warning event, then is rethrown so that JOSDK retries with backoff. Deletion is a {@link Cleaner}
 * ({@link ProfileTeardown}) that goes in reverse order.
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

    /** Re-check a profile waiting for a rollout slot, should the wake-up at its turn be missed. */
    static final Duration SLOT_RECHECK = Duration.ofSeconds(60);

    static final long TEARDOWN_POLL_MILLIS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(SchedulerProfileReconciler.class);

    private volatile ClusterFacts facts;
    private final ProfileEvents events;
    private final ProtectedNamespaces protectedNamespaces;
    private final RolloutSlots slots;
    private final ProfileMetrics metrics;
    private volatile OwnedInformers informers;
    private volatile ProfileRollout rollout;
    private volatile ProfileTls tls;
    private volatile ProfileStatusRecorder statuses;
    private volatile ProfileTeardown teardown;
    private volatile SimpleInboundEventSource<SchedulerProfile> wakeUps;
    private volatile IndexerResourceCache<SchedulerProfile> profiles;
    private final UnscheduledPodWatch.Settings podEventSettings;
    private final boolean seesAllProfiles;
    private volatile UnscheduledPodWatch podWatch;
    /** Set before JOSDK stops: its informers' caches are cleared then, and a reconcile must not act on them. */
    private final AtomicBoolean stopping = new AtomicBoolean();

    /** A reconciler that protects {@link ProtectedNamespaces#DEFAULT} and rolls {@link RolloutSlots#DEFAULT_MAX}. */
    public SchedulerProfileReconciler(ClusterFacts facts, ProfileEvents events) {
        this(facts, events, ProtectedNamespaces.defaults(), new RolloutSlots(RolloutSlots.DEFAULT_MAX));
    }

    public SchedulerProfileReconciler(
            ClusterFacts facts, ProfileEvents events, ProtectedNamespaces protectedNamespaces, RolloutSlots slots) {
        this(facts, events, protectedNamespaces, slots, new ProfileMetrics());
    }

    /** @param metrics where the reconciler leaves what {@code /metrics} shows of the profiles and its work */
    public SchedulerProfileReconciler(
            ClusterFacts facts,
            ProfileEvents events,
            ProtectedNamespaces protectedNamespaces,
            RolloutSlots slots,
            ProfileMetrics metrics) {
        this(facts, events, protectedNamespaces, slots, metrics, UnscheduledPodWatch.Settings.off(), true);
    }

    /**
     * @param podEvents whether, and after how long, pods that no scheduler will take are told why
     * @param seesAllProfiles false when only the profiles of a label selector are reconciled (another operator may
     *     have the profile a pod names)
     */
    public SchedulerProfileReconciler(
            ClusterFacts facts,
            ProfileEvents events,
            ProtectedNamespaces protectedNamespaces,
            RolloutSlots slots,
            ProfileMetrics metrics,
            UnscheduledPodWatch.Settings podEvents,
            boolean seesAllProfiles) {
        this.facts = facts;
        this.events = events;
        this.protectedNamespaces = protectedNamespaces;
        this.slots = slots;
        this.metrics = metrics;
        this.podEventSettings = podEvents;
        this.seesAllProfiles = seesAllProfiles;
    }

    @Override
    public List<EventSource<?, SchedulerProfile>> prepareEventSources(EventSourceContext<SchedulerProfile> context) {
        informers = OwnedInformers.create(context, facts.workloadNamespace());
        ResourceApplier applier = new ResourceApplier(context.getClient(), informers, stopping::get);
        rollout = new ProfileRollout(applier, events, slots);
        KubernetesClient client = context.getClient();
        tls = new ProfileTls(
                applier,
                informers,
                (name, namespace) ->
                        client.secrets().inNamespace(namespace).withName(name).get(),
                events,
                new CertificateIssuer(),
                Clock.systemUTC(),
                metrics);
        statuses = new ProfileStatusRecorder(context.getClient(), events, Clock.systemUTC());
        teardown = new ProfileTeardown(context.getClient(), facts.workloadNamespace());
        profiles = context.getPrimaryCache();
        wakeUps = new SimpleInboundEventSource<>("wake-ups");
        slots.onTurn(wakeUps::propagateEvent);
        List<EventSource<?, SchedulerProfile>> sources = new ArrayList<>(informers.eventSources());
        sources.add(wakeUps);
        if (podEventSettings.enabled()) {
            sources.add(watchUnscheduledPods(context));
        }
        return sources;
    }

    @Override
    public UpdateControl<SchedulerProfile> reconcile(SchedulerProfile profile, Context<SchedulerProfile> context) {
        if (stopping.get()) {
            return UpdateControl.noUpdate(); // the next leader reconciles it
        }
        try {
            return reconcileWhileRunning(profile, context);
        } catch (ResourceApplier.Stopping e) {
            LOG.info("stopped reconciling {} before its next write: the operator is stopping", e.getMessage());
            return UpdateControl.noUpdate();
        }
    }

    private UpdateControl<SchedulerProfile> reconcileWhileRunning(
            SchedulerProfile profile, Context<SchedulerProfile> context) {
        // Observe: what runs now.
        Names names = new Names(profile.getMetadata().getName(), facts.workloadNamespace());
        Deployment observedExtender = cachedDeployment(names.extender(), names.namespace());
        Deployment observedScheduler = cachedDeployment(names.scheduler(), names.namespace());
        String labelKey = profile.getSpec() == null ? null : profile.getSpec().getLabelKey();
        int labelledNodes = labelKey == null ? 0 : (int) informers.nodesLabelled(labelKey);

        // Validate: refuse a protected workload namespace, render (which validates, and refuses images the installation
        // does not allow), and refuse a schedulerName an older profile holds.
        ClusterFacts factsNow = currentFacts();
        RenderResult rendered = render(profile, factsNow);
        Optional<SchedulerNameConflicts.Conflict> conflict = SchedulerNameConflicts.conflictOf(
                profile, context.getPrimaryCache().list().toList());

        // Apply stage 1, gate, apply stage 2: only a valid, unrefused profile touches anything.
        ProfileRollout.Result result = ProfileRollout.Result.unchanged(observedExtender, observedScheduler);
        if (conflict.isEmpty() && rendered instanceof RenderResult.Valid) {
            // TLS: the Secrets are written before stage 1, and the hashes of what they hold roll the pods.
            try {
                TlsFacts tlsFacts = tls.ensure(
                        profile,
                        ResolvedProfile.of(profile, factsNow.workloadNamespace()),
                        observedExtender,
                        observedScheduler);
                rendered = ProfileRenderer.render(profile, factsNow, tlsFacts);
            } catch (ProfileTls.Refused refused) {
                LOG.warn("{}", refused.failure().message());
                result = ProfileRollout.Result.failed(observedExtender, observedScheduler, refused.failure());
            }
            if (result.failure().isEmpty() && rendered instanceof RenderResult.Valid valid) {
                result = rollout.applyInTurn(profile, valid.state(), observedExtender, observedScheduler);
            }
        } else {
            slots.release(ResourceID.fromResource(profile)); // nothing is rolled out for an invalid or refused profile
        }

        // Record the status.
        if (stopping.get()) {
            return UpdateControl.noUpdate(); // a status from an emptied cache would be wrong; the next leader writes it
        }
        SchedulerProfileStatus status = statuses.record(
                profile,
                new ProfileStatuses.Observation(
                        profile.getMetadata().getGeneration() == null
                                ? 0
                                : profile.getMetadata().getGeneration(),
                        profile.effectiveSchedulerName(),
                        rendered,
                        conflict,
                        result.failure(),
                        result.waitingForSlot(),
                        result.extender(),
                        result.scheduler(),
                        labelledNodes,
                        informers.podsOf(names, Labels.COMPONENT_EXTENDER),
                        informers.podsOf(names, Labels.COMPONENT_SCHEDULER)));
        metrics.recorded(
                names.profile(),
                ProfileStatuses.isTrue(status.getConditions(), ProfileStatuses.READY),
                ProfileStatuses.find(status.getConditions(), ProfileStatuses.READY)
                        .map(c -> c.getReason())
                        .orElse(null),
                labelledNodes,
                extenderHttpTimeoutSeconds(profile, rendered, factsNow));

        if (result.failure().isPresent()) {
            metrics.applyFailed(result.failure().get());
            throw result.failure().get().cause(); // JOSDK retries with backoff
        }
        UpdateControl<SchedulerProfile> control = UpdateControl.noUpdate();
        if (conflict.isPresent()) {
            control.rescheduleAfter(RECHECK);
        } else if (result.waitingForSlot()) {
            control.rescheduleAfter(SLOT_RECHECK); // RolloutSlots wakes it at its turn; this is the safety net
        }
        return control;
    }

    /** The scheduler's timeout for each call to the bundled extender, when the profile renders and runs one. */
    private static OptionalDouble extenderHttpTimeoutSeconds(
            SchedulerProfile profile, RenderResult rendered, ClusterFacts factsNow) {
        if (rendered instanceof RenderResult.Valid valid && valid.state().bundledExtender()) {
            return GoDuration.parseNanos(ResolvedProfile.of(profile, factsNow.workloadNamespace())
                            .extender()
                            .httpTimeout())
                    .map(nanos -> OptionalDouble.of(nanos / 1e9))
                    .orElse(OptionalDouble.empty());
        }
        return OptionalDouble.empty();
    }

    /**
     * The cluster's Kubernetes version changed (a control-plane upgrade): every profile is reconciled with it, which
     * rolls the schedulers to the image of the new version, throttled by the rollout slots.
     */
    public void clusterVersionChanged(String kubernetesVersion) {
        facts = facts.withKubernetesVersion(kubernetesVersion);
        IndexerResourceCache<SchedulerProfile> cached = profiles;
        SimpleInboundEventSource<SchedulerProfile> wake = wakeUps;
        if (cached != null && wake != null) {
            cached.list().map(ResourceID::fromResource).forEach(wake::propagateEvent);
        }
    }

    /**
     * What the profile renders to, or, when the installer chose a protected namespace as the workload namespace, a
     * refusal that touches nothing.
     */
    RenderResult render(SchedulerProfile profile) {
        return render(profile, currentFacts());
    }

    private RenderResult render(SchedulerProfile profile, ClusterFacts factsNow) {
        Optional<String> refusal = protectedNamespaces.refusal(factsNow.workloadNamespace());
        if (refusal.isPresent()) {
            return new RenderResult.Invalid(List.of(refusal.get()), RenderResult.Refusal.PROTECTED_NAMESPACE);
        }
        return ProfileRenderer.render(profile, factsNow);
    }

    /**
     * The start-up facts with the cluster's node count now (it decides whether replicas must spread over nodes) and where
     * pods reach the API server (the extenders' egress).
     */
    private ClusterFacts currentFacts() {
        OwnedInformers current = informers;
        return current == null
                ? facts
                : facts.withNodes(current.nodeCount()).withApiServer(current.apiServerEndpoints());
    }

    private EventSource<?, SchedulerProfile> watchUnscheduledPods(EventSourceContext<SchedulerProfile> context) {
        var unscheduled = UnscheduledPodWatch.informer(context);
        IndexerResourceCache<SchedulerProfile> cache = context.getPrimaryCache();
        var client = context.getClient();
        PodEvents podEvents = new PodEvents(client, events.instance());
        podWatch = new UnscheduledPodWatch(
                // JOSDK prepares event sources on standbys too, and starts them only on the leader.
                () -> unscheduled.isRunning() ? unscheduled.list(pod -> true).toList() : null,
                () -> cache.list().toList(),
                () -> client.resources(SchedulerProfile.class).list().getItems().stream()
                        .map(SchedulerProfile::effectiveSchedulerName)
                        .collect(Collectors.toSet()),
                podEvents::warn,
                metrics,
                podEventSettings,
                seesAllProfiles,
                Clock.systemUTC());
        podWatch.start();
        return unscheduled;
    }

    private Deployment cachedDeployment(String name, String namespace) {
        return informers
                .cached(Deployment.class, new ResourceID(name, namespace))
                .orElse(null);
    }

    @Override
    public DeleteControl cleanup(SchedulerProfile profile, Context<SchedulerProfile> context) {
        if (stopping.get()) {
            return DeleteControl.noFinalizerRemoval(); // the next leader finishes the teardown
        }
        statuses.forget(profile);
        slots.release(ResourceID.fromResource(profile));
        try {
            if (teardown.advance(profile)) {
                LOG.info("everything of {} is deleted", profile.getMetadata().getName());
                metrics.forget(profile.getMetadata().getName());
                UnscheduledPodWatch watch = podWatch;
                if (watch != null) {
                    watch.deleted(profile);
                }
                return DeleteControl.defaultDelete();
            }
            return DeleteControl.noFinalizerRemoval().rescheduleAfter(TEARDOWN_POLL_MILLIS);
        } catch (KubernetesClientException e) {
            events.warning(profile, "CleanupFailed", "Could not delete what the profile created: " + e.getMessage());
            throw e;
        }
    }

    /** The Kubernetes version the operator renders for (the API server's, read again every few minutes). */
    public String kubernetesVersion() {
        return facts.kubernetesVersion();
    }

    /** How many objects of {@code kind} the operator's informers cache (what a flood of labelled objects would grow). */
    public long cachedObjects(OwnedKind kind) {
        OwnedInformers current = informers;
        return current == null ? 0 : current.cachedCount(kind);
    }

    /**
     * Called before JOSDK stops: from now on no reconcile starts, and a running one writes nothing more. JOSDK clears
     * its informers' caches as it stops them, and a reconcile still running would take every object for absent: a
     * missing CA, for one, means a new CA that no running pod trusts.
     */
    public void stopping() {
        stopping.set(true);
    }

    /** Stops looking at unscheduled pods. */
    public void close() {
        UnscheduledPodWatch watch = podWatch;
        if (watch != null) {
            watch.close();
        }
    }

    /** How many profiles this operator instance has last seen Ready (true) and not Ready (false). */
    public long profilesWithReady(boolean ready) {
        ProfileStatusRecorder recorder = statuses;
        return recorder == null ? 0 : recorder.profilesWithReady(ready);
    }
}
