package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.runtime.OperatorConfig;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The admission policies of deploy/admission on a real kube-apiserver, with the RBAC of deploy/rbac: what they refuse,
 * and that what the operator renders passes (a profile with every verb rolls out and goes under them alone, as the
 * operator's ServiceAccount: {@link DeployRbacTest} runs the same lifecycle). The refusals are asked as server-side dry
 * runs where the object exists: admission runs for a dry run, and nothing in the cluster changes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdmissionPoliciesTest {
    private static final String WORKLOAD = ShippedRbac.OPERATOR_NAMESPACE;
    private static final String RBAC_REFUSAL = "writes only the RBAC objects it renders";
    private static final String LABEL_REFUSAL = "are set only by the";

    private ShippedRbac rbac;
    private KubernetesClient admin;
    private KubernetesClient operator;
    private Tier tier;
    private Names names;

    @BeforeAll
    void startTheOperatorAndRollOutAProfile() throws IOException {
        rbac = ShippedRbac.start("apiserver-admission", List.of("team-a"), ShippedRbac.BASE);
        admin = rbac.admin();
        operator = rbac.asOperator();
        rbac.startOperator(Map.of(OperatorConfig.ENV_EXTENDER_IMAGE, "example.com/extender:test"));
        tier = rbac.tier("adm");
        tier.rollOut("p", "labelKey: example.com/rank\nverbs: [Filter, Prioritize, Bind]");
        names = tier.names("p");
    }

    @AfterAll
    void stop() {
        if (rbac != null) {
            rbac.close();
        }
    }

    // --- the operator's RBAC writes ---------------------------------------------------------------------------

    /** The review's finding: the operator's token could delete the cluster scheduler's binding. */
    @Test
    void theOperatorMayNotDeleteBindingsItDoesNotRender() {
        assertThat(rbac.allowed(
                        ShippedRbac.SERVICE_ACCOUNT, "delete", "rbac.authorization.k8s.io", "clusterrolebindings", ""))
                .as("RBAC alone lets it delete any ClusterRoleBinding: the policy is what refuses")
                .isTrue();
        for (String binding : List.of("system:kube-scheduler", "system:kube-controller-manager", "cluster-admin")) {
            assertThatThrownBy(() -> operator.rbac()
                            .clusterRoleBindings()
                            .withName(binding)
                            .dryRun()
                            .delete())
                    .as("delete ClusterRoleBinding %s", binding)
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining(RBAC_REFUSAL)
                    .hasMessageContaining(binding);
        }
        assertThatThrownBy(() -> operator.rbac()
                        .roleBindings()
                        .inNamespace("kube-system")
                        .withName("system::extension-apiserver-authentication-reader")
                        .dryRun()
                        .delete())
                .hasMessageContaining(RBAC_REFUSAL);
        assertThatThrownBy(() -> operator.rbac()
                        .roleBindings()
                        .inNamespace(WORKLOAD)
                        .withName("schedulerops-operator")
                        .dryRun()
                        .delete())
                .as("not even its own binding from the install")
                .hasMessageContaining(RBAC_REFUSAL);

        // What it renders it may delete (a dry run: the profile keeps its binding).
        operator.rbac()
                .clusterRoleBindings()
                .withName(names.kubeSchedulerBinding())
                .dryRun()
                .delete();
        operator.rbac()
                .roleBindings()
                .inNamespace(Names.KUBE_SYSTEM)
                .withName(names.authReaderBinding())
                .dryRun()
                .delete();
        assertThat(admin.rbac()
                        .clusterRoleBindings()
                        .withName(names.kubeSchedulerBinding())
                        .get())
                .isNotNull();
    }

    @Test
    void theOperatorMayBindOnlyWhatItRendersToTheProfilesOwnServiceAccount() {
        // A profile's shape, for another ServiceAccount: the roles it may bind, to someone of a team.
        assertThatThrownBy(() -> operator.resource(clusterRoleBinding(
                                "schedulerops:q:kube-scheduler",
                                "q",
                                Names.SCHEDULER_CLUSTER_ROLE,
                                "team-a",
                                "default"))
                        .dryRun()
                        .create())
                .hasMessageContaining("may bind only the ServiceAccount " + WORKLOAD + "/q-scheduler");
        // The binder role (which it may bind) under a name of its own choosing.
        assertThatThrownBy(() -> operator.resource(clusterRoleBinding(
                                "binder-for-me", "q", Names.EXTENDER_BINDER_CLUSTER_ROLE, WORKLOAD, "q-extender"))
                        .dryRun()
                        .create())
                .hasMessageContaining(RBAC_REFUSAL);
        // The right name with another purpose's role.
        assertThatThrownBy(() -> operator.resource(clusterRoleBinding(
                                "schedulerops:q:extender-nodes",
                                "q",
                                Names.EXTENDER_BINDER_CLUSTER_ROLE,
                                WORKLOAD,
                                "q-extender"))
                        .dryRun()
                        .create())
                .hasMessageContaining("may bind only " + Names.EXTENDER_NODES_CLUSTER_ROLE);
        // Without the operator's labels.
        assertThatThrownBy(() -> operator.resource(new ClusterRoleBindingBuilder(clusterRoleBinding(
                                        "schedulerops:q:extender-nodes",
                                        "q",
                                        Names.EXTENDER_NODES_CLUSTER_ROLE,
                                        WORKLOAD,
                                        "q-extender"))
                                .editMetadata()
                                .withLabels(Map.of())
                                .endMetadata()
                                .build())
                        .dryRun()
                        .create())
                .hasMessageContaining(RBAC_REFUSAL);
        // A lease Role that grants more than leases.
        assertThatThrownBy(() -> operator.resource(new RoleBuilder()
                                .withNewMetadata()
                                .withName("q-scheduler")
                                .withNamespace(WORKLOAD)
                                .withLabels(Labels.common("q"))
                                .endMetadata()
                                .addNewRule()
                                .withApiGroups("")
                                .withResources("secrets")
                                .withVerbs("get")
                                .endRule()
                                .build())
                        .dryRun()
                        .create())
                .hasMessageContaining("holds Lease rules only");
        // The RoleBinding in kube-system to the authentication reader (the one Role it may bind there), for a team.
        assertThatThrownBy(() -> operator.resource(new RoleBindingBuilder()
                                .withNewMetadata()
                                .withName("schedulerops:q:auth-reader")
                                .withNamespace(Names.KUBE_SYSTEM)
                                .withLabels(Labels.common("q"))
                                .endMetadata()
                                .withNewRoleRef("rbac.authorization.k8s.io", "Role", Names.AUTH_READER_ROLE)
                                .addNewSubject()
                                .withKind("ServiceAccount")
                                .withName("default")
                                .withNamespace("team-a")
                                .endSubject()
                                .build())
                        .dryRun()
                        .create())
                .hasMessageContaining("may bind only the ServiceAccount " + WORKLOAD + "/q-scheduler");

        // The shape it renders passes.
        operator.resource(clusterRoleBinding(
                        "schedulerops:q:kube-scheduler", "q", Names.SCHEDULER_CLUSTER_ROLE, WORKLOAD, "q-scheduler"))
                .dryRun()
                .create();
    }

    private static ClusterRoleBinding clusterRoleBinding(
            String name, String profile, String role, String namespace, String serviceAccount) {
        return new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Labels.common(profile))
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(serviceAccount)
                .withNamespace(namespace)
                .endSubject()
                .build();
    }

    // --- labels through status subresources, templates and pods ------------------------------------------------

    @Test
    void statusWritesCannotChangeTheOperatorsLabels() {
        var service = admin.services().inNamespace(WORKLOAD).withName(names.extender());
        assertThatThrownBy(() -> service.editStatus(s -> new ServiceBuilder(s)
                        .editMetadata()
                        .addToLabels(Labels.PROFILE, "another-profile")
                        .endMetadata()
                        .build()))
                .as("services/status")
                .hasMessageContaining(LABEL_REFUSAL);

        var pdb = admin.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(WORKLOAD)
                .resource(new PodDisruptionBudgetBuilder()
                        .withNewMetadata()
                        .withName("adm-pdb")
                        .withNamespace(WORKLOAD)
                        .addToLabels("example.com/owner", "test")
                        .endMetadata()
                        .withNewSpec()
                        .withNewMinAvailable(1)
                        .withNewSelector()
                        .addToMatchLabels("app", "none")
                        .endSelector()
                        .endSpec()
                        .build())
                .create();
        assertThatThrownBy(() -> admin.policy()
                        .v1()
                        .podDisruptionBudget()
                        .inNamespace(WORKLOAD)
                        .withName(pdb.getMetadata().getName())
                        .editStatus(b -> new PodDisruptionBudgetBuilder(b)
                                .editMetadata()
                                .addToLabels(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                                .endMetadata()
                                .build()))
                .as("poddisruptionbudgets/status")
                .hasMessageContaining(LABEL_REFUSAL);
    }

    @Test
    void aDeploymentsPodTemplateCannotCarryTheOperatorsLabels() {
        var deployment = admin.apps().deployments().inNamespace(WORKLOAD).withName(names.extender());
        assertThatThrownBy(() -> deployment.edit(d -> {
                    d.getSpec().getTemplate().getMetadata().getLabels().put(Labels.PROFILE, "another-profile");
                    return d;
                }))
                .hasMessageContaining("Deployment's pod template");
        assertThatThrownBy(() -> admin.apps()
                        .deployments()
                        .inNamespace("team-a")
                        .resource(new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder()
                                .withNewMetadata()
                                .withName("laundering")
                                .endMetadata()
                                .withNewSpec()
                                .withNewSelector()
                                .addToMatchLabels("app", "laundering")
                                .endSelector()
                                .withNewTemplate()
                                .withNewMetadata()
                                .addToLabels("app", "laundering")
                                .addToLabels(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                                .endMetadata()
                                .withNewSpec()
                                .addNewContainer()
                                .withName("c")
                                .withImage("example.com/c")
                                .endContainer()
                                .endSpec()
                                .endTemplate()
                                .endSpec()
                                .build())
                        .create())
                .as("a team's Deployment whose pods would carry the operator's labels")
                .hasMessageContaining("Deployment's pod template");
        // Editing another field of the operator's Deployment passes.
        deployment.edit(d -> {
            d.getMetadata().getAnnotations().put("example.com/touched", "yes");
            return d;
        });
    }

    @Test
    void podsInTheWorkloadNamespaceKeepTheirLabelsThroughUpdatesAndStatusWrites() {
        // Created as the ReplicaSet controller would (creation is not what the policy checks), then edited.
        var pods = admin.pods().inNamespace(WORKLOAD);
        pods.resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("adm-pod")
                        .withLabels(Labels.component(tier.name("p"), Labels.COMPONENT_EXTENDER))
                        .endMetadata()
                        .withNewSpec()
                        // This API server has no ServiceAccount controller: a ServiceAccount the profile has.
                        .withServiceAccountName(names.extender())
                        .withAutomountServiceAccountToken(false)
                        .addNewContainer()
                        .withName("c")
                        .withImage("example.com/c")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        assertThatThrownBy(() -> pods.withName("adm-pod").edit(p -> {
                    p.getMetadata().getLabels().put(Labels.PROFILE, "another-profile");
                    return p;
                }))
                .as("pods")
                .hasMessageContaining("of a pod are set only");
        assertThatThrownBy(() -> pods.withName("adm-pod").editStatus(p -> {
                    p.getMetadata().getLabels().remove(Labels.MANAGED_BY);
                    return p;
                }))
                .as("pods/status")
                .hasMessageContaining("of a pod are set only");
        pods.withName("adm-pod").edit(p -> {
            p.getMetadata().getLabels().put("example.com/other", "yes");
            return p;
        });
        pods.withName("adm-pod").withGracePeriod(0).delete();
    }

    // --- leases -------------------------------------------------------------------------------------------------

    /** A profile's scheduler may create its own lease, and no other: not another profile's, not the operator's. */
    @Test
    void aSchedulerMayCreateOnlyItsOwnLease() {
        String serviceAccount = names.scheduler();
        try (KubernetesClient scheduler = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(admin.getConfiguration())
                        .withImpersonateUsername("system:serviceaccount:" + WORKLOAD + ":" + serviceAccount)
                        .withImpersonateGroups(
                                "system:serviceaccounts", "system:serviceaccounts:" + WORKLOAD, "system:authenticated")
                        .build())
                .build()) {
            var leases = scheduler.leases().inNamespace(WORKLOAD);
            assertThat(rbac.allowed(
                            "system:serviceaccount:" + WORKLOAD + ":" + serviceAccount,
                            "create",
                            "coordination.k8s.io",
                            "leases",
                            WORKLOAD))
                    .as("RBAC lets it create any Lease here: the policy is what refuses")
                    .isTrue();
            for (String other : List.of(tier.names("another").schedulerLease(), OperatorConfig.LEASE_NAME)) {
                assertThatThrownBy(() -> leases.resource(lease(other)).dryRun().create())
                        .as("lease %s", other)
                        .hasMessageContaining("may create only the Lease named after itself");
            }
            leases.resource(lease(names.schedulerLease())).dryRun().create();
        }
    }

    private static io.fabric8.kubernetes.api.model.coordination.v1.Lease lease(String name) {
        return new LeaseBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(WORKLOAD)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("x")
                .withLeaseDurationSeconds(86_400)
                .endSpec()
                .build();
    }
}
