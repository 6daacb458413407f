package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import dev.schedulerops.operator.render.RenderResult;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A profile in a protected namespace (kube-system by default) is refused with a reason and becomes nothing. */
@ExtendWith(ApiServerTier.class)
class ProtectedNamespaceTest {

    @Test
    void aProfileInKubeSystemIsRefusedAndCreatesNothing(Tier tier) {
        // The test's own namespace only names the profile uniquely; it lives in kube-system.
        String name = "p-" + tier.namespace().substring(tier.namespace().length() - 5);
        Tier kubeSystem = new Tier(tier.client(), tier.deployments(), tier.garbageCollector(), "kube-system");
        kubeSystem.createProfile(name, "labelKey: example.com/rank");

        Eventually.until(
                "ConfigValid=False ProtectedNamespace in kube-system",
                () -> kubeSystem.hasCondition(
                        name, ProfileStatuses.CONFIG_VALID, "False", RenderResult.Refusal.PROTECTED_NAMESPACE.reason()),
                () -> kubeSystem.conditions(name));
        String message = kubeSystem
                .condition(name, ProfileStatuses.CONFIG_VALID)
                .orElseThrow()
                .getMessage();
        assertThat(message)
                .contains("namespace 'kube-system' is protected")
                .contains("SCHEDULEROPS_PROTECTED_NAMESPACES")
                .contains("create it in an ordinary namespace");
        assertThat(kubeSystem.hasCondition(
                        name, ProfileStatuses.STALLED, "True", RenderResult.Refusal.PROTECTED_NAMESPACE.reason()))
                .isTrue();
        assertThat(kubeSystem.hasCondition(
                        name, ProfileStatuses.READY, "False", RenderResult.Refusal.PROTECTED_NAMESPACE.reason()))
                .isTrue();

        // Nothing at all carries this profile's labels: not in kube-system, not cluster-scoped.
        List<HasMetadata> created = new ArrayList<>();
        for (Class<? extends HasMetadata> type : List.of(
                io.fabric8.kubernetes.api.model.apps.Deployment.class,
                io.fabric8.kubernetes.api.model.ServiceAccount.class,
                io.fabric8.kubernetes.api.model.ConfigMap.class,
                io.fabric8.kubernetes.api.model.Service.class,
                io.fabric8.kubernetes.api.model.rbac.Role.class,
                io.fabric8.kubernetes.api.model.rbac.RoleBinding.class)) {
            created.addAll(tier.client()
                    .resources(type)
                    .inAnyNamespace()
                    .withLabel(Labels.PROFILE, name)
                    .list()
                    .getItems());
        }
        created.addAll(tier.client()
                .rbac()
                .clusterRoleBindings()
                .withLabel(Labels.PROFILE, name)
                .list()
                .getItems());
        created.addAll(tier.client()
                .rbac()
                .clusterRoles()
                .withLabel(Labels.PROFILE, name)
                .list()
                .getItems());
        assertThat(created).isEmpty();

        // The same spec in an ordinary namespace is accepted (the refusal is the namespace, not the spec).
        tier.createProfile(name, "labelKey: example.com/rank");
        Eventually.until(
                "the extender Deployment in the ordinary namespace",
                () -> tier.deployment(tier.names(name).extender()) != null);

        kubeSystem.profile(name).delete();
        Eventually.until(
                "the refused profile goes", () -> kubeSystem.profile(name).get() == null);
    }
}
