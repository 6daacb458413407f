package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.reconcile.DeploymentReadiness;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An upgrade of the operator itself (a new default extender image and a new kube-scheduler image repository, so both
 * components of every profile get a new pod template) on the real control plane: 10 profiles roll with at most 3 at
 * once, each extender before its scheduler, and no profile is ever left without an available extender and scheduler.
 * A monitor lists the Deployments every 100 ms for the whole upgrade; every assertion is about what it saw.
 *
 * <p>KWOK runs no scheduler process, so "no pod left Pending because a scheduler was down" is checked through its
 * proxy: every profile's scheduler Deployment had an available replica in every sample.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorUpgradeTest {
    static final int PROFILES = 10;
    static final int MAX_ROLLING = 3;
    static final String OLD_EXTENDER = "example.com/schedulerops-extender:old";
    static final String NEW_EXTENDER = "example.com/schedulerops-extender:new";
    static final String NEW_SCHEDULER_REPOSITORY = "mirror.example.com/kube-scheduler";
    static final String POOL_LABEL = "e2e.schedulerops.dev/pool";

    KubernetesClient client;
    String namespace;
    OperatorRuntime operator;

    /** One poll: per profile, what its two Deployments run and whether they are available. */
    record Sample(Map<String, ProfileState> profiles, Set<String> waitingForSlot) {}

    record ProfileState(
            boolean extenderNew,
            boolean extenderDone,
            int extenderAvailable,
            boolean schedulerNew,
            boolean schedulerDone,
            int schedulerAvailable) {

        boolean rolling() {
            return (extenderNew || schedulerNew) && !(extenderDone && schedulerDone);
        }
    }

    @BeforeAll
    void start(Cluster cluster) {
        client = cluster.client();
        OperatorTests.installCrd(client);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "upgrade");
        // 30 pods and the surges of 3 rollouts need about 4 CPUs: four nodes of 4 CPUs leave room. The profiles'
        // pods are pinned to them, so that they never land on (and block drains of) another test class's nodes.
        cluster.addNodes(4, Map.of(POOL_LABEL, namespace));
    }

    /** Deletes the profiles through the operator (its teardown removes their Deployments and PDBs), then stops it. */
    @AfterAll
    void stop() {
        if (operator == null) {
            return;
        }
        try {
            client.resources(SchedulerProfile.class)
                    .withLabel(OperatorTests.RUN_LABEL, namespace)
                    .delete();
            Await.until(
                    Duration.ofSeconds(120),
                    "the profiles and their Deployments are deleted",
                    () -> client.resources(SchedulerProfile.class)
                                    .withLabel(OperatorTests.RUN_LABEL, namespace)
                                    .list()
                                    .getItems()
                                    .isEmpty()
                            && client.apps()
                                    .deployments()
                                    .inNamespace(namespace)
                                    .list()
                                    .getItems()
                                    .isEmpty());
        } finally {
            operator.close();
        }
    }

    @Test
    void anUpgradeRollsAtMostNProfilesAtOnceEachExtenderFirstAndNeverLeavesOneWithoutAScheduler() throws Exception {
        operator = OperatorRuntime.start(
                OperatorTests.operatorConfig(Map.of("SCHEDULEROPS_EXTENDER_IMAGE", OLD_EXTENDER), namespace), client);
        List<String> names =
                IntStream.range(0, PROFILES).mapToObj(i -> "up-" + i).toList();
        for (String name : names) {
            client.resource(OperatorTests.profile(
                            namespace,
                            name,
                            """
                            labelKey: e2e.schedulerops.dev/tier
                            schedulerName: %s
                            extender: {nodeSelector: {%s: %s}}
                            scheduler: {nodeSelector: {%s: %s}}
                            """
                                    .formatted(name, POOL_LABEL, namespace, POOL_LABEL, namespace)))
                    .create();
        }
        Await.until(
                Duration.ofSeconds(180),
                "all " + PROFILES + " profiles Ready with the old operator",
                () -> names.stream().allMatch(name -> OperatorTests.isCurrent(profile(name))));
        assertThat(sample(names).profiles().values()).noneMatch(p -> p.extenderNew() || p.schedulerNew());

        // The upgrade: the old operator stops, the new one starts with other defaults.
        operator.close();
        List<Sample> samples = new ArrayList<>();
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread monitor = new Thread(() -> {
            while (watching.get()) {
                Sample sample = sample(names);
                synchronized (samples) {
                    samples.add(sample);
                }
                Await.sleep(100);
            }
        });
        monitor.start();
        long started = System.nanoTime();
        try {
            operator = OperatorRuntime.start(
                    OperatorTests.operatorConfig(
                            Map.of(
                                    "SCHEDULEROPS_EXTENDER_IMAGE", NEW_EXTENDER,
                                    "SCHEDULEROPS_SCHEDULER_IMAGE_REPOSITORY", NEW_SCHEDULER_REPOSITORY,
                                    "SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS", String.valueOf(MAX_ROLLING)),
                            namespace),
                    client);
            Await.until(Duration.ofSeconds(300), "every profile rolled to the new images and Ready", () -> {
                Sample now = sample(names);
                return now.profiles().values().stream().allMatch(p -> p.extenderDone() && p.schedulerDone())
                        && names.stream().allMatch(name -> OperatorTests.isCurrent(profile(name)));
            });
        } finally {
            watching.set(false);
            monitor.join();
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        int mostRolling = 0;
        Set<String> sawWaiting = new HashSet<>();
        for (Sample sample : samples) {
            long rolling = sample.profiles().values().stream()
                    .filter(ProfileState::rolling)
                    .count();
            mostRolling = Math.max(mostRolling, (int) rolling);
            sawWaiting.addAll(sample.waitingForSlot());
            sample.profiles().forEach((name, p) -> {
                assertThat(p.extenderAvailable())
                        .as("%s: available extender replicas in every sample", name)
                        .isGreaterThanOrEqualTo(1);
                assertThat(p.schedulerAvailable())
                        .as("%s: available scheduler replicas in every sample", name)
                        .isGreaterThanOrEqualTo(1);
                if (p.schedulerNew()) {
                    assertThat(p.extenderDone())
                            .as(
                                    "%s: the scheduler got its new template only after the new extender was available",
                                    name)
                            .isTrue();
                }
            });
        }
        System.out.printf(
                "upgrade of %d profiles with --max-concurrent-rollouts=%d: %d samples, at most %d rolling at once,"
                        + " %d seen waiting, %.1f s from the new operator's start until all were Ready%n",
                PROFILES, MAX_ROLLING, samples.size(), mostRolling, sawWaiting.size(), took.toMillis() / 1000.0);
        assertThat(samples).as("samples taken during the upgrade").hasSizeGreaterThan(20);
        assertThat(mostRolling)
                .as("most profiles rolling at once (--max-concurrent-rollouts=%d)", MAX_ROLLING)
                .isEqualTo(MAX_ROLLING);
        assertThat(sawWaiting)
                .as("profiles seen with Ready=False WaitingForRolloutSlot while others rolled")
                .isNotEmpty();
        for (String name : names) {
            SchedulerProfile done = profile(name);
            assertThat(done.getStatus().getExtenderImage()).isEqualTo(NEW_EXTENDER);
            assertThat(done.getStatus().getSchedulerImage()).startsWith(NEW_SCHEDULER_REPOSITORY + ":v");
        }
        String metrics = scrape(operator.httpPort());
        assertThat(metrics)
                .contains("schedulerops_rollouts{state=\"rolling\"} 0.0")
                .contains("schedulerops_rollouts{state=\"waiting\"} 0.0");
    }

    private Sample sample(List<String> names) {
        Map<String, Deployment> deployments = new HashMap<>();
        client.apps()
                .deployments()
                .inNamespace(namespace)
                .list()
                .getItems()
                .forEach(d -> deployments.put(d.getMetadata().getName(), d));
        Map<String, ProfileState> profiles = new HashMap<>();
        for (String name : names) {
            Deployment extender = deployments.get(name + "-extender");
            Deployment scheduler = deployments.get(name + "-scheduler");
            boolean extenderNew = OperatorTests.image(extender).equals(NEW_EXTENDER);
            boolean schedulerNew = OperatorTests.image(scheduler).startsWith(NEW_SCHEDULER_REPOSITORY + ":");
            profiles.put(
                    name,
                    new ProfileState(
                            extenderNew,
                            extenderNew && DeploymentReadiness.isAvailableAtCurrentGeneration(extender),
                            OperatorTests.available(extender),
                            schedulerNew,
                            schedulerNew && DeploymentReadiness.isAvailableAtCurrentGeneration(scheduler),
                            OperatorTests.available(scheduler)));
        }
        Set<String> waiting = new HashSet<>();
        client
                .resources(SchedulerProfile.class)
                .withLabel(OperatorTests.RUN_LABEL, namespace)
                .list()
                .getItems()
                .stream()
                .filter(p -> OperatorTests.condition(p, "Ready")
                        .map(c -> "WaitingForRolloutSlot".equals(c.getReason()))
                        .orElse(false))
                .forEach(p -> waiting.add(p.getMetadata().getName()));
        return new Sample(profiles, waiting);
    }

    private SchedulerProfile profile(String name) {
        return client.resources(SchedulerProfile.class).withName(name).get();
    }

    private static String scrape(int port) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return response.body();
    }
}
