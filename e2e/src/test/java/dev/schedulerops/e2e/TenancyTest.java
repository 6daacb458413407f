package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.ServiceAccountTokens;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The tenant's view, on the real control plane and the real node, with the product installed from deploy/: a
 * developer who holds only the built-in {@code edit} ClusterRole in namespace team-a (a real ServiceAccount token, not
 * impersonation) tries each attack of the tenancy review, and each fails. A profile runs throughout and keeps
 * scheduling.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TenancyTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String OPERATOR = InClusterTest.OPERATOR;
    static final String PROFILE = "tenancy";
    static final String LABEL = "tenancy.example.com/rank";
    static final Duration ROLLOUT = Duration.ofMinutes(3);
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private Cluster cluster;
    private KubernetesClient admin;
    private KubernetesClient developer;
    private String team;
    private List<String> kwokNodes;

    @BeforeAll
    void installTheProductAndATeam(Cluster cluster) throws Exception {
        this.cluster = cluster;
        admin = cluster.client();
        RealNode.ensure();
        kwokNodes = cluster.addNodes(1, Map.of("schedulerops.dev/e2e-pool", "tenancy"));
        OperatorTests.installTheDeployedProduct(cluster, ROLLOUT);

        team = cluster.createNamespace("team-a").getMetadata().getName();
        admin.resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("developer")
                        .withNamespace(team)
                        .endMetadata()
                        .build())
                .create();
        admin.resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("developer-edit")
                        .withNamespace(team)
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "edit")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName("developer")
                        .withNamespace(team)
                        .endSubject()
                        .build())
                .create();
        developer = clientWithToken(ServiceAccountTokens.request(admin, team, "developer", Duration.ofHours(1)));
        assertThat(developer.configMaps().inNamespace(team).list().getItems())
                .as("sanity: the developer may edit its namespace")
                .isNotNull();

        MergePatch.nodeLabel(admin, kwokNodes.get(0), LABEL, "10");
        admin.resource(OperatorTests.profile(
                        "tenancy",
                        PROFILE,
                        """
                        labelKey: %s
                        extender: {replicas: 1}
                        """
                                .formatted(LABEL)))
                .create();
        Await.until(ROLLOUT, "the platform team's profile is Ready", () -> OperatorTests.isCurrent(profile()));
    }

    @AfterAll
    void removeTheProduct() {
        if (admin == null) {
            return;
        }
        if (developer != null) {
            developer.close();
        }
        OperatorTests.uninstallTheDeployedProduct(cluster, admin, ROLLOUT, PROFILE);
        if (kwokNodes != null) {
            MergePatch.nodeLabel(admin, kwokNodes.get(0), LABEL, null);
        }
    }

    @Test
    @Order(1)
    void aNamespaceEditorCannotCreateOrChangeAProfile() {
        SchedulerProfile own = OperatorTests.profile("tenancy", "team-a-scheduler", "labelKey: " + LABEL);
        assertForbidden(() -> developer.resource(own).create(), "create a SchedulerProfile");
        assertForbidden(
                () -> developer
                        .resources(SchedulerProfile.class)
                        .withName(PROFILE)
                        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"weight\":9}}"),
                "patch the platform's SchedulerProfile");
        assertForbidden(
                () -> developer
                        .resources(SchedulerProfile.class)
                        .withName(PROFILE)
                        .delete(),
                "delete the platform's SchedulerProfile");
    }

    @Test
    @Order(2)
    void theGeneratedServiceAccountsAndSecretsAreOutOfReach() {
        Names names = new Names(PROFILE, WORKLOAD);
        assertForbidden(
                () -> developer.secrets().inNamespace(WORKLOAD).list(), "list the workload namespace's Secrets");
        assertForbidden(
                () -> developer
                        .secrets()
                        .inNamespace(WORKLOAD)
                        .withName(names.caSecret())
                        .get(),
                "read the profile's CA Secret");
        assertForbidden(
                () -> ServiceAccountTokens.request(developer, WORKLOAD, names.scheduler(), Duration.ofMinutes(10)),
                "mint a token of the scheduler's ServiceAccount");
        assertForbidden(
                () -> developer
                        .resource(pod(WORKLOAD, "intruder", names.scheduler()))
                        .create(),
                "run a pod in the workload namespace");
        // In its own namespace the scheduler's ServiceAccount name means nothing: there is no such account...
        KubernetesClientException refused = catchThrowableOfType(KubernetesClientException.class, () -> developer
                .resource(pod(team, "as-scheduler", names.scheduler()))
                .create());
        assertThat(refused).as("a pod under %s in %s", names.scheduler(), team).isNotNull();
        assertThat(refused.getMessage()).contains("serviceaccount").contains("not found");
        // ...and one the developer creates under that name is bound to nothing.
        developer
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName(names.scheduler())
                        .withNamespace(team)
                        .endMetadata()
                        .build())
                .create();
        assertThat(OperatorTests.clusterRoleBindingsOf(admin, PROFILE))
                .flatExtracting(b -> b.getSubjects())
                .allSatisfy(subject -> assertThat(subject.getNamespace()).isEqualTo(WORKLOAD));
    }

    /**
     * Every credential a pod in team-a can reach (the token of any ServiceAccount of team-a, which edit may mint),
     * and even a compromised scheduler's own token: none may take the default scheduler's lease or bind a pod of
     * another namespace.
     */
    @Test
    @Order(3)
    void noReachableCredentialCanStopTheDefaultSchedulerOrBindAnotherNamespacesPod() throws Exception {
        Pod victim = admin.resource(pod(WORKLOAD + "-victims", "victim", null)).create();
        List<String> accounts = admin.serviceAccounts().inNamespace(team).list().getItems().stream()
                .map(sa -> sa.getMetadata().getName())
                .toList();
        assertThat(accounts).contains("default", "developer", new Names(PROFILE, WORKLOAD).scheduler());
        for (String account : accounts) {
            // What a pod of team-a running as that account mounts (the developer may create such pods).
            String token = ServiceAccountTokens.request(admin, team, account, Duration.ofMinutes(10));
            try (KubernetesClient asAccount = clientWithToken(token)) {
                assertCannotTouchTheDefaultSchedulersLease(asAccount, team + "/" + account);
                assertThat(bindStatus(asAccount, victim))
                        .as("%s/%s binds %s", team, account, name(victim))
                        .isEqualTo(403);
            }
        }
        String schedulerToken = ServiceAccountTokens.request(
                admin, WORKLOAD, new Names(PROFILE, WORKLOAD).scheduler(), Duration.ofMinutes(10));
        try (KubernetesClient asScheduler = clientWithToken(schedulerToken)) {
            assertCannotTouchTheDefaultSchedulersLease(asScheduler, "the profile's own scheduler");
            Lease own = asScheduler
                    .leases()
                    .inNamespace(WORKLOAD)
                    .withName(new Names(PROFILE, WORKLOAD).schedulerLease())
                    .get();
            assertThat(own).as("sanity: the scheduler reads its own lease").isNotNull();
        }
        admin.resource(victim).delete();
    }

    @Test
    @Order(4)
    void theOperatorsLabelsCannotBeForgedAndItsCacheDoesNotGrow() throws Exception {
        double before = operatorMetric("schedulerops_informer_cached_objects", "kind=\"ConfigMap\"");
        // Every ConfigMap labelled as the operator's, in any namespace (more than its informer caches: its namespace
        // only), from now on: a forged one that got past admission would show up here.
        String from = admin.configMaps().inAnyNamespace().list().getMetadata().getResourceVersion();
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Watch watch = admin.configMaps()
                .inAnyNamespace()
                .watch(
                        new ListOptionsBuilder()
                                .withLabelSelector(Labels.MANAGED_BY + "=" + Labels.MANAGED_BY_VALUE)
                                .withResourceVersion(from)
                                .build(),
                        new Watcher<ConfigMap>() {
                            @Override
                            public void eventReceived(Action action, ConfigMap configMap) {
                                seen.add(action + " " + configMap.getMetadata().getNamespace() + "/"
                                        + configMap.getMetadata().getName() + " "
                                        + configMap.getMetadata().getAnnotations());
                            }

                            @Override
                            public void onClose(WatcherException cause) {}
                        })) {
            for (Map<String, String> labels : List.of(
                    Map.of(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE),
                    Map.of(Labels.PROFILE, PROFILE),
                    Map.of(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE, Labels.PROFILE, PROFILE))) {
                KubernetesClientException refused =
                        catchThrowableOfType(KubernetesClientException.class, () -> developer
                                .resource(new ConfigMapBuilder()
                                        .withNewMetadata()
                                        .withGenerateName("forged-")
                                        .withNamespace(team)
                                        .withLabels(labels)
                                        .endMetadata()
                                        .addToData("big", "x".repeat(512 * 1024))
                                        .build())
                                .create());
                assertThat(refused).as("a ConfigMap labelled %s", labels).isNotNull();
                assertThat(refused.getMessage()).contains("are set only by the schedulerops operator");
            }
            // The same ConfigMap without the operator's labels is the developer's business.
            developer
                    .resource(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("honest")
                            .withNamespace(team)
                            .addToLabels(Labels.MANAGED_BY, "team-a-tooling")
                            .endMetadata()
                            .build())
                    .create();
            // Last, a change the watch must deliver after all of the above: an annotation on the profile's own
            // ConfigMap, by the admin (its labels unchanged, which the admission policy allows; the operator does
            // not own the annotation and leaves it).
            String touch = "touched-" + System.nanoTime();
            admin.configMaps()
                    .inNamespace(WORKLOAD)
                    .withName(new Names(PROFILE, WORKLOAD).schedulerConfig())
                    .patch(
                            PatchContext.of(PatchType.JSON_MERGE),
                            "{\"metadata\":{\"annotations\":{\"example.com/tenancy-touch\":\"" + touch + "\"}}}");
            Await.until(
                    Duration.ofSeconds(30),
                    "the watch delivers the touch of the profile's ConfigMap",
                    () -> seen.stream().anyMatch(e -> e.contains(touch)));
            assertThat(seen.stream().filter(e -> !e.contains(touch)))
                    .as("ConfigMaps labelled as the operator's that appeared or changed meanwhile")
                    .isEmpty();
        }
        assertThat(operatorMetric("schedulerops_informer_cached_objects", "kind=\"ConfigMap\""))
                .as("ConfigMaps the operator caches")
                .isEqualTo(before)
                .isPositive();
    }

    @Test
    @Order(5)
    void aProfileNamingAForeignImageIsRefusedAndTheRunningSchedulerIsUntouched() {
        Deployment scheduler = admin.apps()
                .deployments()
                .inNamespace(WORKLOAD)
                .withName(new Names(PROFILE, WORKLOAD).scheduler())
                .get();
        List<String> podsBefore = schedulerPods();
        admin.resources(SchedulerProfile.class)
                .withName(PROFILE)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"scheduler\":{\"image\":\"docker.io/attacker/kube-scheduler:v"
                                + cluster.kubernetesVersion() + "\"}}}");
        Await.until(Duration.ofSeconds(60), "ConfigValid=False ImageNotAllowed", () -> OperatorTests.condition(
                        profile(), "ConfigValid")
                .map(c -> "ImageNotAllowed".equals(c.getReason()))
                .orElse(false));
        assertThat(OperatorTests.condition(profile(), "ConfigValid")
                        .orElseThrow()
                        .getMessage())
                .contains("docker.io/attacker/kube-scheduler")
                .contains("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES");
        Await.holdsFor(
                Duration.ofSeconds(10),
                "the scheduler Deployment and its pod stay as they were",
                () -> admin.apps()
                                .deployments()
                                .inNamespace(WORKLOAD)
                                .withName(scheduler.getMetadata().getName())
                                .get()
                                .getMetadata()
                                .getGeneration()
                                .equals(scheduler.getMetadata().getGeneration())
                        && schedulerPods().equals(podsBefore));
        Pod pod = admin.resource(pod(team, "still-scheduled", null, PROFILE)).create();
        assertThat(admin.pods()
                        .inNamespace(team)
                        .withName(name(pod))
                        .waitUntilCondition(
                                p -> p != null && p.getSpec().getNodeName() != null,
                                90,
                                java.util.concurrent.TimeUnit.SECONDS)
                        .getSpec()
                        .getNodeName())
                .as("the running scheduler still schedules")
                .isEqualTo(kwokNodes.get(0));

        admin.resources(SchedulerProfile.class)
                .withName(PROFILE)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"scheduler\":{\"image\":null}}}");
        Await.until(ROLLOUT, "Ready again", () -> OperatorTests.isCurrent(profile()));
    }

    // --- helpers -------------------------------------------------------------------------------------------

    private void assertCannotTouchTheDefaultSchedulersLease(KubernetesClient as, String who) {
        assertForbidden(
                () -> as.leases()
                        .inNamespace("kube-system")
                        .withName("kube-scheduler")
                        .get(),
                who + " reads the default scheduler's lease");
        assertForbidden(
                () -> as.leases()
                        .inNamespace("kube-system")
                        .withName("kube-scheduler")
                        .patch(
                                PatchContext.of(PatchType.JSON_MERGE),
                                "{\"spec\":{\"holderIdentity\":\"" + who.replace('"', '\'') + "\"}}"),
                who + " takes the default scheduler's lease");
        assertForbidden(
                () -> as.resource(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                                .withNewMetadata()
                                .withName("kube-scheduler-" + System.nanoTime())
                                .withNamespace("kube-system")
                                .endMetadata()
                                .build())
                        .create(),
                who + " creates a lease in kube-system");
    }

    /** POST .../pods/NAME/binding as kube-scheduler's binder does; the HTTP status. */
    private static int bindStatus(KubernetesClient as, Pod pod) throws Exception {
        String json = as.getKubernetesSerialization()
                .asJson(new io.fabric8.kubernetes.api.model.BindingBuilder()
                        .withNewMetadata()
                        .withName(name(pod))
                        .withNamespace(pod.getMetadata().getNamespace())
                        .endMetadata()
                        .withTarget(new ObjectReferenceBuilder()
                                .withKind("Node")
                                .withName("nowhere")
                                .build())
                        .build());
        var request = as.getHttpClient()
                .newHttpRequestBuilder()
                .uri(URI.create(as.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/"
                        + pod.getMetadata().getNamespace() + "/pods/" + name(pod) + "/binding"))
                .post("application/json", json)
                .build();
        return as.getHttpClient()
                .sendAsync(request, String.class)
                .get(30, java.util.concurrent.TimeUnit.SECONDS)
                .code();
    }

    private static void assertForbidden(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String what) {
        assertThatThrownBy(call).as(what).isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(
                        e.getCode())
                .as(what)
                .isEqualTo(403));
    }

    private SchedulerProfile profile() {
        return admin.resources(SchedulerProfile.class).withName(PROFILE).get();
    }

    private List<String> schedulerPods() {
        return admin
                .pods()
                .inNamespace(WORKLOAD)
                .withLabel(Labels.PROFILE, PROFILE)
                .withLabel(Labels.COMPONENT, Labels.COMPONENT_SCHEDULER)
                .list()
                .getItems()
                .stream()
                .map(p -> p.getMetadata().getUid())
                .sorted()
                .toList();
    }

    /** A sample of the operator's /metrics, at its pod's IP on the node's bridge. */
    private double operatorMetric(String name, String labels) throws Exception {
        Pod operator = admin.pods()
                .inNamespace(WORKLOAD)
                .withLabel("app.kubernetes.io/name", OPERATOR)
                .list()
                .getItems()
                .get(0);
        String body = HTTP.send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://" + operator.getStatus().getPodIP() + ":8080/metrics"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*" + Pattern.quote(labels) + "[^}]*\\} (\\S+)$")
                .matcher(body);
        assertThat(m.find())
                .as("%s{%s} in the operator's metrics", name, labels)
                .isTrue();
        return Double.parseDouble(m.group(1));
    }

    private Pod pod(String namespace, String name, String serviceAccount) {
        return pod(namespace, name, serviceAccount, "default-scheduler-that-does-not-exist");
    }

    private Pod pod(String namespace, String name, String serviceAccount, String schedulerName) {
        if (admin.namespaces().withName(namespace).get() == null) {
            admin.resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                            .withNewMetadata()
                            .withName(namespace)
                            .addToLabels(Cluster.E2E_LABEL, "true")
                            .endMetadata()
                            .build())
                    .create();
        }
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withServiceAccountName(serviceAccount)
                .withSchedulerName(schedulerName)
                .addNewToleration()
                .withKey(InClusterTest.KWOK_TAINT)
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .addNewContainer()
                .withName("app")
                .withImage("registry.k8s.io/pause:3.10")
                .endContainer()
                .endSpec()
                .build();
    }

    private KubernetesClient clientWithToken(String token) {
        Config adminConfig = admin.getConfiguration();
        return new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(Config.empty())
                        .withMasterUrl(adminConfig.getMasterUrl())
                        .withCaCertData(adminConfig.getCaCertData())
                        .withCaCertFile(adminConfig.getCaCertFile())
                        .withOauthToken(token)
                        .build())
                .build();
    }

    private static String name(Pod pod) {
        return pod.getMetadata().getName();
    }
}
