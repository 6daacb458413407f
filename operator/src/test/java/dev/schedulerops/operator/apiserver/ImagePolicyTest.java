package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.reconcile.ProfileStatuses;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.runtime.OperatorConfig;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Images are the installer's choice: a profile that names an image outside the allowed repositories is refused with
 * reason ImageNotAllowed, and what already runs is left exactly as it was; a digest-pinned image of an allowed
 * repository rolls out.
 */
@ExtendWith(ApiServerTier.class)
class ImagePolicyTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    @Test
    void anImageOutsideTheAllowedRepositoriesIsRefusedAndNothingRunningChanges(Tier tier) {
        String reason = RenderResult.Refusal.IMAGE_NOT_ALLOWED.reason();
        try (OwnOperator operator = OwnOperator.start(
                tier,
                Map.of(
                        OperatorConfig.ENV_EXTENDER_IMAGE, "registry.example.com/schedulerops/extender:1",
                        OperatorConfig.ENV_ALLOWED_IMAGE_REPOSITORIES,
                                "registry.example.com/schedulerops/,registry.k8s.io/kube-scheduler"))) {
            tier.extenderAvailable("p", true);
            tier.schedulerAvailable("p", true);
            tier.createProfile(
                    "p",
                    "labelKey: example.com/rank\nextender:\n  image: registry.example.com/schedulerops/extender@"
                            + DIGEST,
                    operator.profileLabels());
            Eventually.until(
                    "a digest-pinned image of an allowed repository rolls out",
                    () -> tier.hasCondition("p", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                    () -> tier.conditions("p"));
            Deployment extender = tier.deployment(tier.names("p").extender());
            Deployment scheduler = tier.deployment(tier.names("p").scheduler());
            assertThat(extender.getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .get(0)
                            .getImage())
                    .isEqualTo("registry.example.com/schedulerops/extender@" + DIGEST);

            tier.editSpec("p", spec -> {
                spec.setScheduler(new dev.schedulerops.operator.api.SchedulerSpec());
                spec.getScheduler().setImage("attacker.example.com/kube-scheduler:v1.33.0");
            });
            Eventually.until(
                    "ConfigValid=False ImageNotAllowed",
                    () -> tier.hasCondition("p", ProfileStatuses.CONFIG_VALID, "False", reason),
                    () -> tier.conditions("p"));
            assertThat(tier.condition("p", ProfileStatuses.CONFIG_VALID)
                            .orElseThrow()
                            .getMessage())
                    .contains("spec.scheduler.image")
                    .contains("attacker.example.com/kube-scheduler:v1.33.0")
                    .contains("registry.example.com/schedulerops/")
                    .contains("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES");
            assertThat(tier.hasCondition("p", ProfileStatuses.STALLED, "True", reason))
                    .isTrue();
            Eventually.until("a Warning event ImageNotAllowed", () -> tier.hasEvent("p", "Warning", reason));
            Deployment schedulerNow = tier.deployment(tier.names("p").scheduler());
            assertThat(schedulerNow.getMetadata().getGeneration())
                    .as("the running scheduler is untouched")
                    .isEqualTo(scheduler.getMetadata().getGeneration());
            assertThat(schedulerNow
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .get(0)
                            .getImage())
                    .startsWith("registry.k8s.io/kube-scheduler:");
            assertThat(tier.deployment(tier.names("p").extender()).getMetadata().getGeneration())
                    .isEqualTo(extender.getMetadata().getGeneration());

            tier.profile("p").delete();
            Eventually.until("the profile goes", () -> tier.profile("p").get() == null);
        }
    }
}
