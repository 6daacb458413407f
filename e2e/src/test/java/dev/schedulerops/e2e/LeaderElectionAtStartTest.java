package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.KubeSchedulerProcess;
import dev.schedulerops.e2e.support.LeaderElectorCheck;
import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.validation.ProfileValidator;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The leader elector's lease rule, proven on the real kube-scheduler started against the real control plane: for
 * each lease setting, the real scheduler either exits with client-go's "couldn't create leader elector" or acquires
 * its lease, and the operator's validator and the {@link LeaderElectorCheck} the validator-agreement corpus relies on
 * (it cannot start a scheduler per config) give the same verdict. The boundary (6s against 5s) is refused: Go's
 * {@code time.Duration(1.2 * float64(5s))} is exactly 6s.
 */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
@ExtendWith(ClusterExtension.class)
class LeaderElectionAtStartTest {
    private static final String ACQUIRED = "successfully acquired lease";
    private static final String REFUSED = "couldn't create leader elector";

    @ParameterizedTest(name = "lease {0}, renew {1}, retry {2}: {3}")
    @CsvSource({
        "30s, 6s, 5s, refused",
        "30s, 6.000000001s, 5s, accepted",
        "15s, 10s, 2s, accepted",
        "20s, 11.9s, 10s, refused",
        "20s, 12.5s, 10s, accepted"
    })
    void theRealSchedulerTheElectorCheckAndTheOperatorAgree(
            String lease, String renew, String retry, String expected, Cluster cluster) throws Exception {
        String namespace = cluster.createNamespace("lease").getMetadata().getName();
        String config =
                """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                leaderElection:
                  leaderElect: true
                  leaseDuration: %s
                  renewDeadline: %s
                  retryPeriod: %s
                  resourceNamespace: %s
                  resourceName: lease-check
                profiles:
                - schedulerName: lease-check-%s
                """
                        .formatted(lease, renew, retry, namespace, namespace);

        boolean realAccepts;
        try (KubeSchedulerProcess scheduler = cluster.startKubeScheduler("lease-" + namespace, config)) {
            Optional<Integer> exit = scheduler.awaitExitOrLog(ACQUIRED, Duration.ofSeconds(60));
            realAccepts = exit.isEmpty();
            if (!realAccepts) {
                assertThat(scheduler.log()).as("why kube-scheduler exited").contains(REFUSED);
            }
        }
        boolean checkAccepts;
        try (LeaderElectorCheck check =
                LeaderElectorCheck.besides(cluster.binDir().resolve("kube-scheduler"))) {
            checkAccepts = check.refusal(lease, renew, retry).isEmpty();
        }
        List<String> operatorErrors = ProfileValidator.validate(
                ProfileYaml.readOne(
                        """
                        apiVersion: schedulerops.dev/v1beta1
                        kind: SchedulerProfile
                        metadata: {name: lease-check, namespace: %s}
                        spec:
                          labelKey: example.com/pool
                          scheduler:
                            leaderElection: {leaderElect: true, leaseDuration: "%s", renewDeadline: "%s", retryPeriod: "%s"}
                        """
                                .formatted(namespace, lease, renew, retry)),
                ClusterFacts.forVersion(cluster.kubernetesVersion()));

        assertThat(realAccepts ? "accepted" : "refused")
                .as("the real kube-scheduler")
                .isEqualTo(expected);
        assertThat(checkAccepts)
                .as("leader-election-check agrees with the real kube-scheduler")
                .isEqualTo(realAccepts);
        assertThat(operatorErrors.isEmpty())
                .as("the operator agrees with the real kube-scheduler (operator: %s)", operatorErrors)
                .isEqualTo(realAccepts);
    }
}
