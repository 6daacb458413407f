package dev.schedulerops.extender.nodecache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LabelledNodesTest {
    private static final String KEY = "priority.lixueduan.com";

    private static LabelledNodes.Page parse(String json) throws IOException {
        return LabelledNodes.parsePage(json.getBytes(StandardCharsets.UTF_8), KEY);
    }

    @Test
    void keepsEachItemsNameVersionAndLabelValueAndThePagesVersionAndContinueToken() throws IOException {
        LabelledNodes.Page page = parse(
                """
                {"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1",
                 "metadata":{"resourceVersion":"4711","continue":"next-page","remainingItemCount":3},
                 "items":[
                  {"kind":"PartialObjectMetadata","metadata":{"name":"node-1","resourceVersion":"4700",
                   "labels":{"kubernetes.io/hostname":"node-1","%s":"10"},
                   "managedFields":[{"manager":"kubectl","fieldsV1":{"f:metadata":{"f:labels":{}}}}],
                   "annotations":{"a":"b"}}},
                  {"metadata":{"labels":{"%s":""},"resourceVersion":"12","name":"node-2"},"status":{"x":[1,2]}}
                 ]}
                """
                        .formatted(KEY, KEY));

        assertThat(page.version()).isEqualTo(4711);
        assertThat(page.next()).isEqualTo("next-page");
        assertThat(page.nodes())
                .containsOnlyKeys("node-1", "node-2")
                .containsEntry("node-1", new LabelledNodes.Node("10", 4700))
                .containsEntry("node-2", new LabelledNodes.Node("", 12));
    }

    @Test
    void theLastPageHasNoTokenAndAnItemWithoutTheLabelIsNotListed() throws IOException {
        LabelledNodes.Page page = parse(
                """
                {"metadata":{"resourceVersion":"9","continue":""},"items":[
                  {"metadata":{"name":"bare","resourceVersion":"3","labels":{"other":"x"}}},
                  {"metadata":{"name":"none","resourceVersion":"4"}}]}
                """);

        assertThat(page.next()).isNull();
        assertThat(page.nodes()).isEmpty();
        assertThat(page.version()).isEqualTo(9);
    }

    @Test
    void aBodyThatIsNotAListIsAnError() {
        assertThatThrownBy(() -> parse("[]")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> parse("{\"items\":[")).isInstanceOf(IOException.class);
    }
}
