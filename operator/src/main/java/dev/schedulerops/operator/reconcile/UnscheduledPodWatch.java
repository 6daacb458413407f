package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells pods that no scheduler will take them why ({@link UnscheduledPods}): one Warning event per pod and cause. It
 * watches only pods without a node and not of the default scheduler (field selectors {@code spec.nodeName=} and
 * {@code spec.schedulerName!=default-scheduler}, cluster-wide, applied by the API server): a pod leaves the cache as
 * soon as it is bound, so the cache holds what is Pending for a secondary scheduler, not the cluster's pods, and each
 * such pod costs two watch events in its life (created, bound). Its cache keeps only the fields the diagnosis reads.
 * The informer is one of the reconciler's event sources, so it runs only on the leader; its events reconcile no
 * profile. Every {@link Settings#period} the watch looks at what is cached.
 */
public final class UnscheduledPodWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UnscheduledPodWatch.class);

    /** At most this many events per look, so that a typo in a large Deployment does not flood the API server. */
    static final int MAX_EVENTS_PER_LOOK = 100;

    /** How many deleted profiles are remembered (a pod naming one is told it was deleted). */
    static final int REMEMBERED_DELETIONS = 1000;

    /**
     * @param enabled whether pods are watched at all (it needs list/watch on pods and create on events in every
     *     namespace)
     * @param grace how long a pod waits, and how long a cause must last, before the pod is told: a scheduler may be
     *     starting, a profile rolling out or a scheduler pod restarting
     * @param ignoredSchedulers schedulerNames of other schedulers in the cluster (Volcano, YuniKorn, ...) whose pods are
     *     never told anything: such a scheduler may leave a queued pod without a PodScheduled condition for long
     */
    public record Settings(boolean enabled, Duration grace, Set<String> ignoredSchedulers) {
        public static final Duration DEFAULT_GRACE = Duration.ofSeconds(60);

        public Settings {
            ignoredSchedulers = Set.copyOf(ignoredSchedulers);
        }

        public Settings(boolean enabled, Duration grace) {
            this(enabled, grace, Set.of());
        }

        public static Settings off() {
            return new Settings(false, DEFAULT_GRACE);
        }

        /** How often the cached pods are looked at: half the grace, between 1 and 10 seconds. */
        Duration period() {
            long millis = Math.max(1000, Math.min(10_000, grace.toMillis() / 2));
            return Duration.ofMillis(millis);
        }
    }

    private final Supplier<List<Pod>> pods;
    private final Supplier<List<SchedulerProfile>> profiles;
    private final Supplier<Set<String>> allSchedulerNames;
    private final BiFunction<Pod, UnscheduledPods.Diagnosis, PodEvents.Outcome> events;
    private final ProfileMetrics metrics;
    private final Settings settings;
    private final boolean seesAllProfiles;
    private final Clock clock;
    private final Map<String, Set<UnscheduledPods.Cause>> told = new ConcurrentHashMap<>();
    /** When each pod was first seen with its current cause: a cause must last the grace before the pod is told. */
    private final Map<String, Map.Entry<UnscheduledPods.Cause, Instant>> since = new ConcurrentHashMap<>();

    private volatile Instant lastFailureLogged = Instant.EPOCH;
    private final Map<String, String> deleted = java.util.Collections.synchronizedMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED_DELETIONS;
        }
    });
    private final ScheduledExecutorService looks = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "unscheduled-pods");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param pods the pods without a node, as the informer has them; null while it does not run (a standby)
     * @param profiles the profiles this operator reconciles
     * @param allSchedulerNames the schedulerNames of every profile in the cluster, asked only when the operator does not
     *     see them all ({@code seesAllProfiles} false) and a pod names none of its own
     * @param events records one event, see {@link PodEvents#warn}
     */
    UnscheduledPodWatch(
            Supplier<List<Pod>> pods,
            Supplier<List<SchedulerProfile>> profiles,
            Supplier<Set<String>> allSchedulerNames,
            BiFunction<Pod, UnscheduledPods.Diagnosis, PodEvents.Outcome> events,
            ProfileMetrics metrics,
            Settings settings,
            boolean seesAllProfiles,
            Clock clock) {
        this.pods = pods;
        this.profiles = profiles;
        this.allSchedulerNames = allSchedulerNames;
        this.events = events;
        this.metrics = metrics;
        this.settings = settings;
        this.seesAllProfiles = seesAllProfiles;
        this.clock = clock;
    }

    /** The informer on pods without a node, in every namespace; its events reconcile no profile. */
    static InformerEventSource<Pod, SchedulerProfile> informer(EventSourceContext<SchedulerProfile> context) {
        InformerEventSourceConfiguration<Pod> config = InformerEventSourceConfiguration.from(
                        Pod.class, SchedulerProfile.class)
                .withName("unscheduled-pods")
                .withWatchAllNamespaces()
                .withFieldSelector(new FieldSelector(
                        new FieldSelector.Field("spec.nodeName", ""),
                        new FieldSelector.Field("spec.schedulerName", Names.DEFAULT_SCHEDULER, true)))
                .withItemStore(new PendingPodStore())
                .withSecondaryToPrimaryMapper(pod -> Set.of())
                .build();
        return new InformerEventSource<>(config, context);
    }

    void start() {
        long period = settings.period().toMillis();
        looks.scheduleWithFixedDelay(this::lookSafely, period, period, TimeUnit.MILLISECONDS);
    }

    /** A profile is gone: pods that still name its schedulerName are told so. */
    void deleted(SchedulerProfile profile) {
        deleted.put(profile.effectiveSchedulerName(), profile.getMetadata().getName());
    }

    private void lookSafely() {
        try {
            look();
        } catch (RuntimeException e) {
            Instant now = clock.instant();
            if (Duration.between(lastFailureLogged, now).compareTo(Duration.ofMinutes(1)) >= 0) {
                lastFailureLogged = now;
                LOG.warn("could not look at unscheduled pods (logged at most once a minute): {}", e.toString());
            }
        }
    }

    /** Diagnoses every cached pod and records the events not recorded yet; nothing while the informer does not run. */
    void look() {
        List<Pod> cached = pods.get();
        if (cached == null) {
            return;
        }
        Instant now = clock.instant();
        Predicate<String> elsewhere = seesAllProfiles ? name -> false : askedOnce(allSchedulerNames);
        UnscheduledPods.Known known = new UnscheduledPods.Known(profiles.get(), deletedSnapshot(), elsewhere);
        Map<UnscheduledPods.Cause, Long> counts = new EnumMap<>(UnscheduledPods.Cause.class);
        for (UnscheduledPods.Cause cause : UnscheduledPods.Cause.values()) {
            counts.put(cause, 0L);
        }
        Set<String> present = new HashSet<>();
        int recorded = 0;
        for (Pod pod : cached) {
            if (settings.ignoredSchedulers().contains(pod.getSpec().getSchedulerName())) {
                continue;
            }
            String uid = pod.getMetadata().getUid();
            present.add(uid);
            // The grace is counted from when this cause was first seen, below, not from the pod's creation: a pod
            // waiting for hours must not be told at once when its profile's scheduler restarts.
            var diagnosis = UnscheduledPods.diagnose(pod, known, now, Duration.ZERO);
            if (diagnosis.isEmpty()) {
                since.remove(uid);
                continue;
            }
            UnscheduledPods.Cause cause = diagnosis.get().cause();
            Map.Entry<UnscheduledPods.Cause, Instant> first = since.compute(
                    uid, (k, seen) -> seen != null && seen.getKey() == cause ? seen : Map.entry(cause, now));
            if (Duration.between(first.getValue(), now).compareTo(settings.grace()) < 0) {
                // The cause is new: a profile's scheduler pod restarting is not-Ready for a moment.
                continue;
            }
            counts.merge(cause, 1L, Long::sum);
            // Only this watch's one thread looks, so the set itself needs no lock.
            Set<UnscheduledPods.Cause> causes =
                    told.computeIfAbsent(uid, k -> EnumSet.noneOf(UnscheduledPods.Cause.class));
            if (causes.contains(cause) || recorded >= MAX_EVENTS_PER_LOOK) {
                continue;
            }
            recorded++;
            PodEvents.Outcome outcome = events.apply(pod, diagnosis.get());
            if (outcome != PodEvents.Outcome.FAILED) {
                causes.add(cause);
            }
            if (outcome == PodEvents.Outcome.RECORDED) {
                metrics.podWarned(cause);
            }
        }
        told.keySet().retainAll(present);
        since.keySet().retainAll(present);
        metrics.unscheduledPods(counts);
    }

    /** Membership in what {@code names} supplies, asked at most once (per look), and only if needed. */
    private static Predicate<String> askedOnce(Supplier<Set<String>> names) {
        return new Predicate<>() {
            private Set<String> asked;

            @Override
            public boolean test(String name) {
                if (asked == null) {
                    asked = names.get();
                }
                return asked.contains(name);
            }
        };
    }

    private Map<String, String> deletedSnapshot() {
        synchronized (deleted) {
            return Map.copyOf(deleted);
        }
    }

    @Override
    public void close() {
        looks.shutdownNow();
    }

    /**
     * Keeps of each pod only what {@link UnscheduledPods} reads: its identity and age, schedulerName, node, scheduling
     * gates, phase and PodScheduled condition. A Pending pod's spec (containers, volumes, env) can be large, and a
     * cluster can hold many Pending pods at once.
     */
    static final class PendingPodStore extends BasicItemStore<Pod> {
        PendingPodStore() {
            super(Cache::metaNamespaceKeyFunc);
        }

        @Override
        public Pod put(String key, Pod pod) {
            return super.put(key, lean(pod));
        }

        static Pod lean(Pod pod) {
            var metadata = pod.getMetadata();
            var spec = pod.getSpec();
            var status = pod.getStatus();
            Pod lean = new Pod();
            lean.setApiVersion(pod.getApiVersion());
            lean.setKind(pod.getKind());
            lean.setMetadata(new ObjectMetaBuilder()
                    .withName(metadata.getName())
                    .withNamespace(metadata.getNamespace())
                    .withUid(metadata.getUid())
                    .withResourceVersion(metadata.getResourceVersion())
                    .withCreationTimestamp(metadata.getCreationTimestamp())
                    .withDeletionTimestamp(metadata.getDeletionTimestamp())
                    .build());
            if (spec != null) {
                lean.setSpec(new PodSpecBuilder()
                        .withSchedulerName(spec.getSchedulerName())
                        .withNodeName(spec.getNodeName())
                        .withSchedulingGates(spec.getSchedulingGates())
                        .withContainers(List.of())
                        .build());
            }
            if (status != null) {
                lean.setStatus(new PodStatusBuilder()
                        .withPhase(status.getPhase())
                        .withConditions(
                                status.getConditions() == null
                                        ? List.of()
                                        : status.getConditions().stream()
                                                .filter(c -> "PodScheduled".equals(c.getType()))
                                                .toList())
                        .build());
            }
            return lean;
        }
    }
}
