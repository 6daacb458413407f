package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Crds;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.Loopback;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.runtime.OperatorConfig;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
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
 * profile goes through its life in order: ordered creation, updates, drift, refusal, deletion. The namespaces enforce
 * the restricted Pod Security level, so every pod the operator's Deployments create has passed real admission.
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
    String namespace;
    String otherNamespace;

    @BeforeAll
    void startOperator(Cluster cluster) throws IOException {
        this.cluster = cluster;
        client = cluster.client();
        OperatorTests.installCrd(client);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "op-e2e");
        otherNamespace = OperatorTests.createRestrictedNamespace(cluster, "op-e2e-b");
        operator = OperatorRuntime.start(OperatorTests.operatorConfig(Map.of(), namespace, otherNamespace), client);
    }

    @AfterAll
    void stopOperator() {
        // The namespaces go with the Cluster when the class ends; the client is the Cluster's, shared.
        if (operator != null) {
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
        assertThat(OperatorTests.warnings(client, namespace, PROFILE)).containsOnlyOnce("Unschedulable");

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
        assertThat(OperatorTests.reasons(client, namespace, PROFILE))
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
        assertThat(OperatorTests.reasons(client, namespace, PROFILE)).contains("SchedulerRolloutStarted");
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
        assertThat(OperatorTests.reasons(client, namespace, PROFILE)).contains("ExtenderRolloutStarted");

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
        assertThat(OperatorTests.warnings(client, namespace, PROFILE)).contains("InvalidConfig");

        patch(PROFILE, "{\"spec\":{\"labelKey\":\"e2e.schedulerops.dev/zone\",\"plugins\":null}}");
        Await.until(Duration.ofSeconds(60), "Ready again", () -> OperatorTests.isCurrent(profile()));
    }

    @Test
    @Order(8)
    void aSecondProfileWithTheSameSchedulerNameIsRefused() {
        client.resource(OperatorTests.profile(
                        otherNamespace,
                        "usurper",
                        """
                        schedulerName: %s
                        labelKey: e2e.schedulerops.dev/tier
                        """
                                .formatted(PROFILE)))
                .create();

        Await.until(Duration.ofSeconds(30), "ConfigValid=False SchedulerNameConflict", () -> {
            SchedulerProfile p = client.resources(SchedulerProfile.class)
                    .inNamespace(otherNamespace)
                    .withName("usurper")
                    .get();
            return condition(p, "ConfigValid")
                    .map(c -> "SchedulerNameConflict".equals(c.getReason())
                            && c.getMessage().contains(namespace + "/" + PROFILE))
                    .orElse(false);
        });
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(otherNamespace)
                        .list()
                        .getItems())
                .isEmpty();
        assertThat(OperatorTests.warnings(client, otherNamespace, "usurper")).contains("SchedulerNameConflict");
        assertThat(OperatorTests.isCurrent(profile()))
                .as("the holder is untouched")
                .isTrue();

        client.resources(SchedulerProfile.class)
                .inNamespace(otherNamespace)
                .withName("usurper")
                .delete();
        Await.until(
                Duration.ofSeconds(30),
                "the refused profile is deleted",
                () -> client.resources(SchedulerProfile.class)
                                .inNamespace(otherNamespace)
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
        client.resources(SchedulerProfile.class)
                .inNamespace(namespace)
                .withName(PROFILE)
                .delete();

        Await.until(
                Duration.ofSeconds(90),
                "the profile is gone",
                () -> client.resources(SchedulerProfile.class)
                                .inNamespace(namespace)
                                .withName(PROFILE)
                                .get()
                        == null);
        assertThat(OperatorTests.leftovers(client, namespace, PROFILE)).isEmpty();
    }

    // --- helpers -------------------------------------------------------------------------------------------------

    SchedulerProfile profile() {
        return client.resources(SchedulerProfile.class)
                .inNamespace(namespace)
                .withName(PROFILE)
                .get();
    }

    void patch(String name, String mergePatch) {
        client.resources(SchedulerProfile.class)
                .inNamespace(namespace)
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

    /** Access to the e2e/cluster control plane, shared by the Operator*Test classes. */
    static final class OperatorTests {
        /** Namespaces that enforce the restricted Pod Security Standard. */
        static final Map<String, String> RESTRICTED = Map.of(
                "pod-security.kubernetes.io/enforce", "restricted",
                "pod-security.kubernetes.io/enforce-version", "latest");

        private OperatorTests() {}

        static String suffix() {
            return UUID.randomUUID().toString().substring(0, 6);
        }

        static void installCrd(KubernetesClient client) {
            Crds.install(client);
        }

        /** A fresh {@code prefix-xxxxx} namespace enforcing {@link #RESTRICTED}, deleted when the class ends. */
        static String createRestrictedNamespace(Cluster cluster, String prefix) {
            return cluster.createNamespace(prefix, RESTRICTED).getMetadata().getName();
        }

        static OperatorConfig operatorConfig(Map<String, String> extra, String... namespaces) {
            Map<String, String> env = new java.util.HashMap<>(Map.of(
                    "SCHEDULEROPS_WATCH_NAMESPACES", String.join(",", namespaces),
                    "SCHEDULEROPS_LEADER_ELECTION", "false",
                    "SCHEDULEROPS_HTTP_PORT", "0",
                    "SCHEDULEROPS_HTTP_BIND_ADDRESS", "127.0.0.1"));
            env.putAll(extra);
            return OperatorConfig.fromEnvironment(env, Optional::empty);
        }

        static SchedulerProfile profile(String namespace, String name, String specYaml) {
            String yaml =
                    """
                    apiVersion: schedulerops.dev/v1beta1
                    kind: SchedulerProfile
                    metadata:
                      name: %s
                      namespace: %s
                    spec:
                    %s"""
                            .formatted(name, namespace, specYaml.indent(2));
            return Serialization.unmarshal(yaml, SchedulerProfile.class);
        }

        /**
         * kstatus "Current", as Flux reads a custom resource: the status describes this generation and neither
         * Reconciling nor Stalled is True; and Ready is True, as Argo CD's health check reads it.
         */
        static boolean isCurrent(SchedulerProfile profile) {
            if (profile == null || profile.getStatus() == null) {
                return false;
            }
            Long generation = profile.getMetadata().getGeneration();
            boolean observed = generation.equals(profile.getStatus().getObservedGeneration());
            boolean abnormal = Stream.of("Reconciling", "Stalled").anyMatch(type -> condition(profile, type)
                    .map(c -> "True".equals(c.getStatus()))
                    .orElse(false));
            boolean ready = condition(profile, "Ready")
                    .map(c -> "True".equals(c.getStatus()) && generation.equals(c.getObservedGeneration()))
                    .orElse(false);
            return observed && !abnormal && ready;
        }

        static List<String> reasons(KubernetesClient client, String namespace, String profile) {
            return events(client, namespace, profile).map(Event::getReason).toList();
        }

        static List<String> warnings(KubernetesClient client, String namespace, String profile) {
            return events(client, namespace, profile)
                    .filter(e -> "Warning".equals(e.getType()))
                    .map(Event::getReason)
                    .toList();
        }

        /** The events on a profile, oldest first as the API server lists them. */
        static Stream<Event> events(KubernetesClient client, String namespace, String profile) {
            return client.v1().events().inNamespace(namespace).list().getItems().stream()
                    .filter(e ->
                            SchedulerProfile.KIND.equals(e.getInvolvedObject().getKind())
                                    && profile.equals(e.getInvolvedObject().getName()));
        }

        /** Everything still labelled as the profile's: namespaced, cluster-scoped and in kube-system. */
        static List<String> leftovers(KubernetesClient client, String namespace, String profile) {
            Map<String, String> labels = Map.of(Labels.PROFILE, profile, Labels.PROFILE_NAMESPACE, namespace);
            Stream<HasMetadata> namespaced = Stream.of(
                            Deployment.class,
                            ConfigMap.class,
                            io.fabric8.kubernetes.api.model.Service.class,
                            io.fabric8.kubernetes.api.model.ServiceAccount.class,
                            io.fabric8.kubernetes.api.model.rbac.Role.class,
                            RoleBinding.class,
                            io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget.class)
                    .flatMap(type ->
                            client.resources(type).inNamespace(namespace).withLabels(labels).list().getItems().stream()
                                    .map(HasMetadata.class::cast));
            Stream<HasMetadata> clusterScoped = Stream.concat(
                    client.rbac().clusterRoles().withLabels(labels).list().getItems().stream(),
                    client.rbac().clusterRoleBindings().withLabels(labels).list().getItems().stream());
            Stream<HasMetadata> kubeSystem =
                    client
                            .rbac()
                            .roleBindings()
                            .inNamespace("kube-system")
                            .withLabels(labels)
                            .list()
                            .getItems()
                            .stream()
                            .map(HasMetadata.class::cast);
            return Stream.of(namespaced, clusterScoped, kubeSystem)
                    .flatMap(s -> s)
                    .map(o -> o.getKind() + " " + o.getMetadata().getName())
                    .toList();
        }

        /** The ClusterRole shipped in deploy/, read from the repository. */
        static ClusterRole shippedClusterRole() throws IOException {
            try (var in = Files.newInputStream(E2eSettings.repoRoot().resolve("deploy/rbac/cluster-role.yaml"))) {
                return Serialization.unmarshal(in, ClusterRole.class);
            }
        }

        static List<ClusterRoleBinding> clusterRoleBindingsOf(KubernetesClient client, String namespace, String p) {
            return client.rbac()
                    .clusterRoleBindings()
                    .withLabels(Map.of(Labels.PROFILE, p, Labels.PROFILE_NAMESPACE, namespace))
                    .list()
                    .getItems();
        }
    }
}
