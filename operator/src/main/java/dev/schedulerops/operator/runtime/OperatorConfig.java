package dev.schedulerops.operator.runtime;

import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ImagePolicy;
import dev.schedulerops.operator.preview.PreviewSettings;
import dev.schedulerops.operator.reconcile.ProtectedNamespaces;
import dev.schedulerops.operator.reconcile.RolloutSlots;
import dev.schedulerops.operator.reconcile.UnscheduledPodWatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The operator's settings, read once at start-up from SCHEDULEROPS_* environment variables ({@code run}'s flags
 * override them).
 *
 * @param workloadNamespace where every profile's namespaced objects go (default: the operator's own namespace, else
 *     {@link ClusterFacts#DEFAULT_WORKLOAD_NAMESPACE}); the installer's choice, never a team's namespace
 * @param profileSelector a label selector: only the profiles it matches are reconciled (empty: all); for running
 *     several operators side by side (a canary, shards, tests), each with its own profiles
 * @param allowedImageRepositories the image repositories profiles may name (empty: the repository of
 *     {@code extenderImage} and {@code schedulerImageRepository}); see {@link ImagePolicy}
 * @param leaderElection whether to take the lease before reconciling (default: on in-cluster, off elsewhere)
 * @param leaderElectionNamespace where the lease lives (default: the workload namespace)
 * @param leaseName the lease's name
 * @param extenderImage the extender image for profiles that do not pin one
 * @param schedulerImageRepository the kube-scheduler image repository; the tag is the cluster's version
 * @param logFormat exactly json or text: logback.xml reads the variable directly, unchanged, and any other value
 *     (even "JSON" or " json") would leave it without an appender, so without any logs; recorded here to validate it
 * @param httpPort port of /healthz, /readyz and /metrics; 0 picks a free one
 * @param httpBindAddress address that server binds to
 * @param protectedNamespaces namespaces that may not be the workload namespace (profiles are refused then)
 * @param versionCheckSeconds how often the API server's version is read again (a control-plane upgrade then rolls
 *     the schedulers to the new version's image without restarting the operator)
 * @param maxConcurrentRollouts how many profiles may restart their pods at once (an upgrade of the operator changes
 *     them all); see {@link RolloutSlots}
 * @param apiQps the client-side limit on requests to the API server per second, as client-go's {@code QPS}; see
 *     {@link ApiRateLimiter}
 * @param apiBurst how many requests may go at once above that rate, as client-go's {@code Burst}
 * @param reconcileThreads how many profiles are reconciled at the same time (JOSDK's reconciliation threads)
 * @param podEvents whether pods that no scheduler will take get a Warning event saying why; it watches Pending pods
 *     of other schedulers in every namespace, so it is off unless asked for (see {@link UnscheduledPodWatch})
 * @param podEventsGraceSeconds how long such a pod waits before it is told (a scheduler may be starting)
 * @param podEventsIgnoredSchedulers schedulerNames of other schedulers (Volcano, YuniKorn, ...) whose pods are never told
 * @param previews whether the operator answers SchedulerProfilePreviews, and with which images and limits: off unless
 *     the installation turns it on (deploy/previews), since a preview reads every pod of the cluster
 * @param releaseLeaseSidecar whether scheduler pods run the {@code release-lease} native sidecar (on unless turned
 *     off: clusters whose kubelets are older than 1.29 or run without the SidecarContainers feature turn it off)
 */
public record OperatorConfig(
        String workloadNamespace,
        String profileSelector,
        Set<String> allowedImageRepositories,
        boolean leaderElection,
        String leaderElectionNamespace,
        String leaseName,
        String extenderImage,
        String schedulerImageRepository,
        String logFormat,
        int httpPort,
        String httpBindAddress,
        Set<String> protectedNamespaces,
        int maxConcurrentRollouts,
        int versionCheckSeconds,
        double apiQps,
        int apiBurst,
        int reconcileThreads,
        boolean podEvents,
        int podEventsGraceSeconds,
        Set<String> podEventsIgnoredSchedulers,
        PreviewSettings previews,
        boolean releaseLeaseSidecar) {

    // The environment variables read, also the keys of fromEnvironment's overrides.
    public static final String ENV_WORKLOAD_NAMESPACE = "SCHEDULEROPS_WORKLOAD_NAMESPACE";
    public static final String ENV_PROFILE_SELECTOR = "SCHEDULEROPS_PROFILE_SELECTOR";
    /** Comma separated repositories (or prefixes ending in /); unset or blank means {@link ImagePolicy#defaults}. */
    public static final String ENV_ALLOWED_IMAGE_REPOSITORIES = "SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES";

    public static final String ENV_LEADER_ELECTION = "SCHEDULEROPS_LEADER_ELECTION";
    public static final String ENV_LEADER_ELECTION_NAMESPACE = "SCHEDULEROPS_LEADER_ELECTION_NAMESPACE";
    public static final String ENV_EXTENDER_IMAGE = "SCHEDULEROPS_EXTENDER_IMAGE";
    public static final String ENV_SCHEDULER_IMAGE_REPOSITORY = "SCHEDULEROPS_SCHEDULER_IMAGE_REPOSITORY";
    public static final String ENV_LOG_FORMAT = "SCHEDULEROPS_LOG_FORMAT";
    public static final String ENV_HTTP_PORT = "SCHEDULEROPS_HTTP_PORT";
    public static final String ENV_HTTP_BIND_ADDRESS = "SCHEDULEROPS_HTTP_BIND_ADDRESS";
    /** Comma separated; unset or blank means {@link ProtectedNamespaces#DEFAULT}, a value replaces that list. */
    public static final String ENV_PROTECTED_NAMESPACES = "SCHEDULEROPS_PROTECTED_NAMESPACES";

    public static final String ENV_MAX_CONCURRENT_ROLLOUTS = "SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS";
    public static final String ENV_VERSION_CHECK_SECONDS = "SCHEDULEROPS_VERSION_CHECK_SECONDS";
    public static final String ENV_API_QPS = "SCHEDULEROPS_API_QPS";
    public static final String ENV_API_BURST = "SCHEDULEROPS_API_BURST";
    public static final String ENV_RECONCILE_THREADS = "SCHEDULEROPS_RECONCILE_THREADS";
    public static final String ENV_POD_EVENTS = "SCHEDULEROPS_POD_EVENTS";
    public static final String ENV_POD_EVENTS_GRACE_SECONDS = "SCHEDULEROPS_POD_EVENTS_GRACE_SECONDS";
    public static final String ENV_POD_EVENTS_IGNORE_SCHEDULERS = "SCHEDULEROPS_POD_EVENTS_IGNORE_SCHEDULERS";
    public static final String ENV_PREVIEWS = "SCHEDULEROPS_PREVIEWS";
    /** The operator's own image: a preview's sandbox runs its steps in it. */
    public static final String ENV_OPERATOR_IMAGE = "SCHEDULEROPS_OPERATOR_IMAGE";

    public static final String ENV_RELEASE_LEASE_SIDECAR = "SCHEDULEROPS_RELEASE_LEASE_SIDECAR";

    public static final String ENV_PREVIEW_APISERVER_IMAGE_REPOSITORY =
            "SCHEDULEROPS_PREVIEW_APISERVER_IMAGE_REPOSITORY";
    public static final String ENV_PREVIEW_ETCD_IMAGE = "SCHEDULEROPS_PREVIEW_ETCD_IMAGE";
    public static final String ENV_PREVIEW_SERVICE_ACCOUNT = "SCHEDULEROPS_PREVIEW_SERVICE_ACCOUNT";
    public static final String ENV_PREVIEW_MAX_RUNNING = "SCHEDULEROPS_PREVIEW_MAX_RUNNING";
    public static final String ENV_PREVIEW_TTL_SECONDS = "SCHEDULEROPS_PREVIEW_TTL_SECONDS";

    /**
     * Enough for 200 new profiles (about 40 writes each) to be rendered in under two minutes, a tenth of what a
     * kube-apiserver's default {@code --max-requests-inflight} lets one client do.
     */
    public static final double DEFAULT_API_QPS = 100;

    public static final int DEFAULT_API_BURST = 200;
    /** JOSDK's default is 50; each waits on the API server, not the CPU, and every thread costs memory. */
    public static final int DEFAULT_RECONCILE_THREADS = 10;

    public static final String LEASE_NAME = "schedulerops-operator";
    private static final java.util.regex.Pattern DNS_LABEL =
            java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    public static final Path SERVICE_ACCOUNT_NAMESPACE =
            Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

    public OperatorConfig {
        allowedImageRepositories = Set.copyOf(allowedImageRepositories);
        protectedNamespaces = Set.copyOf(protectedNamespaces);
        podEventsIgnoredSchedulers = Set.copyOf(podEventsIgnoredSchedulers);
        if (!DNS_LABEL.matcher(workloadNamespace).matches()) {
            throw new IllegalArgumentException(ENV_WORKLOAD_NAMESPACE + " must be a namespace name (a DNS label), not '"
                    + workloadNamespace + "'");
        }
        for (String repository : allowedImageRepositories) {
            if (!repository.endsWith("/")
                    && ImagePolicy.repositoryOf(repository)
                            .filter(repository::equals)
                            .isEmpty()) {
                throw new IllegalArgumentException(ENV_ALLOWED_IMAGE_REPOSITORIES + ": '" + repository + "' is neither"
                        + " an image repository without tag or digest (registry.example.com/team/image) nor a prefix"
                        + " ending in /");
            }
        }
        if (!logFormat.equals("json") && !logFormat.equals("text")) {
            throw new IllegalArgumentException(ENV_LOG_FORMAT + " must be exactly json or text (lower case, as"
                    + " logback.xml reads it unchanged), not '" + logFormat + "'");
        }
        if (httpPort < 0 || httpPort > 65535) {
            throw new IllegalArgumentException(ENV_HTTP_PORT + " must be 0..65535, not " + httpPort);
        }
        if (maxConcurrentRollouts < 1) {
            throw new IllegalArgumentException(
                    ENV_MAX_CONCURRENT_ROLLOUTS + " must be at least 1, not " + maxConcurrentRollouts);
        }
        if (versionCheckSeconds < 1) {
            throw new IllegalArgumentException(
                    ENV_VERSION_CHECK_SECONDS + " must be at least 1, not " + versionCheckSeconds);
        }
        if (!(apiQps > 0) || Double.isInfinite(apiQps)) {
            throw new IllegalArgumentException(ENV_API_QPS + " must be a positive number, not " + apiQps);
        }
        if (apiBurst < 1) {
            throw new IllegalArgumentException(ENV_API_BURST + " must be at least 1, not " + apiBurst);
        }
        if (reconcileThreads < 1) {
            throw new IllegalArgumentException(ENV_RECONCILE_THREADS + " must be at least 1, not " + reconcileThreads);
        }
        if (podEventsGraceSeconds < 0) {
            throw new IllegalArgumentException(
                    ENV_POD_EVENTS_GRACE_SECONDS + " must be at least 0, not " + podEventsGraceSeconds);
        }
    }

    /** The environment with {@code overrides} (same SCHEDULEROPS_* keys, e.g. from command-line flags) on top. */
    public static OperatorConfig fromEnvironment(Map<String, String> overrides) {
        return fromEnvironment(System.getenv(), overrides, OperatorConfig::podNamespace);
    }

    /**
     * @param env the environment variables
     * @param overrides values that replace those of {@code env} with the same key (e.g. from command-line flags)
     * @param podNamespace the namespace of the pod this runs in, when it runs in one
     */
    public static OperatorConfig fromEnvironment(
            Map<String, String> env, Map<String, String> overrides, Supplier<Optional<String>> podNamespace) {
        Map<String, String> merged = new HashMap<>(env);
        merged.putAll(overrides);
        return fromEnvironment(merged, podNamespace);
    }

    /**
     * @param env the environment variables
     * @param podNamespace the namespace of the pod this runs in, when it runs in one
     */
    public static OperatorConfig fromEnvironment(Map<String, String> env, Supplier<Optional<String>> podNamespace) {
        Optional<String> inPod = podNamespace.get();
        boolean inCluster = inPod.isPresent() && env.containsKey("KUBERNETES_SERVICE_HOST");
        String workloadNamespace =
                nonBlank(env.get(ENV_WORKLOAD_NAMESPACE)).orElse(inPod.orElse(ClusterFacts.DEFAULT_WORKLOAD_NAMESPACE));
        return new OperatorConfig(
                workloadNamespace,
                nonBlank(env.get(ENV_PROFILE_SELECTOR)).orElse(""),
                namespaces(env.getOrDefault(ENV_ALLOWED_IMAGE_REPOSITORIES, "")),
                bool(env, ENV_LEADER_ELECTION, inCluster),
                nonBlank(env.get(ENV_LEADER_ELECTION_NAMESPACE)).orElse(workloadNamespace),
                LEASE_NAME,
                nonBlank(env.get(ENV_EXTENDER_IMAGE)).orElse(ClusterFacts.BuildInfo.defaultExtenderImage()),
                nonBlank(env.get(ENV_SCHEDULER_IMAGE_REPOSITORY))
                        .orElse(ClusterFacts.DEFAULT_SCHEDULER_IMAGE_REPOSITORY),
                // Not trimmed or case-folded: logback.xml includes logback-${SCHEDULEROPS_LOG_FORMAT:-text}.xml as is.
                Optional.ofNullable(env.get(ENV_LOG_FORMAT)).orElse("text"),
                integer(env, ENV_HTTP_PORT, 8080),
                nonBlank(env.get(ENV_HTTP_BIND_ADDRESS)).orElse("0.0.0.0"),
                nonBlank(env.get(ENV_PROTECTED_NAMESPACES))
                        .map(OperatorConfig::namespaces)
                        .orElse(ProtectedNamespaces.DEFAULT),
                integer(env, ENV_MAX_CONCURRENT_ROLLOUTS, RolloutSlots.DEFAULT_MAX),
                integer(env, ENV_VERSION_CHECK_SECONDS, 300),
                decimal(env, ENV_API_QPS, DEFAULT_API_QPS),
                integer(env, ENV_API_BURST, DEFAULT_API_BURST),
                integer(env, ENV_RECONCILE_THREADS, DEFAULT_RECONCILE_THREADS),
                bool(env, ENV_POD_EVENTS, false),
                integer(env, ENV_POD_EVENTS_GRACE_SECONDS, (int)
                        UnscheduledPodWatch.Settings.DEFAULT_GRACE.toSeconds()),
                namespaces(env.getOrDefault(ENV_POD_EVENTS_IGNORE_SCHEDULERS, "")),
                previews(env),
                bool(env, ENV_RELEASE_LEASE_SIDECAR, true));
    }

    /**
     * The operator's own image ({@value #ENV_OPERATOR_IMAGE}): it runs a preview's sandbox steps and every scheduler
     * pod's init container.
     */
    public String operatorImage() {
        return previews.operatorImage();
    }

    private static PreviewSettings previews(Map<String, String> env) {
        try {
            return new PreviewSettings(
                    bool(env, ENV_PREVIEWS, false),
                    nonBlank(env.get(ENV_OPERATOR_IMAGE)).orElse(ClusterFacts.BuildInfo.defaultOperatorImage()),
                    nonBlank(env.get(ENV_PREVIEW_APISERVER_IMAGE_REPOSITORY))
                            .orElse(PreviewSettings.DEFAULT_API_SERVER_IMAGE_REPOSITORY),
                    nonBlank(env.get(ENV_PREVIEW_ETCD_IMAGE)).orElse(PreviewSettings.DEFAULT_ETCD_IMAGE),
                    nonBlank(env.get(ENV_PREVIEW_SERVICE_ACCOUNT))
                            .orElse(PreviewSettings.DEFAULT_SANDBOX_SERVICE_ACCOUNT),
                    integer(env, ENV_PREVIEW_MAX_RUNNING, PreviewSettings.DEFAULT_MAX_RUNNING),
                    integer(env, ENV_PREVIEW_TTL_SECONDS, PreviewSettings.DEFAULT_TTL_SECONDS));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    ENV_PREVIEW_MAX_RUNNING + " / " + ENV_PREVIEW_TTL_SECONDS + ": " + e.getMessage(), e);
        }
    }

    /** The image policy: the allowed repositories, or the defaults derived from the operator's own images. */
    public ImagePolicy imagePolicy() {
        return allowedImageRepositories.isEmpty()
                ? ImagePolicy.defaults(extenderImage, schedulerImageRepository)
                : new ImagePolicy(allowedImageRepositories);
    }

    /** Whether, and after how long, pods that no scheduler will take are told why. */
    public UnscheduledPodWatch.Settings podEventSettings() {
        return new UnscheduledPodWatch.Settings(
                podEvents, java.time.Duration.ofSeconds(podEventsGraceSeconds), podEventsIgnoredSchedulers);
    }

    public static Set<String> namespaces(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }

    private static boolean bool(Map<String, String> env, String name, boolean fallback) {
        Optional<String> value = nonBlank(env.get(name));
        if (value.isEmpty()) {
            return fallback;
        }
        return switch (value.get().toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> throw new IllegalArgumentException(name + " must be true or false, not " + value.get());
        };
    }

    private static int integer(Map<String, String> env, String name, int fallback) {
        Optional<String> value = nonBlank(env.get(name));
        try {
            return value.map(Integer::parseInt).orElse(fallback);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, not " + value.get(), e);
        }
    }

    private static double decimal(Map<String, String> env, String name, double fallback) {
        Optional<String> value = nonBlank(env.get(name));
        try {
            return value.map(Double::parseDouble).orElse(fallback);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, not " + value.get(), e);
        }
    }

    private static Optional<String> nonBlank(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    private static Optional<String> podNamespace() {
        try {
            return Files.isReadable(SERVICE_ACCOUNT_NAMESPACE)
                    ? nonBlank(Files.readString(SERVICE_ACCOUNT_NAMESPACE))
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
