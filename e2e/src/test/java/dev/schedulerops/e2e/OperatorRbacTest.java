package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.e2e.OperatorLifecycleTest.OperatorTests;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.ServiceAccountTokens;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator runs under a ServiceAccount token bound to the ClusterRole shipped in deploy/ (renamed, so parallel
 * tests never share it) and to the leader-election Role of deploy/rbac, with leader election on: ordered creation and complete deletion still work, so the role is
 * enough; and what the operator creates grants no more than api.md allows.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorRbacTest {
    static final String PROFILE = "rbac";
    static final Set<String> ALLOWED_CLUSTER_ROLES = Set.of("system:kube-scheduler", "system:volume-scheduler");

    Cluster cluster;
    KubernetesClient admin;
    KubernetesClient operatorClient;
    OperatorRuntime operator;
    String namespace;
    String roleName;

    @BeforeAll
    void startOperatorUnderItsOwnServiceAccount(Cluster cluster) throws Exception {
        this.cluster = cluster;
        admin = cluster.client();
        OperatorTests.installCrd(admin);
        String suffix = OperatorTests.suffix();
        namespace = OperatorTests.createRestrictedNamespace(cluster, "op-rbac");
        roleName = "schedulerops-operator-e2e-" + suffix;

        admin.resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("schedulerops-operator")
                        .withNamespace(namespace)
                        .endMetadata()
                        .build())
                .create();
        ClusterRole shipped = OperatorTests.shippedClusterRole();
        shipped.getMetadata().setName(roleName);
        admin.resource(shipped).create();
        admin.resource(new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName(roleName)
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", roleName)
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName("schedulerops-operator")
                        .withNamespace(namespace)
                        .endSubject()
                        .build())
                .create();

        // The operator's own lease is not in the ClusterRole: deploy/rbac/leader-election-role.yaml grants it by name,
        // in the operator's namespace (here the test's).
        try (var in = java.nio.file.Files.newInputStream(
                dev.schedulerops.e2e.support.E2eSettings.repoRoot().resolve("deploy/rbac/leader-election-role.yaml"))) {
            for (io.fabric8.kubernetes.api.model.HasMetadata object :
                    admin.load(in).items()) {
                object.getMetadata().setNamespace(namespace);
                if (object instanceof RoleBinding binding) {
                    binding.getSubjects().forEach(subject -> subject.setNamespace(namespace));
                }
                admin.resource(object).create();
            }
        }

        String token = ServiceAccountTokens.request(admin, namespace, "schedulerops-operator", Duration.ofHours(1));
        Config adminConfig = admin.getConfiguration();
        Config asServiceAccount = new ConfigBuilder(Config.empty())
                .withMasterUrl(adminConfig.getMasterUrl())
                .withCaCertData(adminConfig.getCaCertData())
                .withCaCertFile(adminConfig.getCaCertFile())
                .withOauthToken(token)
                .build();
        operatorClient =
                new KubernetesClientBuilder().withConfig(asServiceAccount).build();
        assertThatThrownBy(() -> operatorClient.persistentVolumes().list())
                .as("sanity: the token is not cluster-admin")
                .isInstanceOf(KubernetesClientException.class);
    }

    @AfterAll
    void cleanUp() {
        if (operator != null) {
            operator.close();
        }
        if (operatorClient != null) {
            operatorClient.close();
        }
        // The namespace goes with the Cluster when the class ends; the admin client is the Cluster's, shared.
        if (admin != null && roleName != null) {
            admin.rbac().clusterRoleBindings().withName(roleName).delete();
            admin.rbac().clusterRoles().withName(roleName).delete();
        }
    }

    @Test
    void theShippedClusterRoleIsEnoughAndWhatTheOperatorCreatesIsNoBroader() throws Exception {
        operator = OperatorRuntime.start(
                OperatorTests.operatorConfig(
                        Map.of(
                                "SCHEDULEROPS_LEADER_ELECTION",
                                "true",
                                "SCHEDULEROPS_LEADER_ELECTION_NAMESPACE",
                                namespace),
                        namespace),
                operatorClient);

        admin.resource(
                        OperatorTests.profile(
                                namespace,
                                PROFILE,
                                """
                        labelKey: e2e.schedulerops.dev/tier
                        verbs: [Filter, Prioritize, Bind]
                        extender:
                          resources:
                            requests:
                              cpu: "1000"
                        """))
                .create();
        Await.until(
                Duration.ofSeconds(60),
                "the extender Deployment is created",
                () -> admin.apps()
                                .deployments()
                                .inNamespace(namespace)
                                .withName(new Names(PROFILE, namespace).extender())
                                .get()
                        != null);
        Await.holdsFor(
                Duration.ofSeconds(6),
                "no scheduler Deployment while the extender is blocked",
                () -> admin.apps()
                                .deployments()
                                .inNamespace(namespace)
                                .withName(new Names(PROFILE, namespace).scheduler())
                                .get()
                        == null);
        admin.resources(SchedulerProfile.class)
                .inNamespace(namespace)
                .withName(PROFILE)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"extender\":{\"resources\":null}}}");
        Await.until(
                Duration.ofSeconds(90),
                "the profile is Ready",
                () -> OperatorTests.isCurrent(admin.resources(SchedulerProfile.class)
                        .inNamespace(namespace)
                        .withName(PROFILE)
                        .get()));

        Lease lease = admin.leases()
                .inNamespace(namespace)
                .withName("schedulerops-operator")
                .get();
        assertThat(lease).as("the operator took its own lease").isNotNull();
        assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();

        assertNothingBroaderThanAllowed();

        admin.resources(SchedulerProfile.class)
                .inNamespace(namespace)
                .withName(PROFILE)
                .delete();
        Await.until(
                Duration.ofSeconds(90),
                "the profile is gone",
                () -> admin.resources(SchedulerProfile.class)
                                .inNamespace(namespace)
                                .withName(PROFILE)
                                .get()
                        == null);
        assertThat(OperatorTests.leftovers(admin, namespace, PROFILE)).isEmpty();
    }

    private void assertNothingBroaderThanAllowed() {
        Map<String, String> labels = Map.of(Labels.PROFILE, PROFILE, Labels.PROFILE_NAMESPACE, namespace);
        List<ClusterRole> roles =
                admin.rbac().clusterRoles().withLabels(labels).list().getItems();
        assertThat(roles).hasSize(1);
        List<PolicyRule> rules = roles.get(0).getRules();
        assertThat(rules).allSatisfy(rule -> {
            assertThat(rule.getVerbs()).doesNotContain("*", "escalate", "bind", "impersonate");
            assertThat(rule.getResources()).doesNotContain("*", "secrets");
            assertThat(rule.getApiGroups()).doesNotContain("*");
        });
        assertThat(rules)
                .flatExtracting(PolicyRule::getResources)
                .isSubsetOf("nodes", "pods", "pods/binding")
                .contains("pods/binding");

        List<ClusterRoleBinding> bindings = OperatorTests.clusterRoleBindingsOf(admin, namespace, PROFILE);
        // What RbacRenderer binds for a profile whose extender has a ClusterRole: the scheduler's two system
        // roles and the extender's own role.
        assertThat(bindings)
                .extracting(b -> b.getRoleRef().getName())
                .containsExactlyInAnyOrder(
                        Names.KUBE_SCHEDULER_CLUSTER_ROLE,
                        Names.VOLUME_SCHEDULER_CLUSTER_ROLE,
                        new Names(PROFILE, namespace).extenderClusterRole());
        assertThat(bindings).extracting(b -> b.getRoleRef().getName()).allSatisfy(role -> assertThat(
                        ALLOWED_CLUSTER_ROLES.contains(role)
                                || role.equals(roles.get(0).getMetadata().getName()))
                .as("bound ClusterRole %s", role)
                .isTrue());
        List<RoleBinding> kubeSystem = admin.rbac()
                .roleBindings()
                .inNamespace("kube-system")
                .withLabels(labels)
                .list()
                .getItems();
        assertThat(kubeSystem)
                .extracting(b -> b.getRoleRef().getName())
                .containsExactly("extension-apiserver-authentication-reader");
    }
}
