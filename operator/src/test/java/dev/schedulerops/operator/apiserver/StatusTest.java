package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.reconcile.ProfileStatuses;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.ResourceQuotaStatusBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the status and the events say when a profile cannot be rolled out. */
@ExtendWith(ApiServerTier.class)
class StatusTest {

    @Test
    void anInvalidProfileSaysWhyAndCreatesNothing(Tier tier) {
        tier.createProfile(
                "p",
                """
                labelKey: example.com/rank
                plugins:
                  score:
                    enabled:
                    - name: NoSuchPlugin
                """);

        Eventually.until(
                "ConfigValid=False InvalidConfig",
                () -> tier.hasCondition(
                        "p", ProfileStatuses.CONFIG_VALID, "False", ProfileStatuses.REASON_INVALID_CONFIG),
                () -> tier.conditions("p"));
        assertThat(tier.condition("p", ProfileStatuses.CONFIG_VALID)
                        .orElseThrow()
                        .getMessage())
                .contains("NoSuchPlugin");
        assertThat(tier.hasCondition("p", ProfileStatuses.STALLED, "True", ProfileStatuses.REASON_INVALID_CONFIG))
                .isTrue();
        Eventually.until("a Warning event InvalidConfig", () -> tier.hasEvent("p", "Warning", "InvalidConfig"));
        assertThat(tier.deployment(tier.names("p").extender())).isNull();
        assertThat(tier.client()
                        .serviceAccounts()
                        .inNamespace(tier.namespace())
                        .list()
                        .getItems())
                .noneMatch(sa -> sa.getMetadata().getName().startsWith(tier.name("p") + "-"));
    }

    @Test
    void aSecondClaimOnASchedulerNameIsRefused(Tier tier) {
        tier.rollOut("first", "labelKey: example.com/rank\nschedulerName: shared-" + tier.id());
        tier.createProfile("second", "labelKey: example.com/rank\nschedulerName: shared-" + tier.id());

        Eventually.until(
                "ConfigValid=False SchedulerNameConflict",
                () -> tier.hasCondition(
                        "second", ProfileStatuses.CONFIG_VALID, "False", ProfileStatuses.REASON_CONFLICT),
                () -> tier.conditions("second"));
        assertThat(tier.condition("second", ProfileStatuses.CONFIG_VALID)
                        .orElseThrow()
                        .getMessage())
                .contains("'" + tier.name("first") + "'");
        assertThat(tier.deployment(tier.names("second").extender())).isNull();
        assertThat(tier.hasCondition("first", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE))
                .isTrue();
    }

    /**
     * A quota the API server enforces at admission refuses the extender's Service: the profile says so in Ready and
     * Stalled (reason ApplyFailed, with the object and the server's message) and in a Warning event.
     */
    @Test
    void aRefusedApplyEndsInTheStatusAndAWarningEvent(Tier tier) {
        ResourceQuota quota = tier.client()
                .resource(new ResourceQuotaBuilder()
                        .withNewMetadata()
                        .withName("no-services")
                        .withNamespace(tier.namespace())
                        .endMetadata()
                        .withNewSpec()
                        .withHard(Map.of("services", new Quantity("0")))
                        .endSpec()
                        .build())
                .create();
        // What kube-controller-manager's quota controller would write; without it admission refuses as "unknown".
        quota.setStatus(new ResourceQuotaStatusBuilder()
                .withHard(Map.of("services", new Quantity("0")))
                .withUsed(Map.of("services", new Quantity("0")))
                .build());
        tier.client().resource(quota).updateStatus();
        try {
            refusedByTheQuota(tier);
        } finally {
            // The workload namespace is shared by every test of the tier.
            tier.client().resource(quota).delete();
        }
        tier.extenderAvailable("p", true);
        tier.schedulerAvailable("p", true);
        Eventually.until(
                "Ready=True after the quota is gone",
                () -> tier.hasCondition("p", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                () -> tier.conditions("p"));
        assertThat(tier.conditions("p")).noneMatch(c -> ProfileStatuses.STALLED.equals(c.getType()));
    }

    private static void refusedByTheQuota(Tier tier) {
        tier.createProfile("p", "labelKey: example.com/rank");

        Eventually.until(
                "Ready=False ApplyFailed",
                () -> tier.hasCondition("p", ProfileStatuses.READY, "False", ProfileStatuses.REASON_APPLY_FAILED),
                () -> tier.conditions("p"));
        String message =
                tier.condition("p", ProfileStatuses.READY).orElseThrow().getMessage();
        assertThat(message)
                .startsWith("Could not apply Service " + tier.namespace() + "/"
                        + tier.names("p").extender())
                .contains("HTTP 403")
                .contains("exceeded quota: no-services");
        assertThat(tier.hasCondition("p", ProfileStatuses.STALLED, "True", ProfileStatuses.REASON_APPLY_FAILED))
                .isTrue();
        assertThat(tier.hasCondition("p", ProfileStatuses.CONFIG_VALID, "True", ProfileStatuses.REASON_VALID))
                .isTrue();
        Eventually.until("a Warning event ApplyFailed", () -> tier.hasEvent("p", "Warning", "ApplyFailed"));
        assertThat(tier.events("p").stream()
                        .filter(e -> "ApplyFailed".equals(e.getReason()))
                        .findFirst()
                        .orElseThrow()
                        .getMessage())
                .isEqualTo(message);
        // Once the quota is gone (by the caller), a retry rolls the profile out.
    }
}
