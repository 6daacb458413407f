package dev.schedulerops.operator.model;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.ExtenderSpec;
import dev.schedulerops.operator.api.ExternalExtender;
import dev.schedulerops.operator.api.JvmSpec;
import dev.schedulerops.operator.api.LeaderElectionSpec;
import dev.schedulerops.operator.api.ManagedResource;
import dev.schedulerops.operator.api.PluginConfig;
import dev.schedulerops.operator.api.Plugins;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileSpec;
import dev.schedulerops.operator.api.SchedulerSpec;
import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.api.Verb;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A profile with every default applied: what the renderers read, so that no renderer repeats a default.
 * Verbs are a set in canonical order, whatever order the user wrote them in.
 */
public record ResolvedProfile(
        Names names,
        String schedulerName,
        String labelKey,
        Set<Verb> verbs,
        int weight,
        Plugins plugins,
        List<PluginConfig> pluginConfig,
        Extender extender,
        List<ExternalExtender> externalExtenders,
        Scheduler scheduler) {

    public record Extender(
            int replicas,
            Optional<String> image,
            ResourceRequirements resources,
            boolean nodeCacheCapable,
            boolean ignorable,
            String httpTimeout,
            List<ManagedResource> managedResources,
            TlsMode tls,
            Optional<List<NetworkPolicyPeer>> metricsFrom,
            Placement placement,
            String javaToolOptions) {}

    public record Scheduler(
            int replicas,
            Optional<String> image,
            ResourceRequirements resources,
            Integer percentageOfNodesToScore,
            Integer parallelism,
            Integer podInitialBackoffSeconds,
            Integer podMaxBackoffSeconds,
            int logVerbosity,
            boolean leaderElect,
            String leaseDuration,
            String renewDeadline,
            String retryPeriod,
            Placement placement,
            SortedMap<String, Boolean> featureGates,
            SortedMap<String, String> extraArgs) {

        /**
         * The flags after the operator's own: --feature-gates (sorted, so the pod template and its hash are stable)
         * and each extra flag as --name=value, sorted by name.
         */
        public List<String> extraFlags() {
            return extraFlags(featureGates);
        }

        /** {@link #extraFlags()} with {@code gates} (the profile's and the operator's defaults) as the feature gates. */
        public List<String> extraFlags(SortedMap<String, Boolean> gates) {
            List<String> flags = new ArrayList<>();
            if (!gates.isEmpty()) {
                flags.add("--feature-gates="
                        + gates.entrySet().stream()
                                .map(e -> e.getKey() + "=" + e.getValue())
                                .collect(Collectors.joining(",")));
            }
            extraArgs.forEach((name, value) -> flags.add("--" + name + "=" + value));
            return flags;
        }

        /** The scheduler part of a spec (null for none) with every default applied. */
        public static Scheduler of(SchedulerSpec spec) {
            SchedulerSpec sch = spec == null ? new SchedulerSpec() : spec;
            LeaderElectionSpec le =
                    sch.getLeaderElection() == null ? new LeaderElectionSpec() : sch.getLeaderElection();
            return new Scheduler(
                    or(sch.getReplicas(), Defaults.SCHEDULER_REPLICAS),
                    Optional.ofNullable(sch.getImage()),
                    orGet(sch.getResources(), Defaults::schedulerResources),
                    sch.getPercentageOfNodesToScore(),
                    sch.getParallelism(),
                    sch.getPodInitialBackoffSeconds(),
                    sch.getPodMaxBackoffSeconds(),
                    or(sch.getLogVerbosity(), Defaults.LOG_VERBOSITY),
                    or(le.getLeaderElect(), Defaults.LEADER_ELECT),
                    or(le.getLeaseDuration(), Defaults.LEASE_DURATION),
                    or(le.getRenewDeadline(), Defaults.RENEW_DEADLINE),
                    or(le.getRetryPeriod(), Defaults.RETRY_PERIOD),
                    Placement.of(spec),
                    sorted(sch.getFeatureGates()),
                    sorted(sch.getExtraArgs()));
        }
    }

    /**
     * The profile resolved for the default workload namespace ({@link ClusterFacts#DEFAULT_WORKLOAD_NAMESPACE}): for
     * callers that read no namespaced names (validation, the config's flags).
     */
    public static ResolvedProfile of(SchedulerProfile profile) {
        return of(profile, ClusterFacts.DEFAULT_WORKLOAD_NAMESPACE);
    }

    /**
     * @param workloadNamespace where the profile's namespaced objects go (see {@link ClusterFacts#workloadNamespace})
     */
    public static ResolvedProfile of(SchedulerProfile profile, String workloadNamespace) {
        SchedulerProfileSpec spec = profile.getSpec() == null ? new SchedulerProfileSpec() : profile.getSpec();
        ExtenderSpec ext = spec.getExtender() == null ? new ExtenderSpec() : spec.getExtender();
        List<Verb> verbList = spec.getVerbs() == null || spec.getVerbs().isEmpty() ? Defaults.VERBS : spec.getVerbs();
        return new ResolvedProfile(
                new Names(profile.getMetadata().getName(), workloadNamespace),
                profile.effectiveSchedulerName(),
                spec.getLabelKey(),
                EnumSet.copyOf(verbList),
                or(spec.getWeight(), Defaults.WEIGHT),
                spec.getPlugins(),
                spec.getPluginConfig() == null ? List.of() : List.copyOf(spec.getPluginConfig()),
                new Extender(
                        or(ext.getReplicas(), Defaults.EXTENDER_REPLICAS),
                        Optional.ofNullable(ext.getImage()),
                        orGet(ext.getResources(), Defaults::extenderResources),
                        or(ext.getNodeCacheCapable(), Defaults.NODE_CACHE_CAPABLE),
                        or(ext.getIgnorable(), Defaults.IGNORABLE),
                        or(ext.getHttpTimeout(), Defaults.HTTP_TIMEOUT),
                        ext.getManagedResources() == null ? List.of() : List.copyOf(ext.getManagedResources()),
                        ext.getTls() == null || ext.getTls().getMode() == null
                                ? Defaults.TLS_MODE
                                : ext.getTls().getMode(),
                        Optional.ofNullable(ext.getMetricsFrom()).map(List::copyOf),
                        Placement.of(spec.getExtender()),
                        javaToolOptions(ext.getJvm())),
                spec.getExtenders() == null ? List.of() : List.copyOf(spec.getExtenders()),
                Scheduler.of(spec.getScheduler()));
    }

    /** JAVA_TOOL_OPTIONS of the extender: the heap percentage, then the user's options in their order. */
    static String javaToolOptions(JvmSpec jvm) {
        JvmSpec spec = jvm == null ? new JvmSpec() : jvm;
        StringBuilder options = new StringBuilder("-XX:MaxRAMPercentage=")
                .append(or(spec.getMaxRAMPercentage(), Defaults.MAX_RAM_PERCENTAGE));
        if (spec.getOptions() != null) {
            spec.getOptions().forEach(option -> options.append(' ').append(option));
        }
        return options.toString();
    }

    public boolean has(Verb verb) {
        return verbs.contains(verb);
    }

    /** The filter verb kube-scheduler calls, if any. */
    public Optional<Verb> filterVerb() {
        return verbs.stream().filter(Verb::isFilter).findFirst();
    }

    /**
     * Whether the extender watches Nodes: names-only requests (nodeCacheCapable) and preemption calls carry no node
     * labels, so the extender must look them up itself.
     */
    public boolean extenderNeedsNodeCache() {
        return extender.nodeCacheCapable() || has(Verb.PREEMPT);
    }

    /** Whether the extender calls the API server (to watch Nodes or to bind pods), so it needs its token. */
    public boolean extenderNeedsApi() {
        return extenderNeedsNodeCache() || has(Verb.BIND);
    }

    /** Whether the bundled extender runs: only with a labelKey; without one the profile is plugins only. */
    public boolean bundledExtender() {
        return labelKey != null;
    }

    /** How the scheduler talks to the bundled extender; Disabled when there is none (nothing to secure). */
    public TlsMode tls() {
        return bundledExtender() ? extender.tls() : TlsMode.DISABLED;
    }

    /** The extender's verb port: 8443 with TLS, 8080 without. */
    public int extenderPort() {
        return extender.tls().enabled() ? Names.EXTENDER_TLS_PORT : Names.EXTENDER_PORT;
    }

    /** The URL kube-scheduler calls: the extender Service's cluster DNS name, https unless TLS is Disabled. */
    public String extenderUrl() {
        return names.extenderUrl(extender.tls().enabled());
    }

    public String schedulerImage(ClusterFacts facts) {
        return scheduler.image().orElseGet(facts::defaultSchedulerImage);
    }

    public String extenderImage(ClusterFacts facts) {
        return extender.image().orElseGet(facts::extenderImage);
    }

    private static <T> T or(T value, T fallback) {
        return value == null ? fallback : value;
    }

    private static <T> T orGet(T value, Supplier<T> fallback) {
        return value == null ? fallback.get() : value;
    }

    private static <V> SortedMap<String, V> sorted(Map<String, V> map) {
        return map == null ? Collections.emptySortedMap() : Collections.unmodifiableSortedMap(new TreeMap<>(map));
    }
}
