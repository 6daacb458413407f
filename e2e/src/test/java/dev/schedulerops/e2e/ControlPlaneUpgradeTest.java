package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.ControlPlaneFaults;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.DeploymentReadiness;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The control plane is upgraded one minor with profiles running: kube-apiserver is stopped, its binary swapped for the
 * next minor's ({@code e2e/cluster swap-binary}, the same etcd, flags and certificates) and started again, and
 * kube-controller-manager and the cluster's kube-scheduler are replaced by the next minor's right after it, as an
 * upgrade does (components after the API server), while a pod
 * of one of two profiles is created every second. The operator reads the new version (every 5 s here,
 * {@code SCHEDULEROPS_VERSION_CHECK_SECONDS}) and rolls each profile's kube-scheduler to that version's image through
 * its one rollout slot; every pod must still be bound through its profile's extender. The {@code kubernetes} Service,
 * the operator's only way to the API server, must have an endpoint again soon after the new API server answers: the
 * one failed run (2026-11-26) read as that Service left without one (e2e/README.md), and its ready addresses are
 * recorded in every run's account. Needs the next version's
 * binaries: {@code e2e/control-plane-upgrade} builds them and runs this class; without
 * {@code -Dschedulerops.upgrade.to} it is skipped, saying so (a cold build of a second version costs 15 to 25
 * minutes, over ./test's budget). It leaves the cluster on the new API server: the script stops that cluster after.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlPlaneUpgradeTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String LABEL = "cp-upgrade.example.com/rank";
    static final List<String> PROFILES = List.of("cp-upgrade-a", "cp-upgrade-b");
    /** What the upgrade replaces, in its order: the API server first. */
    static final List<String> CONTROL_PLANE = List.of("kube-apiserver", "kube-controller-manager", "kube-scheduler");
    /**
     * How long the {@code kubernetes} Service may have no endpoint once the new API server answers: its endpoint
     * reconciler writes its own address at start and then every 10 s (kube-apiserver's {@code EndpointInterval}).
     * In-cluster clients (the operator) reach the API server only through that Service.
     */
    static final Duration KUBERNETES_ENDPOINT_BACK = Duration.ofSeconds(30);

    static final Duration ROLLOUT = Duration.ofMinutes(6);
    /**
     * The longest a pod may wait for its binding across the upgrade: the API server is away for a few seconds, each
     * kube-scheduler loses its lease renewal meanwhile and is restarted by the kubelet, and then is replaced by the new
     * version's (its Deployment's rollout: a new pod, its lease taken over from the old one within the 15 s lease).
     */
    static final Duration MAX_PENDING = Duration.ofSeconds(90);

    private final String to = System.getProperty("schedulerops.upgrade.to", "");
    /**
     * The components swapped for the next version's, the API server always first. The default is an upgrade's:
     * all three. {@code kube-apiserver} alone is the sequence of the first runs (2026-11-26), where the old
     * kube-controller-manager, revived by the supervisor, ran against the new API server.
     */
    private final List<String> upgraded =
            List.of(System.getProperty("schedulerops.upgrade.components", String.join(",", CONTROL_PLANE))
                    .split(","));

    private Cluster cluster;
    private KubernetesClient client;
    private String kwokNode;
    private String namespace;
    private String from;

    static void say(String line) {
        System.out.println("[cp-upgrade] " + line);
        System.out.flush();
    }

    /** The next version's {@code binary}: where e2e/control-plane-upgrade built it, else the default cache. */
    private Path newBinary(String binary) {
        String given = System.getProperty("schedulerops.upgrade.bin", "");
        return given.isEmpty()
                ? Path.of(System.getProperty("user.home"), ".cache", "schedulerops", "k8s", to, binary)
                : Path.of(given, binary);
    }

    /**
     * Why the class cannot run, if it cannot. Asked in the test, not here: an assumption that fails in a
     * {@code @BeforeAll} is reported by surefire as no test at all, where this must show as a skip with its reason.
     */
    private String missing() {
        if (to.isEmpty()) {
            return "needs the next minor's kube-apiserver and kube-scheduler image: run e2e/control-plane-upgrade (it"
                    + " builds them, 15 to 25 minutes cold, and passes -Dschedulerops.upgrade.to)";
        }
        if (!upgraded.get(0).equals("kube-apiserver") || !CONTROL_PLANE.containsAll(upgraded)) {
            throw new IllegalArgumentException("-Dschedulerops.upgrade.components must list kube-apiserver first,"
                    + " then any of " + CONTROL_PLANE + ": " + upgraded);
        }
        return upgraded.stream()
                .map(this::newBinary)
                .filter(binary -> !Files.isExecutable(binary))
                .map(binary -> "no " + binary + ": run e2e/control-plane-upgrade")
                .findFirst()
                .orElse("");
    }

    @BeforeAll
    void installTheProductWithTwoProfiles(Cluster cluster) {
        if (!missing().isEmpty()) {
            return;
        }
        this.cluster = cluster;
        client = cluster.client();
        from = serverVersion();
        kwokNode = OperatorTests.installTheProductOnTheRealNode(cluster, "cp-upgrade", LABEL, ROLLOUT);
        cluster.kubectl(
                        "-n",
                        WORKLOAD,
                        "set",
                        "env",
                        "deployment/" + InClusterTest.OPERATOR,
                        "SCHEDULEROPS_VERSION_CHECK_SECONDS=5",
                        "SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS=1")
                .requireSuccess("kubectl set env on the operator");
        OperatorTests.awaitTheDeployedOperator(client, ROLLOUT);
        for (String profile : PROFILES) {
            client.resource(OperatorTests.profile(
                            "cp-upgrade", profile, "labelKey: " + LABEL + "\nextender: {replicas: 1}\n"))
                    .create();
        }
        for (String profile : PROFILES) {
            OperatorTests.awaitCurrent(client, profile, ROLLOUT);
            assertThat(OperatorTests.image(scheduler(profile)))
                    .as("profile %s's scheduler runs the cluster's version", profile)
                    .isEqualTo(schedulerImage(from));
        }
        namespace = OperatorTests.createRestrictedNamespace(cluster, "cp-upgrade");
    }

    @AfterAll
    void removeTheProduct() {
        if (client != null) {
            OperatorTests.removeTheProductFromTheRealNode(
                    cluster,
                    namespace,
                    LABEL,
                    java.util.Arrays.asList(kwokNode),
                    ROLLOUT,
                    PROFILES.toArray(String[]::new));
        }
    }

    @Test
    void everySchedulerRollsToTheNewVersionsImageWhilePodsKeepBeingScheduled() throws Exception {
        if (!missing().isEmpty()) {
            // Surefire keeps skip reasons in its report files; say it on the console too, as K3sInstallTest does.
            System.out.println("SKIPPED ControlPlaneUpgradeTest: " + missing());
        }
        assumeTrue(missing().isEmpty(), missing());
        AtomicInteger mostRollingAtOnce = new AtomicInteger();
        AtomicBoolean monitoring = new AtomicBoolean(true);
        KubernetesServiceEndpoints endpoints = new KubernetesServiceEndpoints(client);
        Thread monitor = new Thread(() -> {
            while (monitoring.get()) {
                endpoints.sample();
                try {
                    int rolling = (int) PROFILES.stream()
                            .map(this::scheduler)
                            .filter(d -> schedulerImage(to).equals(OperatorTests.image(d))
                                    && !DeploymentReadiness.isAvailableAtCurrentGeneration(d))
                            .count();
                    mostRollingAtOnce.accumulateAndGet(rolling, Math::max);
                } catch (RuntimeException e) {
                    // The API server is away.
                }
                Await.sleep(250);
            }
        });
        PodStream stream = PodStream.start(client, namespace, PROFILES);
        monitor.start();
        Duration down;
        Duration rolled;
        java.util.Set<String> revived;
        try (ControlPlaneFaults.Outage outage = ControlPlaneFaults.stop("kube-apiserver")) {
            outage.swapBinary(newBinary("kube-apiserver"));
            for (String component : upgraded.subList(1, upgraded.size())) {
                outage.swapBinaryOf(component, newBinary(component));
            }
            Instant back = outage.start();
            down = Duration.between(outage.stopped(), back);
            assertThat(serverVersion())
                    .as("the API server now runs the next version")
                    .isEqualTo(to);
            endpoints.awaitAnAddressSince(outage.stopped(), back, KUBERNETES_ENDPOINT_BACK);
            Await.until(
                    ROLLOUT,
                    "every profile's scheduler runs kube-scheduler v" + to + " and is Ready",
                    () -> PROFILES.stream().allMatch(p -> {
                        Deployment d = scheduler(p);
                        return schedulerImage(to).equals(OperatorTests.image(d))
                                && DeploymentReadiness.isAvailableAtCurrentGeneration(d)
                                && OperatorTests.isCurrent(client.resources(SchedulerProfile.class)
                                        .withName(p)
                                        .get());
                    }));
            rolled = Duration.between(back, Instant.now());
            Await.sleep(5_000);
            endpoints.assertNoLongerWithoutAnAddressThan(KUBERNETES_ENDPOINT_BACK);
            revived = outage.revived();
            for (String component : upgraded) {
                assertThat(ControlPlaneFaults.runningBinary(component))
                        .as(component + " runs the next version's binary")
                        .isEqualTo(newBinary(component).toRealPath());
            }
        } finally {
            stream.stop();
            monitoring.set(false);
            monitor.join(30_000);
            say("the kubernetes Service's ready endpoints (EndpointSlices), read about every 250 ms between the"
                    + " rollout checks: " + endpoints);
        }
        List<Pod> pods = stream.stop();

        PodStream.Longest longest = stream.awaitEveryPodBoundTo(kwokNode, ROLLOUT);
        assertThat(longest.waited())
                .as("the longest a pod waited for its binding across the upgrade (" + longest.pod() + ")")
                .isLessThanOrEqualTo(MAX_PENDING);
        assertThat(mostRollingAtOnce.get())
                .as("profiles whose scheduler was rolling to the new image at the same time")
                .isBetween(1, 1);
        say("kube-apiserver upgraded from v" + from + " to v" + to + " (away " + down.toMillis() + " ms) with "
                + pods.size() + " pods created meanwhile: every profile's kube-scheduler ran v" + to + " and was"
                + " Ready " + rolled.toSeconds() + " s after the new API server answered, at most "
                + mostRollingAtOnce.get() + " rolling at once; the longest a pod waited for its binding was "
                + longest.waited().toSeconds() + " s (" + longest.pod() + "); " + String.join(", ", upgraded)
                + " run v" + to + "'s binaries (started again by the test's supervisor: " + revived + ")");
    }

    private String serverVersion() {
        return client.getKubernetesVersion()
                .getGitVersion()
                .replaceFirst("^v", "")
                .replaceAll("[+-].*$", "");
    }

    static String schedulerImage(String version) {
        return "registry.k8s.io/kube-scheduler:v" + version;
    }

    private Deployment scheduler(String profile) {
        return client.apps()
                .deployments()
                .inNamespace(WORKLOAD)
                .withName(new Names(profile, WORKLOAD).scheduler())
                .get();
    }
}
