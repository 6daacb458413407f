package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A stopping operator lets the reconcile that runs finish, with the settings the product gives JOSDK: only then does
 * it release its lease, and a reconcile JOSDK interrupted could still be running when it looks (it then kept the lease
 * until it expired: an upgrade's new operator waited 15 s for it in CI).
 */
@EnableKubernetesMockClient(crud = true)
class GracefulStopTest {
    static final Duration RECONCILE_TAKES = Duration.ofMillis(1500);

    KubernetesClient client;

    /** A reconcile of a ConfigMap that takes {@link #RECONCILE_TAKES}, as one waiting on a slow API server does. */
    static final class SlowReconciler implements Reconciler<ConfigMap> {
        final CountDownLatch started = new CountDownLatch(1);
        final AtomicBoolean interrupted = new AtomicBoolean();
        final AtomicBoolean finished = new AtomicBoolean();

        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap resource, Context<ConfigMap> context) {
            started.countDown();
            try {
                Thread.sleep(RECONCILE_TAKES.toMillis());
                finished.set(true);
            } catch (InterruptedException e) {
                interrupted.set(true);
                Thread.currentThread().interrupt();
            }
            return UpdateControl.noUpdate();
        }
    }

    @Test
    void aReconcileRunningWhenTheOperatorStopsFinishesBeforeTheStopReturns() throws Exception {
        ReconcileMetrics metrics = new ReconcileMetrics(
                io.javaoperatorsdk.operator.api.monitoring.Metrics.NOOP,
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        Operator operator = new Operator(OperatorRuntime.josdkSettings(client, 2, metrics, Optional.empty()));
        SlowReconciler reconciler = new SlowReconciler();
        operator.register(reconciler, o -> o.settingNamespace("test"));
        operator.start();
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("profile-like")
                        .withNamespace("test")
                        .endMetadata()
                        .build())
                .create();
        assertThat(reconciler.started.await(30, TimeUnit.SECONDS))
                .as("the reconcile started")
                .isTrue();

        long stopping = System.nanoTime();
        operator.stop();
        Duration stopTook = Duration.ofNanos(System.nanoTime() - stopping);

        assertThat(reconciler.interrupted).as("the reconcile was interrupted").isFalse();
        assertThat(reconciler.finished).as("the reconcile finished").isTrue();
        assertThat(metrics.running())
                .as("what decides whether the stopping operator releases its lease")
                .isZero();
        assertThat(stopTook)
                .as("the stop waited for the reconcile, not for its whole allowance")
                .isLessThan(OperatorRuntime.RECONCILES_FINISH_WITHIN);
    }
}
