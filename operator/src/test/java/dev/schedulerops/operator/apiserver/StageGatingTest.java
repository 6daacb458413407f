package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 2 (the scheduler's ConfigMap and Deployment) waits for the extender Deployment Available at its generation. */
@ExtendWith(ApiServerTier.class)
class StageGatingTest {

    @Test
    void theSchedulerIsConfiguredOnlyOnceTheExtenderIsAvailable(Tier tier) {
        Names names = tier.names("p");
        tier.createProfile("p", "labelKey: example.com/rank");

        Eventually.until("the extender Deployment exists", () -> tier.deployment(names.extender()) != null);
        Eventually.until(
                "Ready=False WaitingForExtender",
                () -> tier.hasCondition(
                        "p", ProfileStatuses.READY, "False", ProfileStatuses.REASON_WAITING_FOR_EXTENDER),
                () -> tier.conditions("p"));
        tier.reconciledAsOfNow("p");
        assertThat(tier.configMap(names.schedulerConfig())).isNull();
        assertThat(tier.deployment(names.scheduler())).isNull();

        tier.extenderAvailable("p", true);
        Eventually.until("the scheduler Deployment exists", () -> tier.deployment(names.scheduler()) != null);
        assertThat(tier.configMap(names.schedulerConfig())).isNotNull();
        Eventually.until(
                "Ready=False RollingOutScheduler",
                () -> tier.hasCondition(
                        "p", ProfileStatuses.READY, "False", ProfileStatuses.REASON_ROLLING_OUT_SCHEDULER),
                () -> tier.conditions("p"));

        tier.schedulerAvailable("p", true);
        Eventually.until(
                "Ready=True",
                () -> tier.hasCondition("p", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                () -> tier.conditions("p"));
        String applied = tier.deployment(names.scheduler())
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(Labels.CONFIG_HASH);
        assertThat(tier.profile("p").get().getStatus().getConfigHash()).isEqualTo(applied);
        assertThat(tier.hasEvent("p", "Normal", "ExtenderAvailable")).isTrue();
        assertThat(tier.hasEvent("p", "Normal", "Ready")).isTrue();
    }

    @Test
    void anExtenderChangeWaitsForTheNewExtenderBeforeTouchingTheScheduler(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        String ruleHash = extenderRuleHash(tier.deployment(names.scheduler()));
        long extenderGeneration =
                tier.deployment(names.extender()).getMetadata().getGeneration();

        tier.extenderAvailable("p", false);
        tier.editSpec("p", spec -> spec.setLabelKey("example.com/other"));
        Eventually.until(
                "a new extender generation",
                () -> tier.deployment(names.extender()).getMetadata().getGeneration() > extenderGeneration);
        Eventually.until(
                "Ready=False WaitingForExtender",
                () -> tier.hasCondition(
                        "p", ProfileStatuses.READY, "False", ProfileStatuses.REASON_WAITING_FOR_EXTENDER),
                () -> tier.conditions("p"));
        tier.reconciledAsOfNow("p");
        assertThat(extenderRuleHash(tier.deployment(names.scheduler())))
                .as("the scheduler is left alone while the new extender is not available")
                .isEqualTo(ruleHash);

        tier.extenderAvailable("p", true);
        Eventually.until(
                "the scheduler restarts for the new rule",
                () -> !ruleHash.equals(extenderRuleHash(tier.deployment(names.scheduler()))));
        Eventually.until(
                "Ready=True again",
                () -> tier.hasCondition("p", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                () -> tier.conditions("p"));
    }

    @Test
    void aSchedulerOnlyChangeLeavesTheExtenderAlone(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        Deployment extender = tier.deployment(names.extender());
        String configHash = tier.profile("p").get().getStatus().getConfigHash();

        tier.profile("p").edit(p -> {
            p.getSpec().setWeight(7);
            return p;
        });
        Eventually.until(
                "the new config reaches the scheduler",
                () -> !configHash.equals(tier.profile("p").get().getStatus().getConfigHash())
                        && tier.hasCondition("p", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                () -> tier.conditions("p"));
        assertThat(tier.deployment(names.extender()).getMetadata().getGeneration())
                .isEqualTo(extender.getMetadata().getGeneration());
    }

    private static String extenderRuleHash(Deployment scheduler) {
        return scheduler.getSpec().getTemplate().getMetadata().getAnnotations().get(Labels.EXTENDER_RULE_HASH);
    }
}
