package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.runtime.OperatorConfig;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The operator under the RBAC of deploy/rbac (the very files, applied by an admin) and the admission policy of
 * deploy/admission, on a kube-apiserver that authorizes with RBAC: it runs as its ServiceAccount (impersonated), with
 * leader election on. A profile with every verb becomes all its objects (the kube-system RoleBinding and the
 * cluster-scoped bindings included) and goes away completely, and nothing in the log says forbidden: the Roles in the
 * workload namespace and kube-system and the small ClusterRole are enough. Its own API server: the shared tier's
 * operator runs as an admin.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeployRbacTest {
    private static final String OPERATOR_NAMESPACE = ShippedRbac.OPERATOR_NAMESPACE;
    private static final String SERVICE_ACCOUNT = ShippedRbac.SERVICE_ACCOUNT;

    private ShippedRbac rbac;
    private KubernetesClient admin;

    @BeforeAll
    void startTheOperatorAsItsServiceAccount() throws IOException {
        rbac = ShippedRbac.start("apiserver-rbac", List.of("team-a"), ShippedRbac.BASE);
        admin = rbac.admin();
        rbac.startOperator(Map.of(OperatorConfig.ENV_EXTENDER_IMAGE, "example.com/extender:test"));
    }

    @AfterAll
    void stop() {
        if (rbac != null) {
            rbac.close();
        }
    }

    @Test
    void aProfileRollsOutAndGoesUnderTheShippedRbacAlone() {
        Tier tier = rbac.tier("rbac");
        tier.rollOut("p", "labelKey: example.com/rank\nverbs: [Filter, Prioritize, Bind]");

        Names names = tier.names("p");
        assertThat(tier.configMap(names.schedulerConfig())).isNotNull();
        assertThat(admin.rbac()
                        .roleBindings()
                        .inNamespace(Names.KUBE_SYSTEM)
                        .withName(names.authReaderBinding())
                        .get())
                .as("the RoleBinding in kube-system, through the kube-system Role")
                .isNotNull();
        assertThat(admin.rbac()
                        .roles()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withName(names.schedulerLease())
                        .get())
                .as("the scheduler's lease Role, through the escalation check under the workload Role")
                .isNotNull();
        assertThat(admin.rbac()
                        .clusterRoleBindings()
                        .withName(names.extenderBinderBinding())
                        .get())
                .as("the extender bound to the binder role, through bind on its name")
                .isNotNull();
        assertThat(admin.rbac()
                        .clusterRoleBindings()
                        .withName(names.kubeSchedulerBinding())
                        .get()
                        .getRoleRef()
                        .getName())
                .isEqualTo(Names.SCHEDULER_CLUSTER_ROLE);
        Lease lease = admin.leases()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(OperatorConfig.LEASE_NAME)
                .get();
        assertThat(lease)
                .as("the operator's own lease, through the workload Role")
                .isNotNull();

        tier.profile("p").delete();
        Eventually.until(
                "the profile and everything it became are gone",
                () -> tier.profile("p").get() == null
                        && objectsOf(tier.name("p")).isEmpty(),
                () -> objectsOf(tier.name("p")));

        assertThat(rbac.forbiddenInLog()).as("log lines that mention forbidden").isEmpty();
    }

    /**
     * What the operator may not do: it holds no namespaced access outside its workload namespace (and kube-system's
     * RoleBindings), no Secrets elsewhere, no Roles in kube-system, and none of the scheduler's powers itself.
     */
    @Test
    void theOperatorHoldsNothingBeyondItsWorkloadNamespace() {
        for (String[] check : new String[][] {
            {"list", "", "secrets", "team-a"},
            {"get", "", "secrets", "kube-system"},
            {"create", "", "configmaps", "team-a"},
            {"create", "apps", "deployments", "team-a"},
            {"create", "", "serviceaccounts", "default"},
            {"delete", "rbac.authorization.k8s.io", "roles", "kube-system"},
            {"create", "rbac.authorization.k8s.io", "roles", "kube-system"},
            {"update", "coordination.k8s.io", "leases", "kube-system"},
            {"create", "", "pods/binding", "team-a"},
            {"delete", "", "pods", "team-a"},
            {"create", "rbac.authorization.k8s.io", "clusterroles", ""},
            // Pods and events outside its namespace only come with the opt-in deploy/pod-events (PodEventsTest).
            {"list", "", "pods", "team-a"},
            {"list", "", "pods", ""},
            {"create", "", "events", "team-a"},
        }) {
            assertThat(rbac.allowed(SERVICE_ACCOUNT, check[0], check[1], check[2], check[3]))
                    .as("the operator may %s %s in '%s'", check[0], check[2], check[3])
                    .isFalse();
        }
        assertThat(rbac.allowed(SERVICE_ACCOUNT, "create", "", "secrets", OPERATOR_NAMESPACE))
                .as("sanity: it may write Secrets in its workload namespace")
                .isTrue();
    }

    /** The admission policy refuses the operator's labels from anyone but the operator, an admin included. */
    @Test
    void theOperatorsLabelsCannotBeForgedButObjectsThatKeepThemCanBeEdited() {
        var forged = new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata()
                .withName("forged")
                .withNamespace("team-a")
                .addToLabels(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                .addToLabels(Labels.PROFILE, "someone-elses")
                .endMetadata()
                .build();
        assertThatThrownBy(() -> admin.resource(forged).create())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("are set only by the schedulerops operator");
        var otherPrefix = new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata()
                .withName("forged-prefix")
                .withNamespace("team-a")
                .addToLabels("schedulerops.dev/anything", "x")
                .endMetadata()
                .build();
        assertThatThrownBy(() -> admin.resource(otherPrefix).create())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("are set only by the schedulerops operator");
        // Someone else's managed-by value is not the operator's: allowed.
        admin.resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("helm-managed")
                        .withNamespace("team-a")
                        .addToLabels(Labels.MANAGED_BY, "Helm")
                        .endMetadata()
                        .build())
                .create();

        // An object the operator labelled may be edited by others as long as the labels stay.
        Tier tier = rbac.tier("labels");
        tier.rollOut("p", "labelKey: example.com/rank");
        String config = tier.names("p").schedulerConfig();
        admin.configMaps().inNamespace(OPERATOR_NAMESPACE).withName(config).edit(cm -> {
            cm.getMetadata().getAnnotations().put("example.com/touched", "yes");
            return cm;
        });
        assertThatThrownBy(() -> admin.configMaps()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withName(config)
                        .edit(cm -> {
                            cm.getMetadata().getLabels().put(Labels.PROFILE, "another-profile");
                            return cm;
                        }))
                .hasMessageContaining("are set only by the schedulerops operator");
        assertThatThrownBy(() -> admin.configMaps()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withName(config)
                        .edit(cm -> {
                            cm.getMetadata().getLabels().remove(Labels.MANAGED_BY);
                            return cm;
                        }))
                .hasMessageContaining("are set only by the schedulerops operator");
        tier.profile("p").delete();
        Eventually.until("the profile goes", () -> tier.profile("p").get() == null);
    }

    private List<HasMetadata> objectsOf(String profile) {
        List<HasMetadata> found = new ArrayList<>();
        for (Class<? extends HasMetadata> type : List.of(
                io.fabric8.kubernetes.api.model.apps.Deployment.class,
                io.fabric8.kubernetes.api.model.ServiceAccount.class,
                io.fabric8.kubernetes.api.model.ConfigMap.class,
                io.fabric8.kubernetes.api.model.Secret.class,
                io.fabric8.kubernetes.api.model.Service.class,
                io.fabric8.kubernetes.api.model.rbac.Role.class,
                RoleBinding.class)) {
            found.addAll(admin.resources(type)
                    .inAnyNamespace()
                    .withLabel(Labels.PROFILE, profile)
                    .list()
                    .getItems());
        }
        found.addAll(admin.rbac()
                .clusterRoleBindings()
                .withLabel(Labels.PROFILE, profile)
                .list()
                .getItems());
        return found;
    }
}
