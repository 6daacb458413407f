package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.runtime.OperatorConfig;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An operator installed with a protected namespace (kube-system by default) as its workload namespace refuses every
 * profile with a reason of its own, ProtectedNamespace, and creates nothing; the same profile under the shared
 * operator (an ordinary workload namespace) rolls out.
 */
@ExtendWith(ApiServerTier.class)
class ProtectedNamespaceTest {

    @Test
    void aProtectedWorkloadNamespaceRefusesEveryProfileAndCreatesNothing(Tier tier) {
        String reason = RenderResult.Refusal.PROTECTED_NAMESPACE.reason();
        try (OwnOperator operator =
                OwnOperator.start(tier, Map.of(OperatorConfig.ENV_WORKLOAD_NAMESPACE, "kube-system"))) {
            tier.createProfile("p", "labelKey: example.com/rank", operator.profileLabels());

            Eventually.until(
                    "ConfigValid=False ProtectedNamespace",
                    () -> tier.hasCondition("p", ProfileStatuses.CONFIG_VALID, "False", reason),
                    () -> tier.conditions("p"));
            assertThat(tier.condition("p", ProfileStatuses.CONFIG_VALID)
                            .orElseThrow()
                            .getMessage())
                    .contains("workload namespace 'kube-system' is protected")
                    .contains("SCHEDULEROPS_PROTECTED_NAMESPACES")
                    .contains("SCHEDULEROPS_WORKLOAD_NAMESPACE")
                    .contains("the profile itself needs no change");
            assertThat(tier.hasCondition("p", ProfileStatuses.STALLED, "True", reason))
                    .isTrue();
            assertThat(tier.hasCondition("p", ProfileStatuses.READY, "False", reason))
                    .isTrue();
            assertThat(tier.hasCondition(
                            "p", ProfileStatuses.CONFIG_VALID, "False", ProfileStatuses.REASON_INVALID_CONFIG))
                    .as("a reason of its own, not InvalidConfig")
                    .isFalse();
            assertThat(createdFor(tier, tier.name("p"))).isEmpty();

            tier.profile("p").delete();
            Eventually.until("the refused profile goes", () -> tier.profile("p").get() == null);
        }

        // The same spec under the shared operator (an ordinary workload namespace) is accepted.
        tier.createProfile("q", "labelKey: example.com/rank");
        Eventually.until(
                "the extender Deployment in the workload namespace",
                () -> tier.deployment(tier.names("q").extender()) != null);
    }

    /** Everything, in any namespace or cluster-scoped, that carries the profile's label. */
    static List<HasMetadata> createdFor(Tier tier, String profile) {
        List<HasMetadata> created = new ArrayList<>();
        for (Class<? extends HasMetadata> type : List.of(
                io.fabric8.kubernetes.api.model.apps.Deployment.class,
                io.fabric8.kubernetes.api.model.ServiceAccount.class,
                io.fabric8.kubernetes.api.model.ConfigMap.class,
                io.fabric8.kubernetes.api.model.Secret.class,
                io.fabric8.kubernetes.api.model.Service.class,
                io.fabric8.kubernetes.api.model.rbac.Role.class,
                io.fabric8.kubernetes.api.model.rbac.RoleBinding.class)) {
            created.addAll(tier.client()
                    .resources(type)
                    .inAnyNamespace()
                    .withLabel(Labels.PROFILE, profile)
                    .list()
                    .getItems());
        }
        created.addAll(tier.client()
                .rbac()
                .clusterRoleBindings()
                .withLabel(Labels.PROFILE, profile)
                .list()
                .getItems());
        return created;
    }
}
