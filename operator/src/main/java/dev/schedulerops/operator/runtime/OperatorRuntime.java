package dev.schedulerops.operator.runtime;

import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.reconcile.LeanItemStore;
import dev.schedulerops.operator.reconcile.OwnedInformers;
import dev.schedulerops.operator.reconcile.OwnedKind;
import dev.schedulerops.operator.reconcile.PreviewReconciler;
import dev.schedulerops.operator.reconcile.ProfileEvents;
import dev.schedulerops.operator.reconcile.ProfileMetrics;
import dev.schedulerops.operator.reconcile.ProtectedNamespaces;
import dev.schedulerops.operator.reconcile.RolloutSlots;
import dev.schedulerops.operator.reconcile.SchedulerProfileReconciler;
import dev.schedulerops.operator.reconcile.UnscheduledPods;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running operator: the JOSDK {@link Operator} with the SchedulerProfile reconciler, leader election, metrics and
 * the HTTP endpoints. {@link #close()} stops it gracefully (the shutdown hook of {@code run} calls it).
 */
public final class OperatorRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorRuntime.class);

    private final Operator operator;
    private final HttpEndpoints endpoints;
    private final PrometheusMeterRegistry registry;
    private final JvmGcMetrics gcMetrics;
    private final ClusterVersionWatch versionWatch;
    private final SchedulerLeaseWatch schedulerLeases;
    /** The previews' reconciler, when previews are on. */
    private PreviewReconciler previews;

    private final long versionCheckSeconds;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean failed = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * How long an operator replica keeps handing over schedulers' leases while it stops
     * ({@link SchedulerLeaseWatch#handOverWhileStopping}): at least the spread of a drain's evictions, at most well
     * inside the pod's 30 s termination grace period.
     */
    static final java.time.Duration HAND_OVER_WHILE_STOPPING_MIN = java.time.Duration.ofSeconds(3);

    static final java.time.Duration HAND_OVER_WHILE_STOPPING_MAX = java.time.Duration.ofSeconds(10);

    /**
     * How long a stopping operator lets its running reconciles return (a reconcile takes well under a second, and one
     * of a profile writes nothing more once the operator stops). JOSDK stops renewing the leader lease as this wait
     * begins (it shuts down the elector's executor with the reconcilers'), so the wait, {@link #INTERRUPTED_RECONCILES_END_WITHIN}
     * and the last renewal's age (a retry period at most) must stay well inside the lease's duration: the lease still
     * protects this operator's last writes from the next leader's ({@code GracefulStopTest}). With the hand-over's
     * {@link #HAND_OVER_WHILE_STOPPING_MAX} after them, the stop stays inside the pod's 30 s grace period.
     */
    static final java.time.Duration RECONCILES_FINISH_WITHIN = java.time.Duration.ofSeconds(5);

    /** How long a reconcile JOSDK interrupted after {@link #RECONCILES_FINISH_WITHIN} gets to end. */
    static final java.time.Duration INTERRUPTED_RECONCILES_END_WITHIN = java.time.Duration.ofSeconds(2);

    /** Whether this instance leads: set when it takes the lease, or at once without leader election. */
    private final AtomicBoolean leading = new AtomicBoolean();

    private final OperatorMetrics operatorMetrics;
    private final KubernetesClient client;
    private final OperatorConfig config;
    private final ReconcileMetrics reconcileMetrics;
    private final SchedulerProfileReconciler reconciler;
    /** This instance's name in the leader lease. */
    private final String identity =
            instanceName() + "-" + UUID.randomUUID().toString().substring(0, 8);

    private OperatorRuntime(OperatorConfig config, KubernetesClient client, MeterBinder... moreMetrics)
            throws IOException {
        this.client = client;
        this.config = config;
        ClusterFacts facts = new ClusterFacts(
                        serverVersion(client),
                        config.extenderImage(),
                        config.schedulerImageRepository(),
                        0,
                        config.workloadNamespace(),
                        config.imagePolicy())
                .withOperatorImage(config.operatorImage())
                .withReleaseLeaseSidecar(config.releaseLeaseSidecar());
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        this.gcMetrics = new JvmGcMetrics();
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        for (MeterBinder metrics : moreMetrics) {
            metrics.bindTo(registry);
        }

        RolloutSlots slots = new RolloutSlots(config.maxConcurrentRollouts());
        ProfileMetrics profileMetrics = new ProfileMetrics();
        this.reconciler = new SchedulerProfileReconciler(
                facts,
                new ProfileEvents(client, instanceName()),
                new ProtectedNamespaces(config.protectedNamespaces()),
                slots,
                profileMetrics,
                config.podEventSettings(),
                config.profileSelector().isEmpty());
        this.operatorMetrics = new OperatorMetrics(
                registry, profileMetrics, reconciler::kubernetesVersion, () -> leading.get() && started.get());
        Gauge.builder("schedulerops.rollouts", slots, s -> s.rolling().size())
                .description("Profiles restarting their pods (holding a rollout slot), and those waiting for one")
                .tag("state", "rolling")
                .register(registry);
        Gauge.builder("schedulerops.rollouts", slots, RolloutSlots::waitingCount)
                .description("Profiles restarting their pods (holding a rollout slot), and those waiting for one")
                .tag("state", "waiting")
                .register(registry);
        Gauge.builder("schedulerops.profiles", reconciler, r -> r.profilesWithReady(true))
                .description("SchedulerProfiles by their Ready condition, as last reconciled by this instance")
                .tag("ready", "true")
                .register(registry);
        Gauge.builder("schedulerops.profiles", reconciler, r -> r.profilesWithReady(false))
                .description("SchedulerProfiles by their Ready condition, as last reconciled by this instance")
                .tag("ready", "false")
                .register(registry);

        for (UnscheduledPods.Cause cause : UnscheduledPods.Cause.values()) {
            Gauge.builder("schedulerops.unscheduled.pods", profileMetrics, m -> m.unscheduledPods(cause))
                    .description("Pending pods that no scheduler will take, by cause, as last counted (needs"
                            + " SCHEDULEROPS_POD_EVENTS; 0 while it is off)")
                    .tag("cause", cause.label())
                    .register(registry);
            FunctionCounter.builder("schedulerops.pod.warnings", profileMetrics, m -> m.podWarnings(cause))
                    .description("Warning events recorded on pods that no scheduler will take, by cause (one per pod"
                            + " and cause)")
                    .tag("cause", cause.label())
                    .register(registry);
        }

        for (OwnedKind kind : OwnedKind.values()) {
            Gauge.builder("schedulerops.informer.cached.objects", reconciler, r -> r.cachedObjects(kind))
                    .description("Objects the operator's informers cache, by kind: only its own (labelled"
                            + " app.kubernetes.io/managed-by=schedulerops-operator, in the workload namespace, kube-system"
                            + " or cluster-scoped), so this follows the number of profiles, never what others create")
                    .tag("kind", kind.type().getSimpleName())
                    .register(registry);
        }

        // Made once, here: JOSDK may apply the overrider more than once, and the gauges must count what the instance
        // JOSDK keeps sees.
        this.reconcileMetrics = new ReconcileMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry), registry);
        if (!config.leaderElection()) {
            leading.set(true);
        }
        this.operator = new Operator(josdkSettings(
                client,
                config.reconcileThreads(),
                reconcileMetrics,
                config.leaderElection() ? Optional.of(leaderElection(config)) : Optional.empty()));
        operator.register(reconciler, overrider -> {
            overrider.withItemStore(new LeanItemStore<>()).withInformerListLimit(OwnedInformers.LIST_PAGE_SIZE);
            if (!config.profileSelector().isEmpty()) {
                overrider.withLabelSelector(config.profileSelector());
            }
        });
        if (config.previews().enabled()) {
            // Only then: its informers need the rights deploy/previews grants, which the operator holds only then.
            previews = new PreviewReconciler(
                    () -> facts.withKubernetesVersion(reconciler.kubernetesVersion()),
                    config.previews(),
                    java.time.Clock.systemUTC());
            operator.register(previews, overrider -> overrider.withInformerListLimit(OwnedInformers.LIST_PAGE_SIZE));
        }
        this.versionWatch = new ClusterVersionWatch(
                facts.kubernetesVersion(), () -> serverVersion(client), reconciler::clusterVersionChanged);
        this.versionCheckSeconds = config.versionCheckSeconds();
        this.schedulerLeases =
                new SchedulerLeaseWatch(client, config.workloadNamespace(), new ProfileEvents(client, instanceName()));
        FunctionCounter.builder(
                        "schedulerops.scheduler.lease.handovers", schedulerLeases, SchedulerLeaseWatch::handOvers)
                .description("Leases the operator gave back for a profile's kube-scheduler whose container had stopped")
                .register(registry);
        // Standbys (leader election) are ready too: otherwise a rolling update of the operator never completes.
        this.endpoints = HttpEndpoints.start(
                config.httpBindAddress(), config.httpPort(), () -> !failed.get() && !closed.get(), started::get, () -> {
                    operatorMetrics.refresh();
                    return registry.scrape();
                });
        operatorMetrics.httpGuard(endpoints.guard());
        LOG.info(
                "operator configured: kubernetes {}, workload namespace {}, reconciling {}, allowed image repositories {},"
                        + " protected {}, leader election {}, http {}:{}, pod events {},"
                        + " at most {} profiles rolling at once, {} reconciling at once, API requests at most {}/s"
                        + " (burst {}), previews {}",
                facts.kubernetesVersion(),
                config.workloadNamespace(),
                config.profileSelector().isEmpty() ? "all profiles" : "profiles matching " + config.profileSelector(),
                new java.util.TreeSet<>(facts.images().allowedRepositories()),
                config.protectedNamespaces(),
                config.leaderElection()
                        ? "on (lease " + config.leaderElectionNamespace() + "/" + config.leaseName() + ")"
                        : "off",
                config.httpBindAddress(),
                endpoints.port(),
                config.podEvents() ? "on (after " + config.podEventsGraceSeconds() + " s)" : "off",
                config.maxConcurrentRollouts(),
                config.reconcileThreads(),
                config.apiQps(),
                config.apiBurst(),
                config.previews().enabled()
                        ? "on (sandbox images " + config.previews().images(facts) + ", at most "
                                + config.previews().maxRunning() + " at once)"
                        : "off");
    }

    /**
     * Exiting on a lost lease is right (another instance takes over; Kubernetes restarts this one), but not when the
     * lease is released because we are stopping: JOSDK's own exit would then kill the JVM from inside shutdown.
     */
    private LeaderElectionConfiguration leaderElection(OperatorConfig config) {
        LeaderCallbacks callbacks = new LeaderCallbacks(
                () -> {
                    leading.set(true);
                    LOG.info("became the leader: reconciling");
                },
                () -> {
                    if (!closed.get()) {
                        LOG.error("lost the leader lease {}: exiting", config.leaseName());
                        failed.set(true);
                        System.exit(1);
                    }
                },
                leader -> LOG.info("the leader is {}", leader));
        return new LeaderElectionConfiguration(
                config.leaseName(),
                config.leaderElectionNamespace(),
                LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
                LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
                LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE,
                identity,
                callbacks,
                false);
    }

    /**
     * JOSDK's settings. A stop lets running reconciles finish for up to {@link #RECONCILES_FINISH_WITHIN} (JOSDK's
     * default interrupts them at once): the lease is released only after them, and an interrupted reconcile could
     * still be running when the stopping operator looks, which then keeps the lease until it expires.
     */
    static java.util.function.Consumer<ConfigurationServiceOverrider> josdkSettings(
            KubernetesClient client,
            int reconcileThreads,
            io.javaoperatorsdk.operator.api.monitoring.Metrics metrics,
            Optional<LeaderElectionConfiguration> leaderElection) {
        return overrider -> {
            overrider
                    .withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withConcurrentReconciliationThreads(reconcileThreads)
                    .withReconciliationTerminationTimeout(RECONCILES_FINISH_WITHIN)
                    .withMetrics(metrics);
            leaderElection.ifPresent(overrider::withLeaderElectionConfiguration);
        };
    }

    /** Starts the operator; returns once it runs (or, with leader election, once it waits for the lease). */
    /** @param moreMetrics metrics of parts built before the runtime (the client's rate limiter) */
    public static OperatorRuntime start(OperatorConfig config, KubernetesClient client, MeterBinder... moreMetrics)
            throws IOException {
        OperatorRuntime runtime = new OperatorRuntime(config, client, moreMetrics);
        try {
            runtime.operator.start();
            runtime.versionWatch.start(runtime.versionCheckSeconds);
            runtime.schedulerLeases.start();
            runtime.started.set(true);
        } catch (RuntimeException e) {
            runtime.failed.set(true);
            runtime.close();
            throw e;
        }
        return runtime;
    }

    /** The API server's version without "v" and build metadata: "v1.33.13+k3s1" becomes "1.33.13". */
    static String serverVersion(KubernetesClient client) {
        return normalizeVersion(client.getKubernetesVersion().getGitVersion());
    }

    static String normalizeVersion(String gitVersion) {
        String version = gitVersion.startsWith("v") ? gitVersion.substring(1) : gitVersion;
        return version.replaceAll("[+].*$", "");
    }

    private static String instanceName() {
        return Optional.ofNullable(System.getenv("HOSTNAME")).orElse("local");
    }

    public int httpPort() {
        return endpoints.port();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LOG.info("stopping the operator");
        versionWatch.close();
        reconciler.stopping();
        if (previews != null) {
            previews.stopping();
        }
        try {
            operator.stop();
        } catch (RuntimeException e) {
            LOG.warn("operator did not stop cleanly", e);
        }
        reconciler.close();
        // JOSDK's stop waited for them (RECONCILES_FINISH_WITHIN); one it then interrupted ends in a moment.
        long stuck = reconcileMetrics.awaitNoneRunning(INTERRUPTED_RECONCILES_END_WITHIN);
        if (config.leaderElection() && leading.get()) {
            if (stuck == 0) {
                LeaseRelease.release(client, config.leaderElectionNamespace(), config.leaseName(), identity);
            } else {
                // It may still apply objects: the lease runs out on its own, and the next leader starts after that.
                LOG.warn("{} reconciles still run after the stop: the leader lease is kept until it expires", stuck);
            }
        }
        // Every replica, leading or not: a drain may evict them with the leading kube-scheduler (without leader
        // election, a process run by hand, nobody else would hand over either way). Not while a reconcile is stuck:
        // the process should end before the lease that fences it does.
        if (config.leaderElection() && stuck == 0) {
            try {
                schedulerLeases.handOverWhileStopping(HAND_OVER_WHILE_STOPPING_MIN, HAND_OVER_WHILE_STOPPING_MAX);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        schedulerLeases.close();
        endpoints.close();
        gcMetrics.close();
        registry.close();
    }
}
