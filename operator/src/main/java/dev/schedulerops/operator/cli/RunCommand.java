package dev.schedulerops.operator.cli;

import dev.schedulerops.operator.runtime.ApiRateLimiter;
import dev.schedulerops.operator.runtime.OperatorConfig;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import dev.schedulerops.operator.runtime.RepeatedStrings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Runs the operator until the process is told to stop (SIGTERM, Ctrl-C). */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Run the operator against the current kubeconfig or in-cluster config.",
            "Settings come from SCHEDULEROPS_* environment variables; these flags override them.",
            "Logs go to stderr; SCHEDULEROPS_LOG_FORMAT=json|text chooses their format."
        })
public final class RunCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

    @Option(
            names = "--workload-namespace",
            paramLabel = "NS",
            description = "Where every profile's scheduler, extender and their objects go (env"
                    + " SCHEDULEROPS_WORKLOAD_NAMESPACE; default: the operator's own namespace, else"
                    + " schedulerops-system).")
    String workloadNamespace;

    @Option(
            names = "--profile-selector",
            paramLabel = "SELECTOR",
            description = "Reconcile only the SchedulerProfiles this label selector matches; empty for all (env"
                    + " SCHEDULEROPS_PROFILE_SELECTOR).")
    String profileSelector;

    @Option(
            names = "--allowed-image-repositories",
            paramLabel = "REPO[,REPO...]",
            description = "Image repositories (or prefixes ending in /) that profiles may name; default: the"
                    + " extender image's repository and the kube-scheduler repository (env"
                    + " SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES).")
    String allowedImageRepositories;

    @Option(
            names = "--protected-namespaces",
            paramLabel = "NS[,NS...]",
            description = "Namespaces that may not be the workload namespace (profiles are refused then); replaces the"
                    + " default kube-system,kube-public,kube-node-lease (env SCHEDULEROPS_PROTECTED_NAMESPACES).")
    String protectedNamespaces;

    @Option(
            names = "--leader-election",
            negatable = true,
            description = "Take the lease before reconciling; --no-leader-election for local runs"
                    + " (env SCHEDULEROPS_LEADER_ELECTION; default: on in-cluster).")
    Boolean leaderElection;

    @Option(
            names = "--leader-election-namespace",
            description = "Namespace of the lease (env SCHEDULEROPS_LEADER_ELECTION_NAMESPACE; default: the workload"
                    + " namespace).")
    String leaderElectionNamespace;

    @Option(names = "--extender-image", description = "Default extender image (env SCHEDULEROPS_EXTENDER_IMAGE).")
    String extenderImage;

    @Option(
            names = "--scheduler-image-repository",
            description = "kube-scheduler image repository (env SCHEDULEROPS_SCHEDULER_IMAGE_REPOSITORY).")
    String schedulerImageRepository;

    @Option(names = "--http-port", description = "Port of /healthz, /readyz, /metrics (env SCHEDULEROPS_HTTP_PORT).")
    Integer httpPort;

    @Option(
            names = "--http-bind-address",
            description = "Address of that server (env SCHEDULEROPS_HTTP_BIND_ADDRESS, default 0.0.0.0).")
    String httpBindAddress;

    @Option(
            names = "--max-concurrent-rollouts",
            description = "How many profiles may restart their pods at once, each extender first; the others wait"
                    + " their turn (env SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS, default 5).")
    Integer maxConcurrentRollouts;

    @Option(
            names = "--version-check-seconds",
            description = "How often to read the API server's version again; a control-plane upgrade then rolls the"
                    + " schedulers to the new version (env SCHEDULEROPS_VERSION_CHECK_SECONDS, default 300).")
    Integer versionCheckSeconds;

    @Option(
            names = "--api-qps",
            description = "Requests per second the operator sends the API server at most, on average; as client-go's"
                    + " QPS (env SCHEDULEROPS_API_QPS, default 100).")
    Double apiQps;

    @Option(
            names = "--api-burst",
            description = "How many requests may go at once above that rate; as client-go's Burst (env"
                    + " SCHEDULEROPS_API_BURST, default 200).")
    Integer apiBurst;

    @Option(
            names = "--reconcile-threads",
            description = "How many profiles are reconciled at the same time (env SCHEDULEROPS_RECONCILE_THREADS,"
                    + " default 10).")
    Integer reconcileThreads;

    @Option(
            names = "--pod-events",
            negatable = true,
            description = "Record a Warning event on each Pending pod that no scheduler will take (its schedulerName"
                    + " names a profile that is not Ready, refused or deleted, or no profile while no scheduler looked"
                    + " at it). Needs list/watch on pods and create on events in every namespace: deploy/pod-events"
                    + " (env SCHEDULEROPS_POD_EVENTS, default off).")
    Boolean podEvents;

    @Option(
            names = "--pod-events-grace-seconds",
            description = "How long a pod may wait for its scheduler before it is told why none takes it (env"
                    + " SCHEDULEROPS_POD_EVENTS_GRACE_SECONDS, default 60).")
    Integer podEventsGraceSeconds;

    @Option(
            names = "--pod-events-ignore-schedulers",
            description = "Comma-separated schedulerNames of other schedulers in the cluster (Volcano, YuniKorn, ...)"
                    + " whose pods are never told anything (env SCHEDULEROPS_POD_EVENTS_IGNORE_SCHEDULERS).")
    String podEventsIgnoreSchedulers;

    @Override
    public Integer call() throws Exception {
        OperatorConfig config = OperatorConfig.fromEnvironment(flagOverrides());
        ApiRateLimiter rateLimiter = new ApiRateLimiter(config.apiQps(), config.apiBurst());
        KubernetesClient client = client(rateLimiter);
        OperatorRuntime runtime;
        try {
            runtime = OperatorRuntime.start(config, client, rateLimiter);
        } catch (RuntimeException e) {
            LOG.error("the operator could not start", e);
            client.close();
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            runtime.close();
                            client.close();
                            stopped.countDown();
                        },
                        "shutdown"));
        stopped.await();
        return 0;
    }

    /** The operator's client: its requests rate-limited, its decoded strings shared ({@link RepeatedStrings}). */
    static KubernetesClient client(ApiRateLimiter rateLimiter) {
        return new KubernetesClientBuilder()
                .withKubernetesSerialization(RepeatedStrings.serialization())
                .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor(ApiRateLimiter.NAME, rateLimiter))
                .build();
    }

    /** Flags override the environment variable of the same setting. */
    Map<String, String> flagOverrides() {
        Map<String, String> overrides = new HashMap<>();
        putIfSet(overrides, OperatorConfig.ENV_WORKLOAD_NAMESPACE, workloadNamespace);
        putIfSet(overrides, OperatorConfig.ENV_PROFILE_SELECTOR, profileSelector);
        putIfSet(overrides, OperatorConfig.ENV_ALLOWED_IMAGE_REPOSITORIES, allowedImageRepositories);
        putIfSet(overrides, OperatorConfig.ENV_PROTECTED_NAMESPACES, protectedNamespaces);
        putIfSet(overrides, OperatorConfig.ENV_LEADER_ELECTION, leaderElection);
        putIfSet(overrides, OperatorConfig.ENV_LEADER_ELECTION_NAMESPACE, leaderElectionNamespace);
        putIfSet(overrides, OperatorConfig.ENV_EXTENDER_IMAGE, extenderImage);
        putIfSet(overrides, OperatorConfig.ENV_SCHEDULER_IMAGE_REPOSITORY, schedulerImageRepository);
        putIfSet(overrides, OperatorConfig.ENV_HTTP_PORT, httpPort);
        putIfSet(overrides, OperatorConfig.ENV_HTTP_BIND_ADDRESS, httpBindAddress);
        putIfSet(overrides, OperatorConfig.ENV_MAX_CONCURRENT_ROLLOUTS, maxConcurrentRollouts);
        putIfSet(overrides, OperatorConfig.ENV_VERSION_CHECK_SECONDS, versionCheckSeconds);
        putIfSet(overrides, OperatorConfig.ENV_API_QPS, apiQps);
        putIfSet(overrides, OperatorConfig.ENV_API_BURST, apiBurst);
        putIfSet(overrides, OperatorConfig.ENV_RECONCILE_THREADS, reconcileThreads);
        putIfSet(overrides, OperatorConfig.ENV_POD_EVENTS, podEvents);
        putIfSet(overrides, OperatorConfig.ENV_POD_EVENTS_GRACE_SECONDS, podEventsGraceSeconds);
        putIfSet(overrides, OperatorConfig.ENV_POD_EVENTS_IGNORE_SCHEDULERS, podEventsIgnoreSchedulers);
        return overrides;
    }

    private static void putIfSet(Map<String, String> overrides, String key, Object value) {
        if (value != null) {
            overrides.put(key, value.toString());
        }
    }
}
