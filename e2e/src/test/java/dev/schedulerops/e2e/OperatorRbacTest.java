package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.ServiceAccountTokens;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
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
 * The operator runs under a ServiceAccount token bound to the RBAC shipped in deploy/rbac (its own objects renamed, so
 * that test classes never share them), with leader election on: ordered creation and complete deletion still work, so
 * the roles are enough; and what the operator creates grants no more than api.md allows: bindings to the shipped
 * profile roles only, never system:kube-scheduler, no ClusterRole of its own.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorRbacTest {
    static final String PROFILE = "rbac";
    static final Set<String> ALLOWED_CLUSTER_ROLES = Set.of(
            Names.SCHEDULER_CLUSTER_ROLE,
            Names.VOLUME_SCHEDULER_CLUSTER_ROLE,
            Names.EXTENDER_NODES_CLUSTER_ROLE,
            Names.EXTENDER_BINDER_CLUSTER_ROLE);

    Cluster cluster;
    KubernetesClient admin;
    KubernetesClient operatorClient;
    OperatorRuntime operator;
    String namespace;
    List<HasMetadata> shippedRbac = List.of();

    @BeforeAll
    void startOperatorUnderItsOwnServiceAccount(Cluster cluster) throws Exception {
        this.cluster = cluster;
        admin = cluster.client();
        OperatorTests.installCrd(admin);
        namespace = OperatorTests.createRestrictedNamespace(cluster, "op-rbac");
        shippedRbac = OperatorTests.installShippedRbac(admin, namespace, OperatorTests.suffix());

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
            OperatorTests.deleteProfiles(admin, namespace);
            operator.close();
        }
        if (operatorClient != null) {
            operatorClient.close();
        }
        // The namespace goes with the Cluster when the class ends; the admin client is the Cluster's, shared.
        shippedRbac.forEach(object -> admin.resource(object).delete());
    }

    @Test
    void theShippedClusterRoleIsEnoughAndWhatTheOperatorCreatesIsNoBroader() throws Exception {
        operator = OperatorRuntime.start(
                OperatorTests.operatorConfig(Map.of("SCHEDULEROPS_LEADER_ELECTION", "true"), namespace),
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
                .withName(PROFILE)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"extender\":{\"resources\":null}}}");
        Await.until(
                Duration.ofSeconds(90),
                "the profile is Ready",
                () -> OperatorTests.isCurrent(admin.resources(SchedulerProfile.class)
                        .withName(PROFILE)
                        .get()));

        Lease lease = admin.leases()
                .inNamespace(namespace)
                .withName("schedulerops-operator")
                .get();
        assertThat(lease).as("the operator took its own lease").isNotNull();
        assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();

        assertNothingBroaderThanAllowed();

        admin.resources(SchedulerProfile.class).withName(PROFILE).delete();
        Await.until(
                Duration.ofSeconds(90),
                "the profile is gone",
                () -> admin.resources(SchedulerProfile.class).withName(PROFILE).get() == null);
        assertThat(OperatorTests.leftovers(admin, namespace, PROFILE)).isEmpty();
    }

    private void assertNothingBroaderThanAllowed() {
        Map<String, String> labels = Map.of(Labels.PROFILE, PROFILE);
        assertThat(admin.rbac().clusterRoles().withLabels(labels).list().getItems())
                .as("the operator creates no ClusterRole")
                .isEmpty();

        List<ClusterRoleBinding> bindings = OperatorTests.clusterRoleBindingsOf(admin, PROFILE);
        // What RbacRenderer binds for a profile with Bind: the scheduler's two roles, the extender's node reads and
        // its binder role.
        assertThat(bindings)
                .extracting(b -> b.getRoleRef().getName())
                .containsExactlyInAnyOrderElementsOf(ALLOWED_CLUSTER_ROLES);
        assertThat(bindings)
                .flatExtracting(ClusterRoleBinding::getSubjects)
                .allSatisfy(subject -> assertThat(subject.getNamespace()).isEqualTo(namespace));
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
