package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.DeploymentReadiness;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An operator upgrade between two real images on the real node, installed as users install it ({@code kubectl apply
 * --server-side -k}): the "previous" release is the operator and extender images of this build under a second tag
 * in the local registry (the same bits: what changes for the cluster is every image reference), installed through a
 * kustomize overlay of deploy/ with one rollout slot; three profiles run on it. Then the current release, the same
 * overlay with the current tags, is applied while a pod of one of the profiles is created every second. Every
 * profile's extender must roll to the new image one at a time, every pod must be bound within {@link #MAX_PENDING},
 * and the operator's lease must pass from the old pod to the new one.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealImageUpgradeTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String LABEL = "upgrade.example.com/rank";
    static final List<String> PROFILES = List.of("upgrade-a", "upgrade-b", "upgrade-c");
    static final Duration ROLLOUT = Duration.ofMinutes(6);
    static final int ROLLOUT_SLOTS = 1;
    /**
     * The longest a pod may wait for its binding during the upgrade. Each extender rolls with a surge (the old pod
     * serves until the new one is Ready) and no scheduler restarts, so nothing should make a pod wait: the bound
     * leaves room for one failed extender call and kube-scheduler's retry backoff (up to 10 s) on a 2-core machine.
     */
    static final Duration MAX_PENDING = Duration.ofSeconds(20);
    /**
     * Without a release the new operator waits out the lease duration (15 s) from the old one's last renewal; with it,
     * the old one's shutdown (reconciles drained, informers closed) and one retry period (2 s) of the new one.
     */
    static final Duration MAX_LEADERLESS = Duration.ofSeconds(10);

    private Cluster cluster;
    private KubernetesClient client;
    private String kwokNode;
    private String namespace;
    private String currentOperator;
    private String currentExtender;
    private String previousExtender;

    static void say(String line) {
        System.out.println("[upgrade] " + line);
        System.out.flush();
    }

    @BeforeAll
    void installThePreviousReleaseWithThreeProfiles(Cluster cluster) {
        this.cluster = cluster;
        client = cluster.client();
        RealNode.ensure();
        kwokNode = OperatorTests.addTheOnlyLabelledNode(cluster, "upgrade", LABEL, "10");
        currentOperator = image("schedulerops-operator");
        currentExtender = image("schedulerops-extender");
        String previousTag = currentOperator.substring(currentOperator.lastIndexOf(':') + 1) + "-previous";
        String previousOperator = RealNode.tagInRegistry(currentOperator, previousTag);
        previousExtender = RealNode.tagInRegistry(currentExtender, previousTag);
        apply(release("previous", previousOperator, previousExtender));
        awaitOperator(previousOperator);
        for (String profile : PROFILES) {
            client.resource(OperatorTests.profile(
                            "upgrade", profile, "labelKey: " + LABEL + "\nextender: {replicas: 1}\n"))
                    .create();
        }
        for (String profile : PROFILES) {
            OperatorTests.awaitCurrent(client, profile, ROLLOUT);
            assertThat(OperatorTests.image(extender(profile)))
                    .as("profile " + profile + " runs the previous extender")
                    .isEqualTo(previousExtender);
        }
        namespace = OperatorTests.createRestrictedNamespace(cluster, "upgrade");
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
    void anUpgradeRollsEveryProfileToTheNewExtenderOneAtATimeWhilePodsKeepBeingScheduled(TestInfo test)
            throws Exception {
        // The old operator's pod is gone when the test ends: its log, which says what it did with its lease on stop,
        // is kept only if followed while it runs.
        String name = test.getTestMethod().orElseThrow().getName();
        try (AutoCloseable followed = cluster.followProductLogs(name)) {
            upgradeWhilePodsKeepBeingScheduled(cluster.followedLogDir(name));
        }
    }

    private void upgradeWhilePodsKeepBeingScheduled(Path followedLogs) throws Exception {
        Lease leaseBefore = lease();
        String oldOperator = operatorPods().get(0);
        Instant[] oldOperatorStopping = new Instant[1];
        AtomicInteger mostRollingAtOnce = new AtomicInteger();
        AtomicBoolean monitoring = new AtomicBoolean(true);
        Thread monitor = new Thread(() -> {
            while (monitoring.get()) {
                int rolling = (int) PROFILES.stream()
                        .map(this::extender)
                        .filter(d -> currentExtender.equals(OperatorTests.image(d))
                                && !DeploymentReadiness.isAvailableAtCurrentGeneration(d))
                        .count();
                mostRollingAtOnce.accumulateAndGet(rolling, Math::max);
                if (oldOperatorStopping[0] == null) {
                    Pod old = client.pods()
                            .inNamespace(WORKLOAD)
                            .withName(oldOperator)
                            .get();
                    if (old == null || old.getMetadata().getDeletionTimestamp() != null) {
                        oldOperatorStopping[0] = Instant.now();
                    }
                }
                Await.sleep(250);
            }
        });
        PodStream stream = PodStream.start(client, namespace, PROFILES);
        monitor.start();
        Instant applied;
        Duration rolled;
        try {
            Await.sleep(5_000);
            applied = Instant.now();
            apply(release("current", currentOperator, currentExtender));
            Await.until(ROLLOUT, "every profile runs the current extender and is Ready", () -> PROFILES.stream()
                    .allMatch(p -> {
                        Deployment d = extender(p);
                        return currentExtender.equals(OperatorTests.image(d))
                                && DeploymentReadiness.isAvailableAtCurrentGeneration(d)
                                && OperatorTests.isCurrent(client.resources(SchedulerProfile.class)
                                        .withName(p)
                                        .get());
                    }));
            rolled = Duration.between(applied, Instant.now());
            Await.sleep(5_000);
        } finally {
            stream.stop();
            monitoring.set(false);
            monitor.join(30_000);
        }
        List<Pod> pods = stream.stop();
        awaitOperator(currentOperator);

        PodStream.Longest longest = stream.awaitEveryPodBoundTo(kwokNode, ROLLOUT);
        assertThat(longest.waited())
                .as("the longest a pod waited for its binding during the upgrade (" + longest.pod() + ")")
                .isLessThanOrEqualTo(MAX_PENDING);
        assertThat(mostRollingAtOnce.get())
                .as("profiles whose extender was rolling at the same time")
                .isBetween(1, ROLLOUT_SLOTS);

        Lease leaseAfter = lease();
        List<String> currentPods = operatorPods();
        assertThat(leaseAfter.getSpec().getHolderIdentity())
                .as("the lease is held by the new operator pod")
                .isNotEqualTo(leaseBefore.getSpec().getHolderIdentity())
                .satisfies(holder -> assertThat(currentPods).anyMatch(holder::startsWith));
        assertThat(leaseAfter.getSpec().getLeaseTransitions())
                .as("one hand-over")
                .isEqualTo(leaseBefore.getSpec().getLeaseTransitions() + 1);
        assertThat(oldOperatorStopping[0])
                .as("the old operator pod was seen stopping")
                .isNotNull();
        Duration leaderless = Duration.between(
                oldOperatorStopping[0], leaseAfter.getSpec().getAcquireTime().toInstant());
        assertThat(leaderless)
                .as(() -> "from the old operator's stop to the new one's lease: the old one released it (or the new"
                        + " one would wait out the lease duration); the old operator's log of its stop:\n"
                        + stopLog(followedLogs, oldOperator))
                .isLessThan(MAX_LEADERLESS);
        say("Applied the current release over the previous one with " + pods.size() + " pods created meanwhile:"
                + " every profile ran the current extender and was Ready " + rolled.toSeconds() + " s after the apply,"
                + " at most " + mostRollingAtOnce.get()
                + " rolling at once; the longest a pod waited for its binding was "
                + longest.waited().toSeconds() + " s (" + longest.pod() + "); the lease went from "
                + leaseBefore.getSpec().getHolderIdentity() + " to "
                + leaseAfter.getSpec().getHolderIdentity()
                + ", acquired " + leaderless.toMillis() + " ms after the old pod was seen stopping");
    }

    /**
     * A release of the product: deploy/ with the operator image and the extender image it puts in profiles replaced,
     * and {@value #ROLLOUT_SLOTS} rollout slot, as a kustomize overlay a platform team would keep.
     */
    private Path release(String name, String operatorImage, String extenderImage) {
        Path dir = cluster.workDir("release-" + name);
        Path deploy = dir.relativize(cluster.repoRoot().resolve("deploy"));
        String operatorTag = operatorImage.substring(operatorImage.lastIndexOf(':') + 1);
        String kustomization =
                """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - %s
                images:
                  - name: %s
                    newTag: %s
                patches:
                  - patch: |-
                      apiVersion: apps/v1
                      kind: Deployment
                      metadata: {name: %s, namespace: %s}
                      spec:
                        template:
                          spec:
                            containers:
                              - name: operator
                                env:
                                  - {name: SCHEDULEROPS_EXTENDER_IMAGE, value: "%s"}
                                  - {name: SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS, value: "%d"}
                """
                        .formatted(
                                deploy,
                                operatorImage.substring(0, operatorImage.lastIndexOf(':')),
                                operatorTag,
                                InClusterTest.OPERATOR,
                                WORKLOAD,
                                extenderImage,
                                ROLLOUT_SLOTS);
        try {
            Files.writeString(dir.resolve("kustomization.yaml"), kustomization);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    private void apply(Path release) {
        cluster.kubectl("apply", "--server-side", "-k", release.toString())
                .requireSuccess("kubectl apply --server-side -k " + release);
    }

    private void awaitOperator(String image) {
        client.apps()
                .deployments()
                .inNamespace(WORKLOAD)
                .withName(InClusterTest.OPERATOR)
                .waitUntilCondition(
                        d -> d != null
                                && image.equals(OperatorTests.image(d))
                                && DeploymentReadiness.isAvailableAtCurrentGeneration(d),
                        ROLLOUT.toSeconds(),
                        TimeUnit.SECONDS);
    }

    private static String image(String repositorySuffix) {
        return RealNode.imageReferences().stream()
                .filter(r -> r.contains("/" + repositorySuffix + ":"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("e2e/images builds no " + repositorySuffix));
    }

    private Deployment extender(String profile) {
        return client.apps()
                .deployments()
                .inNamespace(WORKLOAD)
                .withName(new Names(profile, WORKLOAD).extender())
                .get();
    }

    private List<String> operatorPods() {
        return OperatorTests.livePods(client, WORKLOAD, Map.of("app.kubernetes.io/name", InClusterTest.OPERATOR))
                .stream()
                .map(p -> p.getMetadata().getName())
                .toList();
    }

    /** What the operator pod {@code pod} logged from its stop on (its log followed while it ran). */
    private static String stopLog(Path dir, String pod) {
        try (var files = Files.list(dir)) {
            List<Path> logs = files.filter(f -> f.getFileName().toString().startsWith(pod + "_"))
                    .toList();
            StringBuilder out = new StringBuilder();
            for (Path log : logs) {
                List<String> lines = Files.readAllLines(log);
                int stop = Math.max(0, lines.size() - 1);
                for (int i = 0; i < lines.size(); i++) {
                    if (lines.get(i).contains("stopping the operator")) {
                        stop = i;
                    }
                }
                out.append(log).append(":\n").append(String.join("\n", lines.subList(stop, lines.size())));
            }
            return logs.isEmpty() ? "no followed log of " + pod + " in " + dir : out.toString();
        } catch (IOException e) {
            return "its followed log could not be read: " + e;
        }
    }

    private Lease lease() {
        return client.leases()
                .inNamespace(WORKLOAD)
                .withName(SchedulerHandOverTest.OPERATOR_LEASE)
                .get();
    }
}
