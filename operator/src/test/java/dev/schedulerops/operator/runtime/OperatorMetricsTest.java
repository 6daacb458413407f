package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.reconcile.ApplyFailure;
import dev.schedulerops.operator.reconcile.ProfileMetrics;
import dev.schedulerops.operator.validation.SchedulerFlagCatalog;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The operator's own series as Prometheus scrapes them: names, units, labels and values for given profile states. */
class OperatorMetricsTest {
    private static final Pattern LABEL_NAME = Pattern.compile("[{,]([a-z_]+)=\"");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ProfileMetrics profiles = new ProfileMetrics();
    private final AtomicReference<String> version = new AtomicReference<>(supportedVersion());
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final OperatorMetrics metrics = new OperatorMetrics(registry, profiles, version::get, leader::get);

    private static String supportedVersion() {
        return "v" + SchedulerFlagCatalog.versions().get(0) + ".3";
    }

    private List<String> scrape() {
        metrics.refresh();
        return Arrays.stream(registry.scrape().split("\n"))
                .filter(l -> !l.startsWith("#"))
                .toList();
    }

    @Test
    void eachProfileHasItsReadinessReasonNodesTimeoutAndCertificates() {
        profiles.recorded("fast", true, "Ready", 3, OptionalDouble.of(5));
        profiles.recorded("broken", false, "ImageRefused", 0, OptionalDouble.empty());
        profiles.certificates("fast", Map.of("ca", Instant.ofEpochSecond(2_000_000_000L)));

        List<String> lines = scrape();

        assertThat(lines)
                .contains(
                        "schedulerops_profile_ready{schedulerprofile=\"fast\"} 1.0",
                        "schedulerops_profile_ready{schedulerprofile=\"broken\"} 0.0",
                        "schedulerops_profile_ready_reason{reason=\"Ready\",schedulerprofile=\"fast\"} 1.0",
                        "schedulerops_profile_ready_reason{reason=\"ImageRefused\",schedulerprofile=\"broken\"} 1.0",
                        "schedulerops_profile_labelled_nodes{schedulerprofile=\"fast\"} 3.0",
                        "schedulerops_profile_labelled_nodes{schedulerprofile=\"broken\"} 0.0",
                        "schedulerops_profile_extender_http_timeout_seconds{schedulerprofile=\"fast\"} 5.0",
                        "schedulerops_profile_certificate_expiry_timestamp_seconds{certificate=\"ca\","
                                + "schedulerprofile=\"fast\"} 2.0E9",
                        "schedulerops_leader 1.0");
        // A profile without the bundled extender has no timeout series, one without TLS no certificate series.
        assertThat(lines)
                .noneMatch(l ->
                        l.startsWith("schedulerops_profile_extender_http_timeout_seconds{schedulerprofile=\"broken\""))
                .noneMatch(l -> l.startsWith("schedulerops_profile_certificate_expiry_timestamp_seconds")
                        && l.contains("\"broken\""));
    }

    @Test
    void aChangedReasonReplacesTheOldSeriesAndADeletedProfileLeavesNone() {
        profiles.recorded("fast", false, "ExtenderNotReady", 1, OptionalDouble.of(5));
        profiles.certificates("fast", Map.of("ca", Instant.ofEpochSecond(2_000_000_000L)));
        scrape();
        profiles.recorded("fast", true, "Ready", 1, OptionalDouble.of(5));

        assertThat(scrape())
                .contains("schedulerops_profile_ready_reason{reason=\"Ready\",schedulerprofile=\"fast\"} 1.0")
                .noneMatch(l -> l.contains("ExtenderNotReady"));

        profiles.forget("fast");
        assertThat(scrape()).noneMatch(l -> l.contains("schedulerprofile=\"fast\""));
    }

    @Test
    void applyFailuresAreCountedByKindOnly() {
        KubernetesClientException forbidden = new KubernetesClientException("forbidden", 403, null);
        profiles.applyFailed(new ApplyFailure("Deployment schedulerops-system/fast-scheduler", 403, "no", forbidden));
        profiles.applyFailed(new ApplyFailure("Deployment schedulerops-system/slow-scheduler", 403, "no", forbidden));
        profiles.applyFailed(new ApplyFailure("ClusterRoleBinding fast-scheduler", 403, "no", forbidden));

        List<String> lines = scrape();
        assertThat(lines)
                .contains(
                        "schedulerops_apply_failures_total{kind=\"Deployment\"} 2.0",
                        "schedulerops_apply_failures_total{kind=\"ClusterRoleBinding\"} 1.0",
                        "schedulerops_apply_failures_total{kind=\"ConfigMap\"} 0.0")
                .noneMatch(l -> l.contains("fast-scheduler") || l.contains("schedulerops-system/"));
    }

    @Test
    void theClusterVersionSaysWhetherItIsSupportedAndOnlyTheLastOneIsShown() {
        assertThat(scrape())
                .contains(
                        "schedulerops_kubernetes_version_info{supported=\"true\",version=\"" + version.get() + "\"} 1");
        version.set("v1.2.3");
        assertThat(scrape())
                .contains("schedulerops_kubernetes_version_info{supported=\"false\",version=\"v1.2.3\"} 1")
                .filteredOn(l -> l.startsWith("schedulerops_kubernetes_version_info"))
                .hasSize(1);
    }

    @Test
    void infoGaugesEndInInfoAndReadOne() {
        assertThat(scrape())
                .contains("schedulerops_build_info{version=\"" + ClusterFacts.BuildInfo.version() + "\"} 1")
                .noneMatch(
                        l -> l.startsWith("schedulerops_build{") || l.startsWith("schedulerops_kubernetes_version{"));
    }

    @Test
    void aStandbyShowsZeroForLeader() {
        leader.set(false);
        assertThat(scrape()).contains("schedulerops_leader 0.0");
    }

    @Test
    void labelsAreFromABoundedSetAndNamesFollowPrometheusConventions() {
        profiles.recorded("fast", true, "Ready", 3, OptionalDouble.of(5));
        profiles.certificates("fast", Map.of("ca", Instant.ofEpochSecond(2_000_000_000L)));
        List<String> lines =
                scrape().stream().filter(l -> l.startsWith("schedulerops_")).toList();
        assertThat(lines).isNotEmpty();
        for (String line : lines) {
            Matcher m = LABEL_NAME.matcher(line);
            while (m.find()) {
                assertThat(Set.of("schedulerprofile", "reason", "certificate", "kind", "version", "supported"))
                        .as(line)
                        .contains(m.group(1));
            }
            String name = line.split("[{ ]")[0];
            assertThat(name).as("no milliseconds, no bare _time").doesNotContain("_milliseconds", "_ms_");
        }
    }
}
