package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Crds;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Failures that say what is wrong, produced for real: the profiles' pods run on the real node (the KWOK nodes are
 * tainted), so the kubelet and containerd produce the pull failure, the OOM kill and the crash loop, and the real
 * kube-scheduler the Unschedulable condition. The operator runs in the test JVM, with the shipped defaults (the
 * images the real node pulls from the local registry). Each case asserts the profile's Ready reason and message and
 * the Warning event, the way a person would look: {@code kubectl get schedulerprofile -o yaml} and
 * {@code kubectl get events}.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodFailureReasonsTest {
    private static final Duration DIAGNOSED = Duration.ofMinutes(3);
    private static final String EXTENDER_IMAGE = "ghcr.io/schedulerops/schedulerops-extender:0.1.0";

    private KubernetesClient client;
    private OperatorRuntime operator;
    private String namespace;

    @BeforeAll
    void start(Cluster cluster) throws java.io.IOException {
        RealNode.ensure();
        client = cluster.client();
        Crds.installWithKubectl(cluster);
        OperatorTests.installProfileRoles(client);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "failures");
        operator = OperatorRuntime.start(OperatorTests.operatorConfig(Map.of(), namespace), client);
    }

    @AfterAll
    void stop() {
        if (operator != null) {
            OperatorTests.deleteProfiles(client, namespace);
            operator.close();
        }
    }

    @Test
    void anImageThatCannotBePulledIsNamedAndFixingItMakesTheProfileReady() {
        String missing = "ghcr.io/schedulerops/schedulerops-extender:no-such-tag";
        create(
                "pull",
                """
                labelKey: e2e.schedulerops.dev/tier
                extender:
                  replicas: 1
                  image: %s
                """
                        .formatted(missing));

        Condition ready = awaitReadyReason("pull", "ImagePullBackOff");
        assertThat(ready.getMessage())
                .startsWith("The extender cannot run: container extender of pod pull-extender-")
                .contains("cannot pull image " + missing);
        assertThat(warning("pull", "ImagePullBackOff")).contains(missing);

        client.resources(SchedulerProfile.class)
                .withName("pull")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"extender\":{\"image\":null}}}");
        Await.until(
                DIAGNOSED,
                "the profile is Ready once the image is fixed",
                () -> OperatorTests.isCurrent(profile("pull")));
    }

    @Test
    void anExtenderKilledForMemoryNamesTheLimitAndTheField() {
        create(
                "oom",
                """
                labelKey: e2e.schedulerops.dev/tier
                extender:
                  replicas: 1
                  resources:
                    requests: {cpu: 50m, memory: 24Mi}
                    limits: {memory: 24Mi}
                """);

        Condition ready = awaitReadyReason("oom", "OOMKilled");
        assertThat(ready.getMessage()).contains("was OOMKilled", "24Mi", "spec.extender.resources.limits.memory");
        assertThat(warning("oom", "OOMKilled")).contains("24Mi");
    }

    @Test
    void aCrashingSchedulerQuotesItsLastTerminationMessage() {
        // The extender image has no kube-scheduler binary: the runtime cannot start the container, and says so in
        // the termination message, on every restart.
        create(
                "crash",
                """
                labelKey: e2e.schedulerops.dev/tier
                extender:
                  replicas: 1
                scheduler:
                  image: %s
                """
                        .formatted(EXTENDER_IMAGE));

        Condition ready = awaitReadyReason("crash", "CrashLoopBackOff");
        assertThat(ready.getMessage())
                .startsWith("The scheduler cannot run: container kube-scheduler of pod crash-scheduler-")
                .contains("its last termination message:", "kube-scheduler");
        assertThat(OperatorTests.condition(profile("crash"), "ExtenderAvailable")
                        .map(Condition::getStatus))
                .as("the extender runs; only the scheduler fails")
                .contains("True");
        assertThat(warning("crash", "CrashLoopBackOff")).contains("kube-scheduler");

        // Announced once: two more crashes later there is still one event (each crash changes the status message).
        int restarts = schedulerRestarts("crash");
        Await.until(DIAGNOSED, "two more scheduler restarts", () -> schedulerRestarts("crash") >= restarts + 2);
        assertThat(warning("crash", "CrashLoopBackOff")).contains("kube-scheduler");
    }

    private int schedulerRestarts(String profile) {
        return client.pods().inNamespace(namespace).withLabel(Labels.INSTANCE, profile).list().getItems().stream()
                .filter(p -> Labels.COMPONENT_SCHEDULER.equals(
                        p.getMetadata().getLabels().get(Labels.COMPONENT)))
                .filter(p -> p.getStatus().getContainerStatuses() != null)
                .flatMap(p -> p.getStatus().getContainerStatuses().stream())
                .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
                .max()
                .orElse(0);
    }

    @Test
    void aPodNoNodeAcceptsGivesTheSchedulersReason() {
        create(
                "nowhere",
                """
                labelKey: e2e.schedulerops.dev/tier
                extender:
                  replicas: 1
                  nodeSelector: {e2e.schedulerops.dev/no-such-pool: "true"}
                """);

        Condition ready = awaitReadyReason("nowhere", "Unschedulable");
        assertThat(ready.getMessage()).contains("cannot be scheduled", "didn't match Pod's node affinity/selector");
        assertThat(warning("nowhere", "Unschedulable")).contains("nodeSelector");
    }

    private void create(String name, String spec) {
        client.resource(OperatorTests.profile(namespace, name, spec)).create();
    }

    private SchedulerProfile profile(String name) {
        return client.resources(SchedulerProfile.class).withName(name).get();
    }

    private Condition awaitReadyReason(String name, String reason) {
        AtomicReference<Condition> seen = new AtomicReference<>();
        Await.until(DIAGNOSED, name + ": Ready=False with reason " + reason, () -> {
            Optional<Condition> ready = OperatorTests.condition(profile(name), "Ready");
            ready.ifPresent(seen::set);
            return ready.filter(c -> "False".equals(c.getStatus()) && reason.equals(c.getReason()))
                    .isPresent();
        });
        System.out.println("[failures] " + name + ": Ready " + seen.get().getReason() + ": "
                + seen.get().getMessage());
        return seen.get();
    }

    /** The message of the one Warning event with this reason on the profile. */
    private String warning(String name, String reason) {
        AtomicReference<List<Event>> found = new AtomicReference<>(List.of());
        Await.until(Duration.ofSeconds(30), name + ": a Warning event " + reason, () -> {
            found.set(OperatorTests.events(client, name)
                    .filter(e -> "Warning".equals(e.getType()) && reason.equals(e.getReason()))
                    .toList());
            return !found.get().isEmpty();
        });
        assertThat(found.get()).as("announced once, not on every kubelet retry").hasSize(1);
        return found.get().get(0).getMessage();
    }
}
