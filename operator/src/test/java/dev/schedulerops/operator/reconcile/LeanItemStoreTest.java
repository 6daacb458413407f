package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeanItemStoreTest {
    @Test
    void keepsObjectsWithoutManagedFields() {
        LeanItemStore<ConfigMap> store = new LeanItemStore<>();
        ConfigMap config = new ConfigMapBuilder()
                .withNewMetadata()
                .withName("c")
                .withNamespace("ns")
                .withLabels(Map.of("a", "b"))
                .withManagedFields(new ManagedFieldsEntryBuilder()
                        .withManager("schedulerops")
                        .withOperation("Apply")
                        .build())
                .endMetadata()
                .withData(Map.of("k", "v"))
                .build();

        store.put(store.getKey(config), config);

        ConfigMap stored = store.get("ns/c");
        assertThat(stored.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(stored.getMetadata().getLabels()).containsEntry("a", "b");
        assertThat(stored.getData()).containsEntry("k", "v");
    }

    @Test
    void keepsNodesWithTheirLabelsButNotTheirStatus() {
        LeanItemStore<Node> store = new LeanItemStore<>();
        Node node = new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .withLabels(Map.of("pool", "7"))
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(true)
                .endSpec()
                .withNewStatus()
                .addNewImage()
                .withNames("registry.example.com/big:1")
                .endImage()
                .endStatus()
                .build();

        store.put(store.getKey(node), node);

        Node stored = store.get("n1");
        assertThat(stored.getStatus()).isNull();
        assertThat(stored.getMetadata().getLabels()).containsEntry("pool", "7");
        assertThat(stored.getSpec().getUnschedulable()).isTrue();
    }

    @Test
    void keepsOfAPodOnlyWhatPodTroubleReads() {
        LeanItemStore<io.fabric8.kubernetes.api.model.Pod> store = new LeanItemStore<>();
        var pod = new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .withName("p-extender-1")
                .withNamespace("ns")
                .withLabels(Map.of("app", "x"))
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-1")
                .addNewVolume()
                .withName("tls")
                .withNewSecret()
                .withSecretName("p-extender-tls")
                .endSecret()
                .endVolume()
                .addNewContainer()
                .withName("extender")
                .withImage("ghcr.io/schedulerops/schedulerops-extender:0.1.0")
                .addNewEnv()
                .withName("JAVA_TOOL_OPTIONS")
                .withValue("-XX:MaxRAMPercentage=75")
                .endEnv()
                .withNewResources()
                .addToLimits("memory", new io.fabric8.kubernetes.api.model.Quantity("512Mi"))
                .endResources()
                .endContainer()
                .addNewInitContainer()
                .withName("release-lease")
                .withRestartPolicy("Always")
                .withArgs("release-lease")
                .endInitContainer()
                .endSpec()
                .withNewStatus()
                .addNewContainerStatus()
                .withName("extender")
                .withRestartCount(3)
                .endContainerStatus()
                .endStatus()
                .build();

        store.put(store.getKey(pod), pod);

        var stored = store.get("ns/p-extender-1");
        assertThat(stored.getMetadata().getLabels()).containsEntry("app", "x");
        assertThat(stored.getSpec().getNodeName()).isEqualTo("node-1");
        assertThat(stored.getSpec().getVolumes()).isEmpty();
        assertThat(stored.getSpec().getContainers()).singleElement().satisfies(c -> {
            assertThat(c.getName()).isEqualTo("extender");
            assertThat(c.getResources().getLimits()).containsKey("memory");
            assertThat(c.getEnv()).isEmpty();
            assertThat(c.getImage()).isEqualTo("ghcr.io/schedulerops/schedulerops-extender:0.1.0");
        });
        assertThat(stored.getSpec().getInitContainers()).singleElement().satisfies(c -> {
            assertThat(c.getRestartPolicy())
                    .as("a native sidecar's, for PodTrouble")
                    .isEqualTo("Always");
            assertThat(c.getArgs()).isEmpty();
        });
        assertThat(stored.getStatus().getContainerStatuses().get(0).getRestartCount())
                .isEqualTo(3);
    }

    @Test
    void sharesOneEmptyMapAndListForEveryEmptyOneAndKeepsTheObjectEqual() {
        String json =
                """
                {"apiVersion": "apps/v1", "kind": "Deployment",
                 "metadata": {"name": "d", "namespace": "ns", "labels": {"app": "x"}},
                 "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "x"}},
                  "template": {"metadata": {"labels": {"app": "x"}},
                   "spec": {"containers": [{"name": "c", "image": "i:1",
                     "resources": {"limits": {"memory": "512Mi"}},
                     "readinessProbe": {"httpGet": {"path": "/readyz", "port": 8080}},
                     "futureField": {"kept": true}}]}}}}
                """;
        Deployment original = Serialization.unmarshal(json, Deployment.class);
        original.getMetadata().setManagedFields(null);
        Deployment cached = Serialization.unmarshal(json, Deployment.class);
        LeanItemStore<Deployment> store = new LeanItemStore<>();

        store.put(store.getKey(cached), cached);

        Deployment stored = store.get("ns/d");
        assertThat(stored).isEqualTo(original);
        assertThat(Serialization.asJson(stored)).isEqualTo(Serialization.asJson(original));
        Container container =
                stored.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(container.getAdditionalProperties()).containsEntry("futureField", Map.of("kept", true));
        Map<String, Object> shared = stored.getAdditionalProperties();
        assertThat(shared).isEmpty();
        assertThat(stored.getMetadata().getAdditionalProperties()).isSameAs(shared);
        assertThat(container.getReadinessProbe().getHttpGet().getAdditionalProperties())
                .isSameAs(shared);
        assertThat(container.getResources().getLimits().get("memory").getAdditionalProperties())
                .isSameAs(shared);
        assertThat(stored.getMetadata().getAnnotations()).isSameAs(Collections.emptyMap());
        assertThat(stored.getMetadata().getAnnotations().get(null)).isNull();
        assertThat(container.getEnv()).isSameAs(Collections.emptyList());
        assertThat(container.getEnv().contains(null)).isFalse();
        assertThat(stored.getMetadata().getLabels()).isEqualTo(Map.of("app", "x"));
        assertThatThrownBy(() -> stored.getSpec().setAdditionalProperty("x", 1))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> container.getEnv().add(null)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aSecondPassReplacesNothing() {
        Deployment deployment = new DeploymentBuilder()
                .withNewMetadata()
                .withName("d")
                .endMetadata()
                .withNewSpec()
                .withNewTemplate()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();

        assertThat(SharedEmptyCollections.share(deployment)).isPositive();
        assertThat(SharedEmptyCollections.share(deployment)).isZero();
    }
}
