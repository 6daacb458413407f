package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.reconcile.ProfileStatuses;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator's /metrics, scraped from a running operator on a real API server: each profile's readiness and reason,
 * its extender's timeout and its certificates' expiry follow what the reconciler records, a deleted profile's series
 * go, and reconciles are timed.
 */
@ExtendWith(ApiServerTier.class)
class MetricsTest {
    @Test
    void theProfileSeriesFollowTheProfilesStatusAndGoWithIt(Tier tier) throws Exception {
        try (OwnOperator operator = OwnOperator.start(tier, Map.of())) {
            String p = tier.name("p");
            String q = tier.name("q");
            tier.extenderAvailable("p", true);
            tier.schedulerAvailable("p", true);
            tier.createProfile(
                    "p", "labelKey: example.com/rank\nextender:\n  httpTimeout: 7s", operator.profileLabels());
            Eventually.until(
                    "p is Ready",
                    () -> tier.hasCondition("p", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                    () -> tier.conditions("p"));
            Eventually.until(
                    "/metrics shows p Ready",
                    () -> operator.metrics().contains("schedulerops_profile_ready{schedulerprofile=\"" + p + "\"} 1.0"),
                    () -> operator.metrics());

            List<String> lines = operator.metrics();
            assertThat(lines)
                    .contains(
                            "schedulerops_profile_ready_reason{reason=\"Available\",schedulerprofile=\"" + p
                                    + "\"} 1.0",
                            "schedulerops_profile_extender_http_timeout_seconds{schedulerprofile=\"" + p + "\"} 7.0",
                            "schedulerops_leader 1.0");
            Optional<Double> caExpiry = OwnOperator.value(
                    lines,
                    "schedulerops_profile_certificate_expiry_timestamp_seconds{certificate=\"ca\",schedulerprofile=\""
                            + p + "\"}");
            assertThat(caExpiry).as("the CA's notAfter").isPresent();
            assertThat(caExpiry.get())
                    .isGreaterThan(Instant.now().plusSeconds(7 * 24 * 3600).getEpochSecond());
            assertThat(OwnOperator.value(
                            lines,
                            "schedulerops_profile_certificate_expiry_timestamp_seconds{"
                                    + "certificate=\"extender-serving\",schedulerprofile=\"" + p + "\"}"))
                    .isPresent();
            assertThat(OwnOperator.value(
                            lines, "schedulerops_reconcile_duration_seconds_count{operation=\"reconcile\"}"))
                    .hasValueSatisfying(n -> assertThat(n).isPositive());
            assertThat(lines).anyMatch(l -> l.startsWith("schedulerops_kubernetes_version_info{supported=\"true\""));
            // Gauges whose object Micrometer holds weakly read NaN once it is collected: these must not.
            System.gc();
            List<String> afterGc = operator.metrics();
            for (String gauge : List.of("schedulerops_reconcile_queue_depth", "schedulerops_reconciles_running")) {
                assertThat(OwnOperator.value(afterGc, gauge))
                        .as(gauge)
                        .hasValueSatisfying(v -> assertThat(v).isNotNaN().isGreaterThanOrEqualTo(0));
            }

            tier.createProfile(
                    "q",
                    """
                    labelKey: example.com/rank
                    plugins:
                      score:
                        enabled:
                        - name: NoSuchPlugin
                    """,
                    operator.profileLabels());
            Eventually.until(
                    "/metrics shows q not Ready",
                    () -> operator.metrics().contains("schedulerops_profile_ready{schedulerprofile=\"" + q + "\"} 0.0"),
                    () -> operator.metrics());
            assertThat(operator.metrics())
                    .noneMatch(l -> l.startsWith("schedulerops_profile_extender_http_timeout_seconds")
                            && l.contains("\"" + q + "\""));

            tier.profile("p").delete();
            Eventually.until(
                    "p's series are gone once it is deleted",
                    () -> operator.metrics().stream().noneMatch(l -> l.contains("schedulerprofile=\"" + p + "\"")),
                    () -> operator.metrics());
            tier.profile("q").delete();
        }
    }
}
