package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OperatorConfigTest {

    @Test
    void defaultsOutsideACluster() {
        OperatorConfig config = OperatorConfig.fromEnvironment(Map.of(), Optional::empty);

        assertThat(config.workloadNamespace()).isEqualTo("schedulerops-system");
        assertThat(config.profileSelector()).isEmpty();
        assertThat(config.allowedImageRepositories()).isEmpty();
        assertThat(config.imagePolicy().allowedRepositories())
                .containsExactlyInAnyOrder(
                        "registry.k8s.io/kube-scheduler",
                        config.extenderImage()
                                .substring(0, config.extenderImage().lastIndexOf(':')));
        assertThat(config.leaderElection()).isFalse();
        assertThat(config.leaderElectionNamespace()).isEqualTo("schedulerops-system");
        assertThat(config.leaseName()).isEqualTo("schedulerops-operator");
        assertThat(config.schedulerImageRepository()).isEqualTo("registry.k8s.io/kube-scheduler");
        assertThat(config.extenderImage()).contains("schedulerops-extender:");
        assertThat(config.logFormat()).isEqualTo("text");
        assertThat(config.httpPort()).isEqualTo(8080);
        assertThat(config.httpBindAddress()).isEqualTo("0.0.0.0");
        assertThat(config.protectedNamespaces())
                .containsExactlyInAnyOrder("kube-system", "kube-public", "kube-node-lease");
        assertThat(config.maxConcurrentRollouts()).isEqualTo(5);
        assertThat(config.versionCheckSeconds()).isEqualTo(300);
        assertThat(config.apiQps()).isEqualTo(100.0);
        assertThat(config.apiBurst()).isEqualTo(200);
        assertThat(config.reconcileThreads()).isEqualTo(10);
    }

    @Test
    void rateLimitAndThreadsAreReadAndMustBePositive() {
        OperatorConfig config = OperatorConfig.fromEnvironment(
                Map.of(
                        "SCHEDULEROPS_API_QPS", "2.5",
                        "SCHEDULEROPS_API_BURST", "4",
                        "SCHEDULEROPS_RECONCILE_THREADS", "3"),
                Optional::empty);
        assertThat(config.apiQps()).isEqualTo(2.5);
        assertThat(config.apiBurst()).isEqualTo(4);
        assertThat(config.reconcileThreads()).isEqualTo(3);
        for (String qps : new String[] {"0", "-1", "NaN", "Infinity"}) {
            assertThatThrownBy(
                            () -> OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_API_QPS", qps), Optional::empty))
                    .hasMessageContaining("SCHEDULEROPS_API_QPS must be a positive number");
        }
        assertThatThrownBy(
                        () -> OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_API_QPS", "fast"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_API_QPS must be a number, not fast");
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_API_BURST", "0"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_API_BURST must be at least 1, not 0");
        assertThatThrownBy(() ->
                        OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_RECONCILE_THREADS", "0"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_RECONCILE_THREADS must be at least 1, not 0");
    }

    @Test
    void maxConcurrentRolloutsIsReadAndMustBePositive() {
        assertThat(OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS", "2"), Optional::empty)
                        .maxConcurrentRollouts())
                .isEqualTo(2);
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(
                        Map.of("SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS", "0"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS must be at least 1, not 0");
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(
                        Map.of("SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS", "all"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS must be a number");
        assertThat(OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_VERSION_CHECK_SECONDS", "30"), Optional::empty)
                        .versionCheckSeconds())
                .isEqualTo(30);
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(
                        Map.of("SCHEDULEROPS_VERSION_CHECK_SECONDS", "0"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_VERSION_CHECK_SECONDS must be at least 1");
    }

    @Test
    void theReleaseLeaseSidecarIsOnUnlessTurnedOff() {
        assertThat(OperatorConfig.fromEnvironment(Map.of(), Optional::empty).releaseLeaseSidecar())
                .isTrue();
        assertThat(OperatorConfig.fromEnvironment(
                                Map.of("SCHEDULEROPS_RELEASE_LEASE_SIDECAR", "false"), Optional::empty)
                        .releaseLeaseSidecar())
                .isFalse();
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(
                        Map.of("SCHEDULEROPS_RELEASE_LEASE_SIDECAR", "off"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_RELEASE_LEASE_SIDECAR");
    }

    @Test
    void podEventsAreOffUnlessAskedForAndTheirGraceIsNotNegative() {
        assertThat(OperatorConfig.fromEnvironment(Map.of(), Optional::empty).podEventSettings())
                .isEqualTo(new dev.schedulerops.operator.reconcile.UnscheduledPodWatch.Settings(
                        false, java.time.Duration.ofSeconds(60)));
        assertThat(OperatorConfig.fromEnvironment(
                                Map.of("SCHEDULEROPS_POD_EVENTS", "true", "SCHEDULEROPS_POD_EVENTS_GRACE_SECONDS", "5"),
                                Optional::empty)
                        .podEventSettings())
                .isEqualTo(new dev.schedulerops.operator.reconcile.UnscheduledPodWatch.Settings(
                        true, java.time.Duration.ofSeconds(5)));
        assertThat(OperatorConfig.fromEnvironment(
                                Map.of("SCHEDULEROPS_POD_EVENTS_IGNORE_SCHEDULERS", "volcano, yunikorn"),
                                Optional::empty)
                        .podEventSettings()
                        .ignoredSchedulers())
                .containsExactlyInAnyOrder("volcano", "yunikorn");
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(
                        Map.of("SCHEDULEROPS_POD_EVENTS_GRACE_SECONDS", "-1"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_POD_EVENTS_GRACE_SECONDS must be at least 0, not -1");
    }

    @Test
    void protectedNamespacesReplaceTheDefaultWhenSet() {
        assertThat(OperatorConfig.fromEnvironment(
                                Map.of("SCHEDULEROPS_PROTECTED_NAMESPACES", "kube-system, payments"), Optional::empty)
                        .protectedNamespaces())
                .containsExactlyInAnyOrder("kube-system", "payments");
        assertThat(OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_PROTECTED_NAMESPACES", " "), Optional::empty)
                        .protectedNamespaces())
                .contains("kube-system");
    }

    @Test
    void inAPodLeaderElectionIsOnAndTheWorkloadsGoInThePodsNamespace() {
        OperatorConfig config = OperatorConfig.fromEnvironment(
                Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), () -> Optional.of("platform-scheduling"));

        assertThat(config.leaderElection()).isTrue();
        assertThat(config.workloadNamespace()).isEqualTo("platform-scheduling");
        assertThat(config.leaderElectionNamespace()).isEqualTo("platform-scheduling");
    }

    @Test
    void theWorkloadNamespaceAndAllowedImageRepositoriesAreCheckedAtStartUp() {
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(
                        Map.of("SCHEDULEROPS_WORKLOAD_NAMESPACE", "Team_A"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_WORKLOAD_NAMESPACE must be a namespace name");
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(
                        Map.of("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES", "example.com/ext:1"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES: 'example.com/ext:1' is neither");
        OperatorConfig config = OperatorConfig.fromEnvironment(
                Map.of("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES", " mirror.example.com/k8s/, example.com/ext "),
                Optional::empty);
        assertThat(config.imagePolicy().allowedRepositories())
                .containsExactlyInAnyOrder("mirror.example.com/k8s/", "example.com/ext");
    }

    @Test
    void environmentVariablesAreRead() {
        OperatorConfig config = OperatorConfig.fromEnvironment(
                Map.of(
                        "SCHEDULEROPS_WORKLOAD_NAMESPACE", "schedulers",
                        "SCHEDULEROPS_PROFILE_SELECTOR", "shard=a",
                        "SCHEDULEROPS_LEADER_ELECTION", "false",
                        "SCHEDULEROPS_LEADER_ELECTION_NAMESPACE", "ops",
                        "SCHEDULEROPS_EXTENDER_IMAGE", "example.com/ext:1",
                        "SCHEDULEROPS_SCHEDULER_IMAGE_REPOSITORY", "mirror.example.com/kube-scheduler",
                        "SCHEDULEROPS_LOG_FORMAT", "json",
                        "SCHEDULEROPS_HTTP_PORT", "0",
                        "SCHEDULEROPS_HTTP_BIND_ADDRESS", "127.0.0.1",
                        "KUBERNETES_SERVICE_HOST", "10.0.0.1"),
                () -> Optional.of("schedulerops-system"));

        assertThat(config.workloadNamespace()).isEqualTo("schedulers");
        assertThat(config.profileSelector()).isEqualTo("shard=a");
        assertThat(config.leaderElection()).isFalse();
        assertThat(config.leaderElectionNamespace()).isEqualTo("ops");
        assertThat(config.extenderImage()).isEqualTo("example.com/ext:1");
        assertThat(config.schedulerImageRepository()).isEqualTo("mirror.example.com/kube-scheduler");
        assertThat(config.logFormat()).isEqualTo("json");
        assertThat(config.httpPort()).isZero();
        assertThat(config.httpBindAddress()).isEqualTo("127.0.0.1");
    }

    @Test
    void badValuesAreRefusedWithTheVariableName() {
        assertThatThrownBy(() -> OperatorConfig.fromEnvironment(
                        Map.of("SCHEDULEROPS_LEADER_ELECTION", "maybe"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_LEADER_ELECTION");
        assertThatThrownBy(
                        () -> OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_HTTP_PORT", "http"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_HTTP_PORT");
        assertThatThrownBy(
                        () -> OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_LOG_FORMAT", "xml"), Optional::empty))
                .hasMessageContaining("SCHEDULEROPS_LOG_FORMAT");
    }

    @Test
    void theLogFormatMustBeExactlyWhatLogbackIncludes() {
        // logback.xml includes logback-${SCHEDULEROPS_LOG_FORMAT}.xml unchanged: "JSON" would mean no logs at all.
        assertThatThrownBy(() ->
                        OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_LOG_FORMAT", "JSON"), Optional::empty))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SCHEDULEROPS_LOG_FORMAT")
                .hasMessageContaining("json or text")
                .hasMessageContaining("'JSON'");
        assertThatThrownBy(() ->
                        OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_LOG_FORMAT", " json"), Optional::empty))
                .hasMessageContaining("json or text");
        assertThat(OperatorConfig.fromEnvironment(Map.of("SCHEDULEROPS_LOG_FORMAT", "text"), Optional::empty)
                        .logFormat())
                .isEqualTo("text");
    }

    @Test
    void serverVersionDropsTheVAndBuildMetadata() {
        assertThat(OperatorRuntime.normalizeVersion("v1.33.13")).isEqualTo("1.33.13");
        assertThat(OperatorRuntime.normalizeVersion("v1.31.4+k3s1")).isEqualTo("1.31.4");
    }
}
