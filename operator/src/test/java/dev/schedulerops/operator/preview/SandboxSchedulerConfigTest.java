package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.render.SchedulerConfigRenderer;
import dev.schedulerops.operator.render.Yaml;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sandbox changes how the configuration connects, never what it decides. */
class SandboxSchedulerConfigTest {
    @Test
    void onlyTheConnectionsChange() throws Exception {
        String rendered = SchedulerConfigRenderer.render(
                ProfileYaml.readOne(
                        """
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata: {name: lp}
                spec:
                  labelKey: priority.lixueduan.com
                  verbs: [Filter, Prioritize, Bind]
                  weight: 20
                  plugins:
                    score:
                      enabled: [{name: NodeResourcesFit, weight: 3}]
                  pluginConfig:
                    - name: NodeResourcesFit
                      args: {scoringStrategy: {type: MostAllocated}}
                  extender: {httpTimeout: 2s, ignorable: true}
                  scheduler: {percentageOfNodesToScore: 70}
                """));
        JsonNode before = Yaml.MAPPER.readTree(rendered);
        JsonNode after = Yaml.MAPPER.readTree(SandboxSchedulerConfig.adapt(
                rendered, "schedulerops-preview-proposal", "/sandbox/kubeconfig", "http://127.0.0.1:18090"));
        assertThat(after.at("/profiles/0/schedulerName").asText()).isEqualTo("schedulerops-preview-proposal");
        assertThat(after.at("/leaderElection/leaderElect").asBoolean()).isFalse();
        assertThat(after.at("/clientConnection/kubeconfig").asText()).isEqualTo("/sandbox/kubeconfig");
        JsonNode extender = after.at("/extenders/0");
        assertThat(extender.get("urlPrefix").asText()).isEqualTo("http://127.0.0.1:18090");
        assertThat(extender.get("enableHTTPS").asBoolean()).isFalse();
        assertThat(extender.has("tlsConfig")).isFalse();
        for (String same : List.of(
                "filterVerb", "prioritizeVerb", "bindVerb", "weight", "httpTimeout", "nodeCacheCapable", "ignorable")) {
            assertThat(extender.get(same)).as(same).isEqualTo(before.at("/extenders/0/" + same));
        }
        assertThat(after.at("/profiles/0/plugins")).isEqualTo(before.at("/profiles/0/plugins"));
        assertThat(after.at("/profiles/0/pluginConfig")).isEqualTo(before.at("/profiles/0/pluginConfig"));
        assertThat(after.get("percentageOfNodesToScore")).isEqualTo(before.get("percentageOfNodesToScore"));
    }

    @Test
    void aSecondExtenderIsNotRun() {
        String two = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                + "- schedulerName: x\nextenders:\n- urlPrefix: https://a\n- urlPrefix: https://b\n";
        assertThatThrownBy(() -> SandboxSchedulerConfig.adapt(two, "s", "/k", "http://127.0.0.1:1"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSandboxSetsItsOwnAddressesLoggingAndLeaderElection() {
        assertThat(SandboxSchedulerConfig.keptFlags(List.of(
                        "--config=/etc/kubernetes/scheduler/config.yaml",
                        "--v=4",
                        "--feature-gates=SchedulerQueueingHints=false",
                        "--leader-elect=true",
                        "--secure-port=10259",
                        "--kube-api-qps=100")))
                .containsExactly("--feature-gates=SchedulerQueueingHints=false", "--kube-api-qps=100");
    }
}
