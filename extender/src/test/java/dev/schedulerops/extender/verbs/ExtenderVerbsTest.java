package dev.schedulerops.extender.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.verbs.ExtenderVerbs.Outcome;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ExtenderVerbsTest {
    private static final String KEY = "priority.lixueduan.com";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StaticNodeCache cache = new StaticNodeCache();
    private final ExtenderVerbs verbs = new ExtenderVerbs(KEY, cache, args -> BindResult.bound());

    private Outcome filter(String json, boolean onlyOne) throws Exception {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return verbs.answer(onlyOne ? Verb.FILTER_ONLY_ONE : Verb.FILTER, body);
    }

    private static JsonNode tree(Outcome outcome) throws Exception {
        return JSON.readTree(outcome.reply().toByteArray());
    }

    @Test
    void escapedNodeNamesAreCopiedAsWrittenAndReadBackAsTheSameName() throws Exception {
        String json = "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"n\\u0031\"}},"
                + "{\"metadata\":{\"name\":\"n\\\"2\",\"labels\":{\"" + KEY + "\":\"1\"}}}]}}";

        Outcome outcome = filter(json, false);

        assertThat(outcome.reply().toString()).contains("\"n\\u0031\":\"node(s) lack the label");
        JsonNode reply = tree(outcome);
        assertThat(reply.at("/FailedAndUnresolvableNodes").has("n1")).isTrue();
        assertThat(reply.at("/Nodes/items/0/metadata/name").asText()).isEqualTo("n\"2");
    }

    @Test
    void namesOnlyNamesWithEscapesAreLookedUpByWhatTheySpell() throws Exception {
        cache.put("bA", "5").put("c", null);

        Outcome outcome = filter("{\"Pod\":{},\"NodeNames\":[\"b\\u0041\",\"c\",\"\\u0063\"]}", false);

        JsonNode reply = tree(outcome);
        assertThat(reply.get("NodeNames").toString()).isEqualTo("[\"bA\"]");
        assertThat(reply.get("FailedAndUnresolvableNodes").size()).isEqualTo(1);
        assertThat(outcome.reply().toString()).contains("\"b\\u0041\"").contains("\"\\u0063\":");
    }

    /**
     * A lone surrogate escape is a valid JSON value but a strict reader (Jackson) refuses it in a key, and a rejected
     * node's name is a key of the reply: DecoderFuzzTest found a filter reply that was not JSON.
     */
    @Test
    void aNameWithALoneSurrogateIsAnsweredWithU_FFFDInItsPlaceInBothModes() throws Exception {
        cache.put("n1", "5");
        String namesOnly = "{\"Pod\":{},\"NodeNames\":[\"\\ud800n4\",\"n1\",\"a\\udc00\\u0031\"]}";
        String fullNodes = "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"\\ud800n4\"}},"
                + "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"" + KEY + "\":\"1\"}}}]}}";

        for (boolean onlyOne : new boolean[] {false, true}) {
            JsonNode names = tree(filter(namesOnly, onlyOne));
            assertThat(names.get("NodeNames").toString()).isEqualTo("[\"n1\"]");
            assertThat(names.get("FailedAndUnresolvableNodes").has("\ufffdn4")).isTrue();
            assertThat(names.get("FailedAndUnresolvableNodes").has("a\ufffd1")).isTrue();

            JsonNode full = tree(filter(fullNodes, onlyOne));
            assertThat(full.at("/Nodes/items/0/metadata/name").asText()).isEqualTo("n1");
            assertThat(full.get("FailedAndUnresolvableNodes").has("\ufffdn4")).isTrue();
        }
    }

    @Test
    void anEmptyLabelValueStillCarriesTheLabel() throws Exception {
        String json = "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\",\"labels\":{\"" + KEY
                + "\":\"\"}}}]}}";

        assertThat(tree(filter(json, false)).at("/Nodes/items").size()).isEqualTo(1);
    }

    @Test
    void filterOnlyOneWithASingleCandidateKeepsItAndCountsNodes() throws Exception {
        cache.put("a", "x").put("b", null);

        Outcome outcome = filter("{\"Pod\":{},\"NodeNames\":[\"a\",\"b\"]}", true);

        assertThat(tree(outcome).get("NodeNames").toString()).isEqualTo("[\"a\"]");
        assertThat(outcome.nodesIn()).isEqualTo(2);
        assertThat(outcome.nodesOut()).isEqualTo(1);
    }

    @Test
    void namesOnlyModeUsesTheCacheAtTheTimeOfTheRequest() throws Exception {
        String json = "{\"Pod\":{},\"NodeNames\":[\"a\"]}";
        cache.put("a", null);
        assertThat(tree(filter(json, false)).get("NodeNames").size()).isZero();

        cache.put("a", "3");

        assertThat(tree(filter(json, false)).get("NodeNames").toString()).isEqualTo("[\"a\"]");
    }

    @Test
    void namesOnlyPrioritizeScoresANodeTheCacheHasNotSeenZero() throws Exception {
        cache.put("a", "5").put("b", "10");
        byte[] body = "{\"Pod\":{},\"NodeNames\":[\"a\",\"unseen\",\"b\"]}".getBytes(StandardCharsets.UTF_8);

        Outcome outcome = verbs.answer(Verb.PRIORITIZE, body);

        assertThat(outcome.status()).isEqualTo(200);
        assertThat(outcome.reply().toString())
                .isEqualTo("[{\"Host\":\"a\",\"Score\":5},{\"Host\":\"unseen\",\"Score\":0},"
                        + "{\"Host\":\"b\",\"Score\":10}]");
    }
}
