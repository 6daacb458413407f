package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A component's PodDisruptionBudget follows its replicas on the real API server: created above 1, deleted at 1 (by
 * the prune of what the profile no longer renders).
 */
@ExtendWith(ApiServerTier.class)
class DisruptionBudgetTest {

    @Test
    void droppingBackToOneReplicaDeletesTheComponentsBudget(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank\nextender: {replicas: 2}\nscheduler: {replicas: 2}");
        assertThat(budget(tier, names.extender())).as("extender PDB").isNotNull();
        assertThat(budget(tier, names.scheduler())).as("scheduler PDB").isNotNull();

        tier.profile("p").edit(p -> {
            p.getSpec().getExtender().setReplicas(1);
            p.getSpec().getScheduler().setReplicas(1);
            return p;
        });

        Eventually.until(
                "both PodDisruptionBudgets are deleted",
                () -> budget(tier, names.extender()) == null && budget(tier, names.scheduler()) == null);
        assertThat(tier.deployment(names.extender()).getSpec().getReplicas()).isEqualTo(1);
        assertThat(tier.events("p")).anySatisfy(e -> assertThat(e.getMessage())
                .isEqualTo("Deleted PodDisruptionBudget " + tier.namespace() + "/" + names.extender()
                        + ": the profile no longer renders it"));
    }

    private static PodDisruptionBudget budget(Tier tier, String name) {
        return tier.client()
                .policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(tier.namespace())
                .withName(name)
                .get();
    }
}
