package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.PreviewSpec;
import dev.schedulerops.operator.api.PreviewStatus;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfilePreview;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.preview.PreviewPlanner;
import dev.schedulerops.operator.preview.PreviewSettings;
import dev.schedulerops.operator.preview.SamplePods;
import dev.schedulerops.operator.preview.SandboxPlan;
import dev.schedulerops.operator.preview.SandboxPodRenderer;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers SchedulerProfilePreviews (only with previews turned on): plans the sandbox ({@link PreviewPlanner}: a
 * proposal the operator would refuse is refused here, with its messages, and nothing starts), runs it as one pod in
 * the workload namespace ({@link SandboxPodRenderer}), reads its answer from the pod's log ({@link SandboxOutcome}),
 * writes it into the preview's status, and deletes the pod: always, whether the sandbox succeeded, failed, could not
 * start or ran out of time. A finished preview nobody deleted goes after {@link PreviewSettings#ttlSeconds}. The pod
 * is owned by the preview, so deleting a preview while it runs removes the pod too (the garbage collector).
 */
@ControllerConfiguration(name = PreviewReconciler.NAME, fieldManager = ResourceApplier.FIELD_MANAGER)
public class PreviewReconciler implements Reconciler<SchedulerProfilePreview> {
    public static final String NAME = "schedulerprofilepreview";

    /** Looks again at a running sandbox at least this often (its pod's events usually come first). */
    static final Duration POLL = Duration.ofSeconds(2);

    /** Looks again at a preview waiting for a free sandbox slot. */
    static final Duration QUEUE_POLL = Duration.ofSeconds(5);
    /** How soon a reconcile given a stale copy of the preview looks again (see reconcile). */
    static final Duration STALE_CACHE_RETRY = Duration.ofMillis(500);

    private static final Logger LOG = LoggerFactory.getLogger(PreviewReconciler.class);

    private final Supplier<ClusterFacts> facts;
    private final PreviewSettings settings;
    private final Clock clock;
    /** Set by {@link #stopping}: no reconcile starts after it (JOSDK empties the caches as it stops). */
    private final AtomicBoolean stopping = new AtomicBoolean();

    /**
     * @param facts the cluster's facts now (its version follows the API server's)
     * @param settings images, limits and the sandbox's ServiceAccount
     */
    public PreviewReconciler(Supplier<ClusterFacts> facts, PreviewSettings settings, Clock clock) {
        this.facts = facts;
        this.settings = settings;
        this.clock = clock;
    }

    /** The sandbox pods, in the workload namespace; each maps to its preview by its label. */
    @Override
    public List<EventSource<?, SchedulerProfilePreview>> prepareEventSources(
            EventSourceContext<SchedulerProfilePreview> context) {
        InformerEventSourceConfiguration<Pod> pods = InformerEventSourceConfiguration.from(
                        Pod.class, SchedulerProfilePreview.class)
                .withName("preview-sandboxes")
                .withInformerListLimit(OwnedInformers.LIST_PAGE_SIZE)
                .withNamespaces(Set.of(facts.get().workloadNamespace()))
                .withLabelSelector(Labels.COMPONENT + "=" + Labels.COMPONENT_PREVIEW_SANDBOX)
                .withSecondaryToPrimaryMapper(PreviewReconciler::previewOf)
                .build();
        return List.of(new InformerEventSource<>(pods, context));
    }

    static Set<ResourceID> previewOf(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        String name = labels == null ? null : labels.get(Labels.PREVIEW);
        return name == null ? Set.of() : Set.of(new ResourceID(name));
    }

    /**
     * Called before JOSDK stops: from now on no preview reconcile starts (a reconcile that began on an emptied cache
     * would count no running preview and could start one beyond the limit). Unlike {@link
     * SchedulerProfileReconciler#stopping}, one already running finishes: its writes are a sandbox pod of a fixed name
     * (a second is refused) and the preview's own status, decided on live reads.
     */
    public void stopping() {
        stopping.set(true);
    }

    @Override
    public UpdateControl<SchedulerProfilePreview> reconcile(
            SchedulerProfilePreview preview, Context<SchedulerProfilePreview> context) {
        if (stopping.get()) {
            return UpdateControl.noUpdate(); // the next leader reconciles it
        }
        KubernetesClient client = context.getClient();
        PreviewStatus status = preview.getStatus() == null ? new PreviewStatus() : preview.getStatus();
        preview.setStatus(status);
        if (status.over()) {
            return finished(preview, client);
        }
        if (!PreviewStatus.RUNNING.equals(status.getPhase())) {
            if (staleInTheCache(preview, client)) {
                // Our own status write (RUNNING) has not reached the cache yet, and this reconcile was triggered by
                // the new pod's event: starting again would create a second sandbox pod should the first one be gone
                // meanwhile (deleted by someone). A status write's own event reconciles nothing (JOSDK filters
                // updates that keep the generation), so it looks again shortly, by then with what the cache holds.
                return UpdateControl.<SchedulerProfilePreview>noUpdate().rescheduleAfter(STALE_CACHE_RETRY);
            }
            return start(preview, context);
        }
        return watch(preview, client);
    }

    /** Whether the API server holds a newer version of the preview (or none) than the cache this reconcile was given. */
    private static boolean staleInTheCache(SchedulerProfilePreview cached, KubernetesClient client) {
        SchedulerProfilePreview current = client.resources(SchedulerProfilePreview.class)
                .withName(name(cached))
                .get();
        return current == null // deleted: nothing to start
                || !java.util.Objects.equals(
                        current.getMetadata().getResourceVersion(),
                        cached.getMetadata().getResourceVersion());
    }

    /** Plans the sandbox and starts its pod, or refuses, or waits for a free slot. */
    private UpdateControl<SchedulerProfilePreview> start(
            SchedulerProfilePreview preview, Context<SchedulerProfilePreview> context) {
        KubernetesClient client = context.getClient();
        ClusterFacts now = facts.get();
        PreviewPlanner.Outcome planned;
        try {
            planned = plan(preview, client, now);
        } catch (KubernetesClientException e) {
            throw e; // JOSDK retries
        }
        if (planned instanceof PreviewPlanner.Refused refused) {
            LOG.info("preview {} refused ({}): {}", name(preview), refused.reason(), refused.messages());
            return over(
                    preview, PreviewStatus.REFUSED, refused.reason() + ": " + String.join("; ", refused.messages()));
        }
        long running = context.getPrimaryCache()
                .list(p -> p.getStatus() != null
                        && PreviewStatus.RUNNING.equals(p.getStatus().getPhase())
                        && !p.getMetadata().getName().equals(name(preview)))
                .count();
        if (running >= settings.maxRunning()) {
            String message = "waiting: " + running + " preview(s) run, at most " + settings.maxRunning() + " at once";
            if (message.equals(preview.getStatus().getMessage())) {
                return UpdateControl.<SchedulerProfilePreview>noUpdate().rescheduleAfter(QUEUE_POLL);
            }
            preview.getStatus().setPhase(PreviewStatus.PENDING);
            preview.getStatus().setMessage(message);
            return UpdateControl.patchStatus(preview).rescheduleAfter(QUEUE_POLL);
        }
        SandboxPlan plan = ((PreviewPlanner.Planned) planned).plan();
        Pod pod = SandboxPodRenderer.render(
                plan,
                settings.images(now),
                podName(preview),
                now.workloadNamespace(),
                settings.sandboxServiceAccount(),
                owner(preview),
                labels(preview));
        try {
            client.pods().inNamespace(now.workloadNamespace()).resource(pod).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() >= 500 || e.getCode() == 0) {
                throw e; // the API server is unwell: JOSDK retries
            }
            if (e.getCode() != 409) {
                // Refused (its ServiceAccount missing, a quota, a policy): it would be refused again.
                return over(
                        preview,
                        PreviewStatus.FAILED,
                        "the API server refused the sandbox pod: "
                                + (e.getStatus() == null
                                        ? e.getMessage()
                                        : e.getStatus().getMessage()));
            }
        }
        LOG.info(
                "preview {}: sandbox pod {} started ({} run(s))",
                name(preview),
                podName(preview),
                plan.runs().size());
        PreviewStatus status = preview.getStatus();
        status.setPhase(PreviewStatus.RUNNING);
        status.setSandboxPod(podName(preview));
        status.setStartTime(clock.instant().toString());
        status.setMessage("the sandbox runs");
        return UpdateControl.patchStatus(preview).rescheduleAfter(POLL);
    }

    private PreviewPlanner.Outcome plan(SchedulerProfilePreview preview, KubernetesClient client, ClusterFacts now) {
        PreviewSpec spec = preview.getSpec();
        int timeout = spec.getTimeoutSeconds() == null ? PreviewSpec.DEFAULT_TIMEOUT_SECONDS : spec.getTimeoutSeconds();
        SandboxPlan.Limits limits = new SandboxPlan.Limits(
                timeout, SandboxPlan.Limits.DEFAULT.podTimeoutSeconds(), SandboxPlan.Limits.DEFAULT.probedNodes());
        if (spec.getExplain() != null) {
            if (spec.getPods() != null && !spec.getPods().isEmpty()) {
                return new PreviewPlanner.Refused(
                        "InvalidRequest",
                        List.of("spec.pods are sample pods for a proposal; an explanation replays the pod it names"));
            }
            PreviewSpec.ExplainTarget target = spec.getExplain();
            SchedulerProfile live = client.resources(SchedulerProfile.class)
                    .withName(target.getProfile())
                    .get();
            if (live == null) {
                return new PreviewPlanner.Refused(
                        "ProfileNotFound",
                        List.of("no SchedulerProfile " + target.getProfile() + " to explain the pod with"));
            }
            return PreviewPlanner.explain(live, target.getNamespace(), target.getName(), now, limits);
        }
        SchedulerProfile proposal = new SchedulerProfile();
        proposal.getMetadata().setName(spec.getProposal().getName());
        proposal.setSpec(spec.getProposal().getSpec());
        Optional<SchedulerProfile> live = Optional.ofNullable(client.resources(SchedulerProfile.class)
                .withName(spec.getProposal().getName())
                .get());
        List<com.fasterxml.jackson.databind.JsonNode> pods;
        try {
            pods = SamplePods.flatten(spec.getPods() == null ? List.of() : spec.getPods());
        } catch (java.io.IOException e) {
            return new PreviewPlanner.Refused("InvalidPods", List.of(e.getMessage()));
        }
        return PreviewPlanner.preview(proposal, live, pods, now, limits);
    }

    /** A running sandbox: its answer once the driver is done, or the failure that stops it, or its timeout. */
    private UpdateControl<SchedulerProfilePreview> watch(SchedulerProfilePreview preview, KubernetesClient client) {
        String namespace = facts.get().workloadNamespace();
        PreviewStatus status = preview.getStatus();
        Pod pod = client.pods()
                .inNamespace(namespace)
                .withName(status.getSandboxPod())
                .get();
        if (pod == null) {
            return over(preview, PreviewStatus.FAILED, "the sandbox pod " + status.getSandboxPod() + " is gone");
        }
        Optional<SandboxOutcome> outcome = SandboxOutcome.of(pod, container -> log(client, namespace, pod, container));
        if (outcome.isPresent()) {
            deletePod(client, namespace, status.getSandboxPod());
            return outcome.get().applyTo(preview, this);
        }
        Instant deadline = Instant.parse(status.getStartTime()).plusSeconds(timeout(preview));
        if (clock.instant().isAfter(deadline)) {
            deletePod(client, namespace, status.getSandboxPod());
            return over(
                    preview,
                    PreviewStatus.FAILED,
                    "timed out after " + timeout(preview) + " s (" + SandboxOutcome.progress(pod) + "); the sandbox"
                            + " was removed");
        }
        Optional<PodTrouble> trouble = PodTrouble.of(List.of(pod), "the installation's preview images");
        if (trouble.isPresent()) {
            deletePod(client, namespace, status.getSandboxPod());
            return over(
                    preview,
                    PreviewStatus.FAILED,
                    "the sandbox could not run (" + trouble.get().reason() + "): "
                            + trouble.get().message());
        }
        return UpdateControl.<SchedulerProfilePreview>noUpdate().rescheduleAfter(POLL);
    }

    private static String log(KubernetesClient client, String namespace, Pod pod, String container) {
        try {
            return client.pods()
                    .inNamespace(namespace)
                    .withName(pod.getMetadata().getName())
                    .inContainer(container)
                    .getLog();
        } catch (KubernetesClientException e) {
            return "";
        }
    }

    /** A finished preview: its pod is gone (again, should a delete have failed), and it goes after its time to live. */
    private UpdateControl<SchedulerProfilePreview> finished(SchedulerProfilePreview preview, KubernetesClient client) {
        String namespace = facts.get().workloadNamespace();
        if (preview.getStatus().getSandboxPod() != null
                && client.pods()
                                .inNamespace(namespace)
                                .withName(podName(preview))
                                .get()
                        != null) {
            deletePod(client, namespace, podName(preview));
        }
        Instant completed = preview.getStatus().getCompletionTime() == null
                ? clock.instant()
                : Instant.parse(preview.getStatus().getCompletionTime());
        Duration left = Duration.between(clock.instant(), completed.plusSeconds(settings.ttlSeconds()));
        if (left.isNegative() || left.isZero()) {
            LOG.info("preview {} finished {} s ago: deleted", name(preview), settings.ttlSeconds());
            client.resource(preview).delete();
            return UpdateControl.noUpdate();
        }
        return UpdateControl.<SchedulerProfilePreview>noUpdate().rescheduleAfter(left);
    }

    /** The preview is over: Done=True with the phase as reason, and nothing of the sandbox is left. */
    UpdateControl<SchedulerProfilePreview> over(SchedulerProfilePreview preview, String phase, String message) {
        PreviewStatus status = preview.getStatus();
        status.setPhase(phase);
        status.setMessage(message);
        status.setCompletionTime(clock.instant().toString());
        status.setSandboxPod(null);
        io.fabric8.kubernetes.api.model.Condition done = new io.fabric8.kubernetes.api.model.Condition();
        done.setType(PreviewStatus.DONE);
        done.setStatus("True");
        done.setReason(phase);
        done.setMessage(message.length() > 1000 ? message.substring(0, 1000) + "..." : message);
        done.setLastTransitionTime(clock.instant().toString());
        done.setObservedGeneration(preview.getMetadata().getGeneration());
        status.setConditions(List.of(done));
        LOG.info("preview {}: {}: {}", name(preview), phase, status.getMessage());
        return UpdateControl.patchStatus(preview).rescheduleAfter(Duration.ofSeconds(settings.ttlSeconds()));
    }

    private static void deletePod(KubernetesClient client, String namespace, String pod) {
        try {
            client.pods().inNamespace(namespace).withName(pod).delete();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    private int timeout(SchedulerProfilePreview preview) {
        Integer timeout = preview.getSpec().getTimeoutSeconds();
        return timeout == null ? PreviewSpec.DEFAULT_TIMEOUT_SECONDS : timeout;
    }

    static String podName(SchedulerProfilePreview preview) {
        String name = preview.getMetadata().getName();
        String suffix = "-sandbox";
        return (name.length() + suffix.length() > 63 ? name.substring(0, 63 - suffix.length()) : name) + suffix;
    }

    private static String name(SchedulerProfilePreview preview) {
        return preview.getMetadata().getName();
    }

    private static OwnerReference owner(SchedulerProfilePreview preview) {
        OwnerReference owner = new OwnerReference();
        owner.setApiVersion(SchedulerProfilePreview.API_VERSION);
        owner.setKind(SchedulerProfilePreview.KIND);
        owner.setName(preview.getMetadata().getName());
        owner.setUid(preview.getMetadata().getUid());
        owner.setController(true);
        return owner;
    }

    private static Map<String, String> labels(SchedulerProfilePreview preview) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(Labels.PART_OF, Labels.PART_OF_VALUE);
        labels.put(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE);
        labels.put(Labels.COMPONENT, Labels.COMPONENT_PREVIEW_SANDBOX);
        labels.put(Labels.PREVIEW, preview.getMetadata().getName());
        return labels;
    }
}
