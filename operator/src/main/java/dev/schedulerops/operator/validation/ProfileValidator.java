package dev.schedulerops.operator.validation;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.PodPlacementSpec;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileSpec;
import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.api.Verb;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Everything that makes a profile impossible to roll out, as messages a person can act on. It repeats the CRD's
 * schema and CEL rules (the `render` command reads files that never went through admission) and adds what a schema
 * cannot say: kube-scheduler's own configuration rules for the target version.
 */
public final class ProfileValidator {
    private static final Pattern SCHEDULER_NAME = Pattern.compile(Defaults.SCHEDULER_NAME_PATTERN);
    private static final Pattern PROFILE_NAME = Pattern.compile("^[a-z]([-a-z0-9]*[a-z0-9])?$");

    /** The example of a valid duration named in leader-election messages. */
    private static final String DURATION_EXAMPLE = "15s";

    /** The extender Service is named "<profile>-extender" and a Service name is a DNS-1035 label (63 chars). */
    public static final int MAX_PROFILE_NAME_LENGTH = 63 - Names.EXTENDER_SUFFIX.length();

    private ProfileValidator() {}

    /** Every problem of a profile: its own fields first, then, if they are sound, kube-scheduler's plugin rules. */
    public static List<String> validate(SchedulerProfile profile, ClusterFacts facts) {
        List<String> errors = validateFields(profile);
        return errors.isEmpty() ? validate(ResolvedProfile.of(profile), facts) : errors;
    }

    /** kube-scheduler's rules for the plugins and their args, on a profile whose fields {@link #validateFields} passed. */
    public static List<String> validate(ResolvedProfile profile, ClusterFacts facts) {
        List<String> errors = new ArrayList<>(SchedulerPluginRules.validate(profile, facts));
        KubernetesVersion version = KubernetesVersion.parse(facts.kubernetesVersion());
        var scheduler = profile.scheduler();
        SchedulerArgsRules.validate(
                scheduler.featureGates(),
                scheduler.extraArgs(),
                SchedulerFlagCatalog.forVersion(version),
                version,
                scheduler.image().isPresent(),
                errors);
        return errors;
    }

    /** What the CRD's schema and CEL rules say, checked again (files given to `render` never went through admission). */
    public static List<String> validateFields(SchedulerProfile profile) {
        List<String> errors = new ArrayList<>();
        if (profile.getMetadata() == null
                || profile.getMetadata().getName() == null
                || profile.getMetadata().getName().isBlank()) {
            errors.add("metadata.name: Required value");
            return errors;
        }
        String name = profile.getMetadata().getName();
        if (name.length() > MAX_PROFILE_NAME_LENGTH
                || !PROFILE_NAME.matcher(name).matches()) {
            errors.add("metadata.name: Invalid value: " + GoValues.shown(name)
                    + ": must start with a lowercase letter, contain"
                    + " only lowercase letters, digits and '-', and be at most " + MAX_PROFILE_NAME_LENGTH
                    + " characters (the extender Service is named <name>-extender)");
        }
        SchedulerProfileSpec spec = profile.getSpec();
        if (spec == null) {
            errors.add("spec: Required value");
            return errors;
        }
        if (!noNullItems(spec, errors)) {
            return errors;
        }
        validateIdentity(profile, spec, errors);
        validateVerbs(spec, errors);
        validateExtender(spec, errors);
        ExtenderRules.validate(spec, errors);
        validateScheduler(spec, errors);
        return errors;
    }

    private static void validateIdentity(SchedulerProfile profile, SchedulerProfileSpec spec, List<String> errors) {
        String labelKey = spec.getLabelKey();
        if (labelKey == null) {
            if (spec.getVerbs() != null || spec.getExtender() != null) {
                errors.add("spec.labelKey: Required value: verbs and extender configure the bundled extender, which"
                        + " runs only with labelKey: set labelKey (the node label it filters on and scores by, e.g."
                        + " priority.lixueduan.com), or remove them for a plugins-only profile");
            }
        } else if (labelKey.isBlank() || !isQualifiedName(labelKey)) {
            errors.add(
                    "spec.labelKey: Invalid value: " + GoValues.shown(labelKey) + ": must be a qualified label key: an"
                            + " optional DNS subdomain prefix and '/', then a name of at most 63 characters of letters,"
                            + " digits, '-', '_' or '.', starting and ending with a letter or digit");
        }
        String schedulerName = profile.effectiveSchedulerName();
        if (spec.getSchedulerName() != null
                && (!SCHEDULER_NAME.matcher(schedulerName).matches() || schedulerName.length() > 253)) {
            errors.add("spec.schedulerName: Invalid value: " + GoValues.shown(schedulerName)
                    + ": must be a lowercase DNS" + " subdomain");
        }
        if (Names.DEFAULT_SCHEDULER.equals(schedulerName)) {
            errors.add("spec.schedulerName: Invalid value: \"" + Names.DEFAULT_SCHEDULER + "\": that is the cluster's"
                    + " main scheduler; choose another name");
        }
    }

    /**
     * A list item written as {@code -} or {@code null} (the CRD schema refuses it at admission; {@code render} reads files
     * without one): reported per item instead of failing later with a NullPointerException (found by ProfileFuzzTest).
     * Verbs have their own message in {@link #validateVerbs}. Plugin args that are not an object are refused here too
     * (they made the plugin-args validation throw).
     */
    private static boolean noNullItems(SchedulerProfileSpec spec, List<String> errors) {
        int before = errors.size();
        nullItems(spec.getPluginConfig(), "spec.pluginConfig", errors);
        if (spec.getPluginConfig() != null) {
            for (int i = 0; i < spec.getPluginConfig().size(); i++) {
                var config = spec.getPluginConfig().get(i);
                var args = config == null ? null : config.getArgs();
                if (args != null && !args.isNull() && !args.isObject()) {
                    errors.add("spec.pluginConfig[" + i + "].args: Invalid value: " + GoValues.shown(args.toString())
                            + ": must be an object (the plugin's args, e.g. {scoringStrategy: {type: MostAllocated}}),"
                            + " found " + args.getNodeType().toString().toLowerCase(java.util.Locale.ROOT));
                }
            }
        }
        if (spec.getExtender() != null) {
            nullItems(spec.getExtender().getManagedResources(), "spec.extender.managedResources", errors);
            if (spec.getExtender().getJvm() != null) {
                nullItems(spec.getExtender().getJvm().getOptions(), "spec.extender.jvm.options", errors);
            }
        }
        nullItems(spec.getExtenders(), "spec.extenders", errors);
        if (spec.getExtenders() != null) {
            for (int i = 0; i < spec.getExtenders().size(); i++) {
                var external = spec.getExtenders().get(i);
                if (external != null) {
                    nullItems(external.getManagedResources(), "spec.extenders[" + i + "].managedResources", errors);
                }
            }
        }
        placementNullItems(spec.getExtender(), "spec.extender", errors);
        placementNullItems(spec.getScheduler(), "spec.scheduler", errors);
        if (spec.getPlugins() != null) {
            spec.getPlugins().byExtensionPoint().forEach((point, set) -> {
                if (set != null) {
                    nullItems(set.getEnabled(), "spec.plugins." + point + ".enabled", errors);
                    nullItems(set.getDisabled(), "spec.plugins." + point + ".disabled", errors);
                }
            });
        }
        return errors.size() == before;
    }

    private static void placementNullItems(PodPlacementSpec placement, String path, List<String> errors) {
        if (placement != null) {
            nullItems(placement.getTolerations(), path + ".tolerations", errors);
            nullItems(placement.getTopologySpreadConstraints(), path + ".topologySpreadConstraints", errors);
            nullItems(placement.getImagePullSecrets(), path + ".imagePullSecrets", errors);
        }
    }

    private static void nullItems(List<?> items, String path, List<String> errors) {
        if (items == null) {
            return;
        }
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i) == null) {
                errors.add(path + "[" + i + "]: Required value: a list item may not be empty (null)");
            }
        }
    }

    private static void validateVerbs(SchedulerProfileSpec spec, List<String> errors) {
        Integer weight = spec.getWeight();
        if (weight != null && weight < Defaults.MIN_WEIGHT) {
            errors.add("spec.weight: Invalid value: " + weight + ": must be at least " + Defaults.MIN_WEIGHT
                    + " (kube-scheduler rejects an extender with prioritizeVerb and a non-positive weight)");
        }
        List<Verb> verbs = spec.getVerbs();
        if (verbs == null) {
            return;
        }
        if (verbs.isEmpty()) {
            errors.add("spec.verbs: Invalid value: []: at least one verb is needed, e.g. [Filter, Prioritize]");
            return;
        }
        if (verbs.contains(null)) {
            errors.add("spec.verbs: Unsupported value: supported values: \"Filter\", \"FilterOnlyOne\","
                    + " \"Prioritize\", \"Bind\", \"Preempt\"");
            return;
        }
        if (new HashSet<>(verbs).size() != verbs.size()) {
            errors.add("spec.verbs: Duplicate value: each verb may appear only once");
        }
        if (verbs.contains(Verb.FILTER) && verbs.contains(Verb.FILTER_ONLY_ONE)) {
            errors.add("spec.verbs: Invalid value: Filter and FilterOnlyOne exclude each other; keep one of them");
        }
        if (verbs.contains(Verb.PREEMPT) && verbs.stream().noneMatch(Verb::isFilter)) {
            errors.add("spec.verbs: Invalid value: Preempt needs Filter or FilterOnlyOne, so that preemption agrees"
                    + " with the filter rule");
        }
        TlsMode mode = spec.getExtender() == null || spec.getExtender().getTls() == null
                ? null
                : spec.getExtender().getTls().getMode();
        if ((verbs.contains(Verb.BIND) || verbs.contains(Verb.PREEMPT)) && mode != null && mode != TlsMode.MUTUAL) {
            errors.add("spec.verbs: Forbidden: " + SchedulerProfileSpec.MUTUAL_FOR_API_VERBS_MESSAGE);
        }
    }

    private static void validateExtender(SchedulerProfileSpec spec, List<String> errors) {
        var ext = spec.getExtender();
        if (ext == null) {
            return;
        }
        PlacementRules.validate("spec.extender", ext, errors);
        if (ext.getJvm() != null) {
            range(
                    errors,
                    "spec.extender.jvm.maxRAMPercentage",
                    ext.getJvm().getMaxRAMPercentage(),
                    Defaults.MIN_MAX_RAM_PERCENTAGE,
                    Defaults.MAX_MAX_RAM_PERCENTAGE);
            JvmRules.validate("spec.extender.jvm.options", ext.getJvm().getOptions(), errors);
        }
        range(
                errors,
                "spec.extender.replicas",
                ext.getReplicas(),
                Defaults.MIN_EXTENDER_REPLICAS,
                Defaults.MAX_EXTENDER_REPLICAS);
        if (ext.getHttpTimeout() != null) {
            duration(errors, "spec.extender.httpTimeout", ext.getHttpTimeout(), "5s or 1500ms");
        }
    }

    private static void validateScheduler(SchedulerProfileSpec spec, List<String> errors) {
        var sch = spec.getScheduler();
        if (sch == null) {
            return;
        }
        PlacementRules.validate("spec.scheduler", sch, errors);
        SchedulerArgsRules.validateSyntax(sch.getFeatureGates(), sch.getExtraArgs(), errors);
        range(
                errors,
                "spec.scheduler.replicas",
                sch.getReplicas(),
                Defaults.MIN_SCHEDULER_REPLICAS,
                Defaults.MAX_SCHEDULER_REPLICAS);
        range(
                errors,
                "spec.scheduler.percentageOfNodesToScore",
                sch.getPercentageOfNodesToScore(),
                Defaults.MIN_PERCENTAGE_OF_NODES_TO_SCORE,
                Defaults.MAX_PERCENTAGE_OF_NODES_TO_SCORE);
        range(
                errors,
                "spec.scheduler.logVerbosity",
                sch.getLogVerbosity(),
                Defaults.MIN_LOG_VERBOSITY,
                Defaults.MAX_LOG_VERBOSITY);
        range(errors, "spec.scheduler.parallelism", sch.getParallelism(), 1, Defaults.MAX_PARALLELISM);
        range(
                errors,
                "spec.scheduler.podInitialBackoffSeconds",
                sch.getPodInitialBackoffSeconds(),
                1,
                Defaults.MAX_BACKOFF_SECONDS);
        range(
                errors,
                "spec.scheduler.podMaxBackoffSeconds",
                sch.getPodMaxBackoffSeconds(),
                1,
                Defaults.MAX_BACKOFF_SECONDS);
        int initialBackoff = sch.getPodInitialBackoffSeconds() == null
                ? Defaults.POD_INITIAL_BACKOFF_SECONDS
                : sch.getPodInitialBackoffSeconds();
        int maxBackoff = sch.getPodMaxBackoffSeconds() == null
                ? Defaults.POD_MAX_BACKOFF_SECONDS
                : sch.getPodMaxBackoffSeconds();
        if (maxBackoff < initialBackoff) {
            errors.add("spec.scheduler.podMaxBackoffSeconds: Invalid value: " + maxBackoff + ": must be at least"
                    + " podInitialBackoffSeconds (" + initialBackoff + "; defaults: initial "
                    + Defaults.POD_INITIAL_BACKOFF_SECONDS + ", max " + Defaults.POD_MAX_BACKOFF_SECONDS
                    + "); kube-scheduler refuses to start otherwise");
        }
        var resolved = ResolvedProfile.Scheduler.of(sch);
        boolean leaderElect = resolved.leaderElect();
        if (sch.getReplicas() != null && sch.getReplicas() > 1 && !leaderElect) {
            errors.add("spec.scheduler.replicas: Invalid value: " + sch.getReplicas() + ": more than one replica needs"
                    + " leaderElection.leaderElect: true, or the replicas would bind pods concurrently");
        }
        if (sch.getLeaderElection() == null) {
            return;
        }
        Optional<Duration> lease = duration(
                errors, "spec.scheduler.leaderElection.leaseDuration", resolved.leaseDuration(), DURATION_EXAMPLE);
        Optional<Duration> renew = duration(
                errors, "spec.scheduler.leaderElection.renewDeadline", resolved.renewDeadline(), DURATION_EXAMPLE);
        Optional<Duration> retry =
                duration(errors, "spec.scheduler.leaderElection.retryPeriod", resolved.retryPeriod(), DURATION_EXAMPLE);
        if (leaderElect && lease.isPresent() && renew.isPresent() && lease.get().compareTo(renew.get()) <= 0) {
            errors.add("spec.scheduler.leaderElection.leaseDuration: Invalid value: \"" + resolved.leaseDuration()
                    + "\": must be greater than renewDeadline");
        }
        if (leaderElect && renew.isPresent() && retry.isPresent() && !renewsBeyondJitter(renew.get(), retry.get())) {
            errors.add("spec.scheduler.leaderElection.renewDeadline: Invalid value: \"" + resolved.renewDeadline()
                    + "\": must be more than 1.2 x retryPeriod (" + resolved.retryPeriod() + "): kube-scheduler's"
                    + " leader election refuses to start otherwise");
        }
    }

    /**
     * client-go's NewLeaderElector, which kube-scheduler calls at start-up: {@code renewDeadline <=
     * time.Duration(JitterFactor*float64(retryPeriod))} with JitterFactor 1.2 is refused. The same IEEE double
     * arithmetic and truncation, so the boundary (6s against 5s, refused) falls where Go puts it.
     */
    private static boolean renewsBeyondJitter(Duration renew, Duration retry) {
        long jittered = (long) (1.2 * (double) retry.toNanos());
        return renew.toNanos() > jittered;
    }

    /** Parses a Go duration that must be positive; otherwise adds an error naming the example and returns empty. */
    private static Optional<Duration> duration(List<String> errors, String path, String text, String example) {
        Optional<Duration> parsed = GoDuration.parseNanos(text).map(Duration::ofNanos);
        if (parsed.isEmpty() || parsed.get().isZero() || parsed.get().isNegative()) {
            errors.add(path + ": Invalid value: \"" + text + "\": must be a positive duration such as " + example);
            return Optional.empty();
        }
        return parsed;
    }

    private static void range(List<String> errors, String path, Integer value, int min, int max) {
        if (value != null && (value < min || value > max)) {
            errors.add(path + ": Invalid value: " + value + ": must be between " + min + " and " + max);
        }
    }

    /** apimachinery's IsQualifiedName: an optional DNS-subdomain prefix (253 chars) and '/', then a name (63). */
    private static boolean isQualifiedName(String value) {
        return LabelSyntax.qualifiedNameErrors(value).isEmpty();
    }
}
