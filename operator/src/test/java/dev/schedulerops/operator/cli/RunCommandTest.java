package dev.schedulerops.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.runtime.ApiRateLimiter;
import dev.schedulerops.operator.runtime.OperatorConfig;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class RunCommandTest {

    @Test
    void theOperatorsClientSharesRepeatedStrings() {
        String json = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
                + "\"namespace\":\"schedulerops-system\"}}";
        // Built without contacting any API server.
        try (KubernetesClient client = RunCommand.client(new ApiRateLimiter(10, 10))) {
            ConfigMap first = client.getKubernetesSerialization().unmarshal(json, ConfigMap.class);
            ConfigMap second = client.getKubernetesSerialization().unmarshal(json, ConfigMap.class);

            assertThat(second.getMetadata().getNamespace())
                    .isSameAs(first.getMetadata().getNamespace());
        }
    }

    @Test
    void flagsOverrideTheEnvironmentVariableOfTheSameSetting() {
        RunCommand command = new RunCommand();
        new CommandLine(command)
                .parseArgs(
                        "--no-leader-election",
                        "--workload-namespace=ops",
                        "--profile-selector=shard=a",
                        "--protected-namespaces=kube-system,payments",
                        "--http-port=0",
                        "--http-bind-address=127.0.0.1",
                        "--pod-events",
                        "--pod-events-grace-seconds=7");
        Map<String, String> env = Map.of(
                "SCHEDULEROPS_LEADER_ELECTION", "true",
                "SCHEDULEROPS_WORKLOAD_NAMESPACE", "c",
                "SCHEDULEROPS_EXTENDER_IMAGE", "example.com/extender:1");

        // The merge run() uses, with a given environment instead of System.getenv().
        OperatorConfig config = OperatorConfig.fromEnvironment(env, command.flagOverrides(), Optional::empty);

        assertThat(config.leaderElection()).isFalse();
        assertThat(config.workloadNamespace()).isEqualTo("ops");
        assertThat(config.profileSelector()).isEqualTo("shard=a");
        assertThat(config.protectedNamespaces()).containsExactlyInAnyOrder("kube-system", "payments");
        assertThat(config.httpPort()).isZero();
        assertThat(config.httpBindAddress()).isEqualTo("127.0.0.1");
        assertThat(config.podEvents()).isTrue();
        assertThat(config.podEventsGraceSeconds()).isEqualTo(7);
        // Settings without a flag keep their environment value.
        assertThat(config.extenderImage()).isEqualTo("example.com/extender:1");
    }

    @Test
    void withoutFlagsNothingIsOverridden() {
        RunCommand command = new RunCommand();
        new CommandLine(command).parseArgs();
        assertThat(command.flagOverrides()).isEmpty();
    }
}
