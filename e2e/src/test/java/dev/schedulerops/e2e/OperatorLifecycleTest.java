package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Loopback;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator, run in-process with cluster-admin credentials, against the real control plane of e2e/cluster. One
 * profile goes through its life in order: ordered creation, updates, drift, refusal, deletion. The workload namespace
 * enforces the restricted Pod Security level, so every pod the operator's Deployments create has passed real
 * admission.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperatorLifecycleTest {
    static final String PROFILE = "lifecycle";
    static final String BLOCKING_CPU = "1000"; // no KWOK node has that much: the extender cannot become Available

    Cluster cluster;
    KubernetesClient client;
    OperatorRuntime operator;
    /** The operator's workload namespace, also the value of this run's profile label. */
    String namespace;

    @BeforeAll
    void startOperator(Cluster cluster) throws IOException {
        this.cluster = cluster;
        client = cluster.client();
        OperatorTests.installCrd(client);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "op-e2e");
        operator = OperatorRuntime.start(OperatorTests.operatorConfig(Map.of(), namespace), client);
    }

    @AfterAll
    void stopOperator() {
        // The namespace goes with the Cluster when the class ends; the client is the Cluster's, shared.
        if (operator != null) {
            OperatorTests.deleteProfiles(client, namespace);
            operator.close();
        }
    }

    @Test
    @Order(1)
    void theSchedulerIsConfiguredOnlyOnceTheExtenderIsAvailable() {
        client.resource(OperatorTests.profile(
                        namespace,
                        PROFILE,
                        """
                        labelKey: e2e.schedulerops.dev/tier
                        extender:
                          resources:
                            requests:
                              cpu: "%s"
                        """
                                .formatted(BLOCKING_CPU)))
                .create();

        Await.until(Duration.ofSeconds(60), "the extender Deployment is created", () -> deployment("extender")
                .isPresent());
        Await.holdsFor(
                Duration.ofSeconds(10),
                "no scheduler ConfigMap or Deployment while the extender is not Available",
                () -> deployment("scheduler").isEmpty() && configMap().isEmpty());
        // The extender waits, and the profile says why: its pods' PodScheduled condition (PodTrouble).
        Await.until(Duration.ofSeconds(30), "Ready=False Unschedulable", () -> readyReason()
                .equals(Optional.of("Unschedulable")));
        assertThat(condition(profile(), "Ready").orElseThrow().getMessage())
                .startsWith("The extender cannot run: pod " + PROFILE + "-extender-")
                .contains("Insufficient cpu");
        assertThat(OperatorTests.warnings(client, PROFILE)).containsOnlyOnce("Unschedulable");

        patch(PROFILE, "{\"spec\":{\"extender\":{\"resources\":null}}}");

        Await.until(Duration.ofSeconds(90), "the profile becomes Ready", () -> OperatorTests.isCurrent(profile()));
        assertThat(deployment("scheduler")).isPresent();
        assertThat(configMap()).isPresent();
        SchedulerProfile ready = profile();
        assertThat(ready.getStatus().getSchedulerImage())
                .isEqualTo("registry.k8s.io/kube-scheduler:v" + cluster.kubernetesVersion());
        assertThat(ready.getStatus().getConfigHash())
                .isNotBlank()
                .isEqualTo(configHashOnPodTemplate(deployment("scheduler").orElseThrow()));
        assertThat(ready.getStatus().getSchedulerName()).isEqualTo(PROFILE);
        assertThat(OperatorTests.reasons(client, PROFILE))
                .contains("Created", "ExtenderAvailable", "SchedulerAvailable", "Ready");
    }

    @Test
    @Order(2)
    void everyGeneratedPodIsAdmittedUnderRestrictedPodSecurity() {
        Await.until(
                Duration.ofSeconds(60),
                "the extender's 2 pods and the scheduler's pod run",
                () ->
                        client
                                        .pods()
                                        .inNamespace(namespace)
                                        .withLabel(Labels.INSTANCE, PROFILE)
                                        .list()
                                        .getItems()
                                        .stream()
                                        .filter(p ->
                                                "Running".equals(p.getStatus().getPhase()))
                                        .count()
                                >= 3);
        List<Pod> pods = client.pods()
                .inNamespace(namespace)
                .withLabel(Labels.INSTANCE, PROFILE)
                .list()
                .getItems();
        assertThat(pods)
                .extracting(p -> p.getMetadata().getLabels().get(Labels.COMPONENT))
                .contains(Labels.COMPONENT_EXTENDER, Labels.COMPONENT_SCHEDULER);
        List<Event> refused = client.v1()
                .events()
                .inNamespace(namespace)
                .withField("reason", "FailedCreate")
                .list()
                .getItems();
        assertThat(refused).as("ReplicaSets refused by admission").isEmpty();
    }

    @Test
    @Order(3)
    void statusIsNotPatchedWhenNothingChanged() {
        String before = profile().getMetadata().getResourceVersion();
        // Node and Deployment status events keep reconciling the profile meanwhile.
        Await.holdsFor(
                Duration.ofSeconds(8),
                "the profile's resourceVersion stays " + before,
                () -> before.equals(profile().getMetadata().getResourceVersion()));
        assertThat(profile().getMetadata().getResourceVersion()).isEqualTo(before);
    }

    @Test
    @Order(4)
    void aPluginChangeRollsOnlyTheScheduler() {
        Deployment extenderBefore = deployment("extender").orElseThrow();
        String hashBefore = profile().getStatus().getConfigHash();

        patch(PROFILE, "{\"spec\":{\"plugins\":{\"score\":{\"disabled\":[{\"name\":\"ImageLocality\"}]}}}}");

        Await.until(Duration.ofSeconds(60), "the scheduler runs the new config", () -> {
            SchedulerProfile p = profile();
            return OperatorTests.isCurrent(p)
                    && !hashBefore.equals(p.getStatus().getConfigHash());
        });
        String hashAfter = profile().getStatus().getConfigHash();
        assertThat(configHashOnPodTemplate(deployment("scheduler").orElseThrow()))
                .isEqualTo(hashAfter);
        assertThat(configMap().orElseThrow().getData().values().iterator().next())
                .contains("ImageLocality");
        assertThat(deployment("extender").orElseThrow().getMetadata().getGeneration())
                .as("the extender is left alone")
                .isEqualTo(extenderBefore.getMetadata().getGeneration());
        assertThat(OperatorTests.reasons(client, PROFILE)).contains("SchedulerRolloutStarted");
    }

    @Test
    @Order(5)
    void anExtenderChangeRollsTheExtenderFirstThenTheScheduler() {
        Deployment schedulerBefore = deployment("scheduler").orElseThrow();
        ConfigMap configBefore = configMap().orElseThrow();
        long extenderGeneration =
                deployment("extender").orElseThrow().getMetadata().getGeneration();

        // A label-key change (extender) together with a plugin change (scheduler), while the extender's new
        // pods cannot be scheduled: the scheduler must keep its old config until the extender has rolled out.
        patch(
                PROFILE,
                """
                {"spec":{"labelKey":"e2e.schedulerops.dev/zone",
                 "plugins":{"score":{"disabled":[{"name":"ImageLocality"},{"name":"NodeResourcesBalancedAllocation"}]}},
                 "extender":{"resources":{"requests":{"cpu":"%s"}}}}}"""
                        .formatted(BLOCKING_CPU));

        Await.until(
                Duration.ofSeconds(30),
                "the extender rollout starts",
                () -> deployment("extender").orElseThrow().getMetadata().getGeneration() > extenderGeneration);
        Await.holdsFor(
                Duration.ofSeconds(10),
                "the scheduler's config and Deployment stay as they were while the extender rolls out",
                () -> deployment("scheduler")
                                .orElseThrow()
                                .getMetadata()
                                .getGeneration()
                                .equals(schedulerBefore.getMetadata().getGeneration())
                        && configMap()
                                .orElseThrow()
                                .getMetadata()
                                .getResourceVersion()
                                .equals(configBefore.getMetadata().getResourceVersion()));
        // The old extender pods still run; the new one that cannot be scheduled is what the profile reports.
        assertThat(readyReason()).contains("Unschedulable");

        patch(PROFILE, "{\"spec\":{\"extender\":{\"resources\":null}}}");

        Await.until(Duration.ofSeconds(90), "both roll out and the profile is Ready", () -> {
            SchedulerProfile p = profile();
            return OperatorTests.isCurrent(p)
                    && !configHashOnPodTemplate(schedulerBefore)
                            .equals(p.getStatus().getConfigHash());
        });
        Deployment extender = deployment("extender").orElseThrow();
        assertThat(extender.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getEnv())
                .anySatisfy(env -> assertThat(env.getValue()).isEqualTo("e2e.schedulerops.dev/zone"));
        assertThat(deployment("scheduler").orElseThrow().getMetadata().getGeneration())
                .isGreaterThan(schedulerBefore.getMetadata().getGeneration());
        assertThat(OperatorTests.reasons(client, PROFILE)).contains("ExtenderRolloutStarted");

        // A label-key change alone leaves the scheduler config as it is, yet restarts the scheduler after the
        // extender (its pod template carries the extender rule hash), so pods the old rule rejected are retried.
        Deployment schedulerBeforeKeyChange = deployment("scheduler").orElseThrow();
        String hashBeforeKeyChange = profile().getStatus().getConfigHash();
        patch(PROFILE, "{\"spec\":{\"labelKey\":\"e2e.schedulerops.dev/rack\"}}");
        Await.until(Duration.ofSeconds(90), "the scheduler restarts after the extender", () -> {
            SchedulerProfile p = profile();
            return OperatorTests.isCurrent(p)
                    && deployment("scheduler").orElseThrow().getMetadata().getGeneration()
                            > schedulerBeforeKeyChange.getMetadata().getGeneration();
        });
        assertThat(profile().getStatus().getConfigHash()).isEqualTo(hashBeforeKeyChange);
        patch(PROFILE, "{\"spec\":{\"labelKey\":\"e2e.schedulerops.dev/zone\"}}");
        Await.until(
                Duration.ofSeconds(90), "Ready on the previous label key", () -> OperatorTests.isCurrent(profile()));
    }

    @Test
    @Order(6)
    void handEditsAndDeletionsArePutBack() {
        String extender = names().extender();
        client.services().inNamespace(namespace).withName(extender).delete();
        client.apps().deployments().inNamespace(namespace).withName(extender).scale(5);
        client.configMaps()
                .inNamespace(namespace)
                .withName(names().schedulerConfig())
                .edit(cm -> {
                    cm.getData().replaceAll((k, v) -> "tampered: true\n");
                    return cm;
                });

        Await.until(Duration.ofSeconds(30), "the Service, replicas and config are restored", () -> {
            boolean service =
                    client.services().inNamespace(namespace).withName(extender).get() != null;
            Deployment d = deployment("extender").orElseThrow();
            boolean replicas = d.getSpec().getReplicas() == 2;
            boolean config = configMap()
                    .map(cm -> cm.getData().values().iterator().next().contains("KubeSchedulerConfiguration"))
                    .orElse(false);
            return service && replicas && config;
        });
    }

    @Test
    @Order(7)
    void anInvalidProfileIsReportedAndNothingRunningIsTouched() {
        Deployment schedulerBefore = deployment("scheduler").orElseThrow();
        Deployment extenderBefore = deployment("extender").orElseThrow();

        patch(
                PROFILE,
                """
                {"spec":{"labelKey":"e2e.schedulerops.dev/changed",
                 "plugins":{"score":{"enabled":[{"name":"NoSuchPlugin","weight":1}]}}}}""");

        Await.until(Duration.ofSeconds(30), "ConfigValid=False InvalidConfig", () -> condition(profile(), "ConfigValid")
                .map(c -> "False".equals(c.getStatus()) && "InvalidConfig".equals(c.getReason()))
                .orElse(false));
        SchedulerProfile invalid = profile();
        assertThat(condition(invalid, "ConfigValid").orElseThrow().getMessage()).contains("NoSuchPlugin");
        assertThat(condition(invalid, "Ready").orElseThrow().getReason()).isEqualTo("InvalidConfig");
        // kstatus (Flux) reports it Failed: Stalled=True at the observed generation.
        assertThat(condition(invalid, "Stalled").orElseThrow().getStatus()).isEqualTo("True");
        assertThat(OperatorTests.isCurrent(invalid)).isFalse();
        assertThat(invalid.getStatus().getObservedGeneration())
                .isEqualTo(invalid.getMetadata().getGeneration());
        Await.holdsFor(
                Duration.ofSeconds(5),
                "nothing running is changed",
                () -> deployment("scheduler")
                                .orElseThrow()
                                .getMetadata()
                                .getGeneration()
                                .equals(schedulerBefore.getMetadata().getGeneration())
                        && deployment("extender")
                                .orElseThrow()
                                .getMetadata()
                                .getGeneration()
                                .equals(extenderBefore.getMetadata().getGeneration()));
        assertThat(OperatorTests.warnings(client, PROFILE)).contains("InvalidConfig");

        patch(PROFILE, "{\"spec\":{\"labelKey\":\"e2e.schedulerops.dev/zone\",\"plugins\":null}}");
        Await.until(Duration.ofSeconds(60), "Ready again", () -> OperatorTests.isCurrent(profile()));
    }

    @Test
    @Order(8)
    void aSecondProfileWithTheSameSchedulerNameIsRefused() {
        client.resource(OperatorTests.profile(
                        namespace,
                        "usurper",
                        """
                        schedulerName: %s
                        labelKey: e2e.schedulerops.dev/tier
                        """
                                .formatted(PROFILE)))
                .create();

        Await.until(Duration.ofSeconds(30), "ConfigValid=False SchedulerNameConflict", () -> {
            SchedulerProfile p =
                    client.resources(SchedulerProfile.class).withName("usurper").get();
            return condition(p, "ConfigValid")
                    .map(c -> "SchedulerNameConflict".equals(c.getReason())
                            && c.getMessage().contains("'" + PROFILE + "'"))
                    .orElse(false);
        });
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(namespace)
                        .withLabel(Labels.PROFILE, "usurper")
                        .list()
                        .getItems())
                .isEmpty();
        assertThat(OperatorTests.warnings(client, "usurper")).contains("SchedulerNameConflict");
        assertThat(OperatorTests.isCurrent(profile()))
                .as("the holder is untouched")
                .isTrue();

        client.resources(SchedulerProfile.class).withName("usurper").delete();
        Await.until(
                Duration.ofSeconds(30),
                "the refused profile is deleted",
                () -> client.resources(SchedulerProfile.class)
                                .withName("usurper")
                                .get()
                        == null);
    }

    @Test
    @Order(9)
    void metricsAndProbesAreServed() {
        HttpResponse<String> metrics = Loopback.get(operator.httpPort(), "/metrics");
        assertThat(metrics.body())
                .contains("schedulerops_profiles{ready=\"true\"} 1.0")
                .contains("jvm_memory_used_bytes")
                .contains("operator_sdk_");
        for (String probe : List.of("/healthz", "/readyz")) {
            assertThat(Loopback.status(operator.httpPort(), probe)).as(probe).isEqualTo(200);
        }
    }

    @Test
    @Order(10)
    void deletingTheProfileRemovesEverythingIncludingClusterScopedObjects() {
        client.resources(SchedulerProfile.class).withName(PROFILE).delete();

        Await.until(
                Duration.ofSeconds(90),
                "the profile is gone",
                () -> client.resources(SchedulerProfile.class).withName(PROFILE).get() == null);
        assertThat(OperatorTests.leftovers(client, namespace, PROFILE)).isEmpty();
    }

    // --- helpers -------------------------------------------------------------------------------------------------

    SchedulerProfile profile() {
        return client.resources(SchedulerProfile.class).withName(PROFILE).get();
    }

    void patch(String name, String mergePatch) {
        client.resources(SchedulerProfile.class)
                .withName(name)
                .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
    }

    Optional<Deployment> deployment(String component) {
        return Optional.ofNullable(client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(PROFILE + "-" + component)
                .get());
    }

    /** The names of what the profile becomes, as the operator builds them. */
    Names names() {
        return new Names(PROFILE, namespace);
    }

    Optional<ConfigMap> configMap() {
        return Optional.ofNullable(client.configMaps()
                .inNamespace(namespace)
                .withName(names().schedulerConfig())
                .get());
    }

    Optional<String> readyReason() {
        return condition(profile(), "Ready").map(Condition::getReason);
    }

    static Optional<Condition> condition(SchedulerProfile profile, String type) {
        if (profile == null
                || profile.getStatus() == null
                || profile.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return profile.getStatus().getConditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst();
    }

    static String configHashOnPodTemplate(Deployment scheduler) {
        return scheduler.getSpec().getTemplate().getMetadata().getAnnotations().get(Labels.CONFIG_HASH);
    }
}
