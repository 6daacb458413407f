package dev.schedulerops.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Accepted;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Rejected;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The acceptance helper against hand-written configs whose verdict the real kube-scheduler is known to give. */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
class SchedulerConfigAcceptanceHelperTest {
    private final SchedulerConfigAcceptance acceptance = SchedulerConfigAcceptance.usingBuiltBinaries();

    static List<ExpectComment> configs() {
        return ExpectComment.allIn("scheduler-configs");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void realBinaryGivesTheRecordedVerdict(ExpectComment config) {
        Verdict verdict = acceptance.check(config.yaml());

        if (config.expectsAccepted()) {
            assertThat(verdict).isInstanceOf(Accepted.class);
        } else {
            assertThat(verdict).isInstanceOf(Rejected.class);
            assertThat(((Rejected) verdict).message()).contains(config.expectedMessage());
        }
    }

    @Test
    void acceptedConfigComesBackCompletedWithDefaults() {
        Verdict verdict = acceptance.check(
                """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                leaderElection:
                  leaderElect: false
                profiles:
                  - schedulerName: completed-by-the-binary
                """);

        assertThat(verdict).isInstanceOf(Accepted.class);
        String effective = ((Accepted) verdict).effectiveConfig();
        assertThat(effective)
                .contains("schedulerName: completed-by-the-binary")
                .contains("name: DefaultPreemption")
                .contains("name: NodeResourcesFit")
                .contains("percentageOfNodesToScore: 0");
    }

    @Test
    void tlsFilesNamedByTheConfigAreWrittenBecauseTheBinaryReadsThem(@TempDir Path dir) throws Exception {
        String config =
                """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                leaderElection:
                  leaderElect: false
                profiles:
                  - schedulerName: mutual-tls
                extenders:
                  - urlPrefix: https://p-extender.ns.svc:8443
                    filterVerb: filter
                    enableHTTPS: true
                    nodeCacheCapable: true
                    tlsConfig:
                      caFile: /etc/schedulerops/extender-client/ca.crt
                      certFile: /etc/schedulerops/extender-client/tls.crt
                      keyFile: /etc/schedulerops/extender-client/tls.key
                      serverName: p-extender.ns.svc
                """;
        Path asRendered = dir.resolve("config.yaml");
        Files.writeString(asRendered, config);

        Verdict withoutFiles = acceptance.check(asRendered);
        assertThat(withoutFiles).isInstanceOf(Rejected.class);
        assertThat(((Rejected) withoutFiles).message())
                .contains("/etc/schedulerops/extender-client/ca.crt")
                .contains("no such file");

        Verdict withFiles = acceptance.check(config);
        assertThat(withFiles).isInstanceOf(Accepted.class);
        assertThat(((Accepted) withFiles).effectiveConfig()).contains("serverName: p-extender.ns.svc");
    }

    @Test
    void catalogueCoversAcceptedAndRejectedCases() {
        assertThat(configs()).anyMatch(ExpectComment::expectsAccepted);
        assertThat(configs()).filteredOn(c -> !c.expectsAccepted()).hasSizeGreaterThanOrEqualTo(7);
    }

    @Test
    void messageIsTakenFromTheCommandFailedLine() {
        String stderr =
                """
                W1121 22:28:38.0 client_config.go:667] some warning
                E1121 22:28:38.0 run.go:72] "command failed" err="plugin \\"X\\" does not extend ScorePlugin plugin"
                """;

        assertThat(SchedulerConfigAcceptance.errorMessage(stderr))
                .isEqualTo("plugin \"X\" does not extend ScorePlugin plugin");
    }
}
