package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A stopping operator lets the reconcile that runs finish, with the settings the product gives JOSDK: only then does
 * it release its lease, and a reconcile JOSDK interrupted could still be running when it looks (it then kept the lease
 * until it expired: an upgrade's new operator waited 15 s for it in CI).
 */
@EnableKubernetesMockClient(crud = true)
class GracefulStopTest {
    static final Duration AFTER_THE_STOP = Duration.ofSeconds(2);

    KubernetesClient client;

    /**
     * A reconcile of a ConfigMap that is still running {@link #AFTER_THE_STOP} after the operator's stop has begun, as
     * one waiting on a slow API server would be.
     */
    static final class SlowReconciler implements Reconciler<ConfigMap> {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch stopBegun = new CountDownLatch(1);
        final AtomicBoolean interrupted = new AtomicBoolean();
        final AtomicLong finishedAt = new AtomicLong();

        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap resource, Context<ConfigMap> context) {
            started.countDown();
            try {
                if (stopBegun.await(30, TimeUnit.SECONDS)) {
                    Thread.sleep(AFTER_THE_STOP.toMillis());
                    finishedAt.set(System.nanoTime());
                }
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
        reconciler.stopBegun.countDown();
        operator.stop();
        Duration stopTook = Duration.ofNanos(System.nanoTime() - stopping);

        assertThat(reconciler.interrupted).as("the reconcile was interrupted").isFalse();
        assertThat(reconciler.finishedAt.get())
                .as("the reconcile finished, after the stop had begun")
                .isGreaterThan(stopping);
        assertThat(metrics.running())
                .as("what decides whether the stopping operator releases its lease")
                .isZero();
        assertThat(stopTook)
                .as("the stop waited for the reconcile, not for its whole allowance")
                .isLessThan(OperatorRuntime.RECONCILES_FINISH_WITHIN);
    }

    /**
     * JOSDK stops renewing the leader lease when its stop begins: the lease must still be this operator's when the
     * stop gives up on its reconciles, with room for clocks that differ between nodes; and the whole stop, the
     * schedulers' lease hand-over after it included, must end inside the pod's termination grace period.
     */
    @Test
    void theStopEndsWhileTheLeaseStillFencesItAndInsideThePodsGracePeriod() throws Exception {
        Duration lastRenewalAge = LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE;
        Duration givesUpAfter =
                OperatorRuntime.RECONCILES_FINISH_WITHIN.plus(OperatorRuntime.INTERRUPTED_RECONCILES_END_WITHIN);
        assertThat(lastRenewalAge.plus(givesUpAfter).plus(Duration.ofSeconds(5)))
                .as("the last renewal's age, the wait for reconciles and 5 s for skew and requests")
                .isLessThanOrEqualTo(LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE);

        String deployment = Files.readString(Path.of("..", "deploy", "operator", "deployment.yaml"));
        Matcher grace = Pattern.compile("terminationGracePeriodSeconds: (\\d+)").matcher(deployment);
        assertThat(grace.find())
                .as("deploy/operator/deployment.yaml sets a grace period")
                .isTrue();
        Duration handOver = OperatorRuntime.HAND_OVER_WHILE_STOPPING_MAX.plus(SchedulerLeaseWatch.WORKER_STOPS_WITHIN);
        assertThat(givesUpAfter.plus(handOver).plus(Duration.ofSeconds(5)))
                .as("the stop, the hand-over and 5 s for the release and the rest")
                .isLessThanOrEqualTo(Duration.ofSeconds(Long.parseLong(grace.group(1))));
    }
}
