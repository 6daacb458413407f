package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class RepeatedStringsTest {
    private final KubernetesSerialization serialization = RepeatedStrings.serialization();

    private static String pod(String name) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"schedulerops-system",
                 "labels":{"app.kubernetes.io/managed-by":"schedulerops","tier":"extender"}},
                 "spec":{"containers":[{"name":"extender","image":"registry.example.com/extender:1.0",
                  "args":["--port","8443"],"imagePullPolicy":"IfNotPresent"}]},
                 "status":{"phase":"Running","podIP":"10.0.0.%s"}}
                """
                .formatted(name, name.length());
    }

    @Test
    void aValueTwoObjectsRepeatIsOneString() {
        Pod first = serialization.unmarshal(pod("a"), Pod.class);
        Pod second = serialization.unmarshal(pod("bb"), Pod.class);

        // A field, a map value, a list item, a default the API server writes.
        assertThat(second.getSpec().getContainers().get(0).getImage())
                .isEqualTo("registry.example.com/extender:1.0")
                .isSameAs(first.getSpec().getContainers().get(0).getImage());
        assertThat(second.getMetadata().getLabels().get("tier"))
                .isSameAs(first.getMetadata().getLabels().get("tier"));
        assertThat(second.getSpec().getContainers().get(0).getArgs().get(1))
                .isSameAs(first.getSpec().getContainers().get(0).getArgs().get(1));
        assertThat(second.getSpec().getContainers().get(0).getImagePullPolicy())
                .isSameAs(first.getSpec().getContainers().get(0).getImagePullPolicy());
        assertThat(second.getMetadata().getNamespace())
                .isSameAs(first.getMetadata().getNamespace());
        // What differs stays what it was.
        assertThat(first.getMetadata().getName()).isEqualTo("a");
        assertThat(second.getMetadata().getName()).isEqualTo("bb");
        assertThat(second.getStatus().getPodIP()).isEqualTo("10.0.0.2");
    }

    @Test
    void longValuesAreLeftAlone() {
        String longValue = "x".repeat(RepeatedStrings.MAX_LENGTH + 1);
        String json = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\""
                + longValue + "\"}}";

        ConfigMap first = serialization.unmarshal(json, ConfigMap.class);
        ConfigMap second = serialization.unmarshal(json, ConfigMap.class);

        assertThat(second.getData().get("k"))
                .isEqualTo(longValue)
                .isNotSameAs(first.getData().get("k"));
        assertThat(second.getMetadata().getName()).isSameAs(first.getMetadata().getName());
    }

    @Test
    void everyValueDecodesAsFabric8AloneDecodesIt() {
        // Strings, numbers where strings are expected, nulls in maps, unknown fields (additionalProperties),
        // IntOrString,
        // Quantity, a custom resource's untyped parts.
        String json =
                """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","annotations":{"a":"1","n":null},
                  "labels":{"tier":"extender"},"futureField":{"nested":["x",2,null,"x"]}},
                 "spec":{"replicas":2,"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
                  "template":{"metadata":{"labels":{"tier":"extender"}},
                   "spec":{"containers":[{"name":"c","image":"i","args":["--port",8443,"x"],
                    "env":[{"name":"N","value":"v"}],
                    "resources":{"requests":{"cpu":"100m","memory":"64Mi"}},
                    "ports":[{"containerPort":8443,"name":"https"}]}]}}}}
                """;
        KubernetesSerialization plain = new KubernetesSerialization();

        Deployment shared = serialization.unmarshal(json, Deployment.class);
        Deployment alone = plain.unmarshal(json, Deployment.class);

        assertThat(shared).isEqualTo(alone);
        assertThat(serialization.asJson(shared)).isEqualTo(plain.asJson(alone));
        assertThat(shared.getMetadata().getAdditionalProperties()).containsKey("futureField");
        assertThat(shared.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getArgs())
                .containsExactly("--port", "8443", "x");
        assertThat(shared.getMetadata().getAnnotations()).containsEntry("n", null);
        assertThat(shared.getSpec()
                        .getStrategy()
                        .getRollingUpdate()
                        .getMaxUnavailable()
                        .getIntVal())
                .isEqualTo(1);
        assertThat(shared.getSpec()
                        .getStrategy()
                        .getRollingUpdate()
                        .getMaxSurge()
                        .getStrVal())
                .isEqualTo("25%");
        assertThat(serialization.unmarshal(json, java.util.Map.class))
                .isEqualTo(plain.unmarshal(json, java.util.Map.class));
    }

    @Test
    void aSlotKeepsTheLastValueSeen() {
        RepeatedStrings strings = new RepeatedStrings();
        String one = new String("value");
        String two = new String("value");

        assertThat(strings.share(one)).isSameAs(one);
        assertThat(strings.share(two)).isSameAs(one);
        assertThat(strings.share(null)).isNull();

        // Another value of the same slot takes it: "value" is a copy of its own again after that.
        String other = sameSlotAs("value");
        assertThat(strings.share(other)).isSameAs(other);
        String three = new String("value");
        assertThat(strings.share(three)).isSameAs(three);
    }

    /** A different string whose slot is that of {@code value}. */
    private static String sameSlotAs(String value) {
        int slot = RepeatedStrings.slot(value);
        for (int i = 0; ; i++) {
            String candidate = "v" + i;
            if (RepeatedStrings.slot(candidate) == slot && !candidate.equals(value)) {
                return candidate;
            }
        }
    }
}
