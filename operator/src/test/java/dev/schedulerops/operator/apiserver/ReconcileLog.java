package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the shared operator's reconciler did, per profile, as JOSDK reports it to its {@link Metrics}: every event
 * handed to it for a profile (from the profile itself or any of its informers: a node label, a Deployment's status),
 * and every reconcile, with the {@link #TOUCH} the profile's extender Deployment carried in the operator's cache when
 * the reconcile started. A negative check waits on this log rather than on time: for what a profile was given to
 * decide on ({@link Tier#reconciledAsOfNow}), or for the event that would have started the thing it excludes.
 */
final class ReconcileLog implements Metrics {
    /** A label of the tests' on an extender Deployment: the operator neither sets nor removes it. */
    static final String TOUCH = "test.example.com/touch";

    /** Something the log saw: a sequence number orders entries across profiles. */
    record Entry(long sequence, String profile, Kind kind, String touch) {}

    enum Kind {
        EVENT,
        RECONCILE_FINISHED,
        RECONCILE_FAILED
    }

    private final String workloadNamespace;
    private final AtomicLong sequence = new AtomicLong();
    private final List<Entry> entries = new ArrayList<>();
    /** The touch each running reconcile started with, by thread (JOSDK runs a reconcile on one executor thread). */
    private final Map<Thread, String> startedWith = new ConcurrentHashMap<>();

    private volatile Controller<? extends HasMetadata> controller;
    private volatile InformerEventSource<Deployment, ?> deployments;

    ReconcileLog(String workloadNamespace) {
        this.workloadNamespace = workloadNamespace;
    }

    @Override
    public void controllerRegistered(Controller<? extends HasMetadata> controller) {
        this.controller = controller;
    }

    @Override
    public void receivedEvent(Event event, Map<String, Object> metadata) {
        add(event.getRelatedCustomResourceID().getName(), Kind.EVENT, null);
    }

    @Override
    public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
        startedWith.put(Thread.currentThread(), touchOf(resource.getMetadata().getName()));
    }

    @Override
    public void failedReconciliation(HasMetadata resource, Exception exception, Map<String, Object> metadata) {
        add(resource.getMetadata().getName(), Kind.RECONCILE_FAILED, null);
    }

    @Override
    public void reconciliationExecutionFinished(HasMetadata resource, Map<String, Object> metadata) {
        String touch = startedWith.remove(Thread.currentThread());
        add(resource.getMetadata().getName(), Kind.RECONCILE_FINISHED, touch == null ? "" : touch);
    }

    /** The touch on the profile's extender Deployment as the operator's cache holds it now ("" for none). */
    @SuppressWarnings("unchecked")
    private String touchOf(String profile) {
        InformerEventSource<Deployment, ?> informer = deployments;
        if (informer == null) {
            // The reconciler's informer on Deployments (OwnedInformers names each after its kind), registered after
            // the controller.
            informer = (InformerEventSource<Deployment, ?>)
                    controller.getEventSourceManager().getEventSourceFor(Deployment.class, "deployment");
            deployments = informer;
        }
        Optional<Deployment> cached =
                informer.get(new ResourceID(new Names(profile, workloadNamespace).extender(), workloadNamespace));
        return cached.map(d -> d.getMetadata().getLabels())
                .map(a -> a.getOrDefault(TOUCH, ""))
                .orElse("");
    }

    private synchronized void add(String profile, Kind kind, String touch) {
        entries.add(new Entry(sequence.incrementAndGet(), profile, kind, touch));
    }

    /** A mark: {@link #since} returns what came after it. */
    long mark() {
        return sequence.get();
    }

    synchronized List<Entry> since(long mark) {
        return entries.stream().filter(e -> e.sequence() > mark).toList();
    }

    /** Events handed to the reconciler for {@code profile} after {@code mark}. */
    long eventsSince(long mark, String profile) {
        return since(mark).stream()
                .filter(e -> e.kind() == Kind.EVENT && e.profile().equals(profile))
                .count();
    }

    /** Reconciles of {@code profile} that ended in an exception after {@code mark}. */
    long failuresSince(long mark, String profile) {
        return since(mark).stream()
                .filter(e -> e.kind() == Kind.RECONCILE_FAILED && e.profile().equals(profile))
                .count();
    }

    /** Whether a reconcile of {@code profile} that started with {@code touch} in the operator's cache has finished. */
    synchronized boolean finishedWith(String profile, String touch) {
        return entries.stream()
                .anyMatch(e ->
                        e.kind() == Kind.RECONCILE_FINISHED && e.profile().equals(profile) && touch.equals(e.touch()));
    }
}
