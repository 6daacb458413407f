package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reconcile duration, errors, queue depth and running reconciles as Prometheus scrapes them. */
class ReconcileMetricsTest {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReconcileMetrics metrics = new ReconcileMetrics(Metrics.NOOP, registry);
    private final ConfigMap resource =
            new ConfigMapBuilder().withNewMetadata().withName("p").endMetadata().build();

    private List<String> scrape() {
        return Arrays.stream(registry.scrape().split("\n"))
                .filter(l -> !l.startsWith("#"))
                .toList();
    }

    private static Metrics.ControllerExecution<String> execution(String name, boolean fails) {
        return new Metrics.ControllerExecution<>() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String controllerName() {
                return "schedulerprofile";
            }

            @Override
            public String successTypeName(String result) {
                return "ok";
            }

            @Override
            public ResourceID resourceID() {
                return new ResourceID("p");
            }

            @Override
            public Map<String, Object> metadata() {
                return Map.of();
            }

            @Override
            public String execute() {
                if (fails) {
                    throw new IllegalStateException("refused");
                }
                return "done";
            }
        };
    }

    @Test
    void eachReconcileIsTimedInSecondsAndFailuresAreCountedByOperation() throws Exception {
        assertThat(metrics.timeControllerExecution(execution("reconcile", false)))
                .isEqualTo("done");
        assertThatThrownBy(() -> metrics.timeControllerExecution(execution("reconcile", true)))
                .hasMessage("refused");
        assertThatThrownBy(() -> metrics.timeControllerExecution(execution("cleanup", true)))
                .hasMessage("refused");

        assertThat(scrape())
                .contains(
                        "schedulerops_reconcile_duration_seconds_count{operation=\"reconcile\"} 2",
                        "schedulerops_reconcile_duration_seconds_count{operation=\"cleanup\"} 1",
                        "schedulerops_reconcile_duration_seconds_bucket{operation=\"reconcile\",le=\"+Inf\"} 2",
                        "schedulerops_reconcile_errors_total{operation=\"reconcile\"} 1.0",
                        "schedulerops_reconcile_errors_total{operation=\"cleanup\"} 1.0")
                .anyMatch(l -> l.startsWith(
                        "schedulerops_reconcile_duration_seconds_bucket{operation=\"reconcile\",le=\"0.005\"}"))
                .anyMatch(l -> l.startsWith(
                        "schedulerops_reconcile_duration_seconds_bucket{operation=\"reconcile\",le=\"30.0\"}"));
    }

    @Test
    void queueDepthCountsReconcilesNotYetStartedAndRunningThoseNotFinished() {
        metrics.reconcileCustomResource(resource, null, Map.of());
        metrics.reconcileCustomResource(resource, null, Map.of());
        assertThat(scrape()).contains("schedulerops_reconcile_queue_depth 2.0", "schedulerops_reconciles_running 0.0");

        metrics.reconciliationExecutionStarted(resource, Map.of());
        assertThat(scrape()).contains("schedulerops_reconcile_queue_depth 1.0", "schedulerops_reconciles_running 1.0");
        assertThat(metrics.running())
                .as("what decides whether the stopping operator releases its lease")
                .isEqualTo(1);

        metrics.reconciliationExecutionFinished(resource, Map.of());
        assertThat(scrape()).contains("schedulerops_reconcile_queue_depth 1.0", "schedulerops_reconciles_running 0.0");
        assertThat(metrics.running()).isZero();
    }

    @Test
    void aSkippedReconcileLeavesTheQueueWithoutHidingOneThatStillRuns() throws Exception {
        metrics.reconcileCustomResource(resource, null, Map.of());
        metrics.reconcileCustomResource(resource, null, Map.of());
        metrics.reconciliationExecutionStarted(resource, Map.of());

        // JOSDK's executor, on another thread, finds the second profile gone from its cache: it calls only
        // "finished" (from its finally block), never "started".
        Thread skip = new Thread(() -> metrics.reconciliationExecutionFinished(resource, Map.of()));
        skip.start();
        skip.join();

        assertThat(metrics.running())
                .as("the first reconcile still runs: a stopping operator must keep its lease")
                .isEqualTo(1);
        assertThat(scrape()).contains("schedulerops_reconcile_queue_depth 0.0", "schedulerops_reconciles_running 1.0");

        metrics.reconciliationExecutionFinished(resource, Map.of());
        assertThat(metrics.running()).isZero();
        assertThat(scrape()).contains("schedulerops_reconcile_queue_depth 0.0");
    }
}
