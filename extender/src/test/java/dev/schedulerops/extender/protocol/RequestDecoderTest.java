package dev.schedulerops.extender.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestDecoderTest {
    private final RequestDecoder decoder = new RequestDecoder("priority.lixueduan.com");

    private ExtenderArgs args(String json) throws BadRequestException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return decoder.decodeArgs(body);
    }

    @Test
    void readsNameLabelAndExactByteRangeOfEachNode() throws Exception {
        String node1 = "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"priority.lixueduan.com\":\"10\",\"x\":\"y\"}},"
                + "\"status\":{\"images\":[{\"names\":[\"a\"]}]}}";
        String node2 = "{ \"metadata\" : { \"labels\" : null, \"name\" : \"n2\" } }";
        String json = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u\"}},"
                + "\"Nodes\":{\"metadata\":{},\"items\":[" + node1 + " ,\n " + node2 + "]},\"NodeNames\":null}";

        ExtenderArgs args = args(json);

        assertThat(args.namesOnly()).isFalse();
        assertThat(args.pod()).isEqualTo(new PodRef("ns", "p", "u"));
        assertThat(args.nodes())
                .extracting(NodeItem::name, NodeItem::labelValue)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("n1", "10"),
                        org.assertj.core.groups.Tuple.tuple("n2", null));
        NodeItem first = args.nodes().get(0);
        NodeItem second = args.nodes().get(1);
        assertThat(json.substring(first.start(), first.end())).isEqualTo(node1);
        assertThat(json.substring(second.start(), second.end())).isEqualTo(node2);
    }

    @Test
    void byteOffsetsAreBytesNotCharacters() throws Exception {
        String node = "{\"metadata\":{\"name\":\"nœud-ü\",\"annotations\":{\"d\":\"日本\"}}}";
        String json = "{\"Pod\":{\"metadata\":{\"name\":\"é\"}},\"Nodes\":{\"items\":[" + node + "]}}";
        byte[] body = json.getBytes(StandardCharsets.UTF_8);

        NodeItem item = decoder.decodeArgs(body).nodes().get(0);

        assertThat(new String(body, item.start(), item.end() - item.start(), StandardCharsets.UTF_8))
                .isEqualTo(node);
        assertThat(item.name()).isEqualTo("nœud-ü");
    }

    @Test
    void matchesTopLevelAndObjectKeysCaseInsensitivelyLikeGo() throws Exception {
        ExtenderArgs args = args("{\"pod\":{\"METADATA\":{\"Name\":\"p\"}},\"NODES\":{\"Items\":"
                + "[{\"Metadata\":{\"NAME\":\"n1\",\"Labels\":{\"priority.lixueduan.com\":\"3\"}}}]}}");

        assertThat(args.pod().name()).isEqualTo("p");
        assertThat(args.nodes())
                .singleElement()
                .extracting(NodeItem::labelValue)
                .isEqualTo("3");
    }

    @Test
    void labelKeysMatchExactlyBecauseTheyAreMapKeys() throws Exception {
        ExtenderArgs args = args("{\"Pod\":{},\"Nodes\":{\"items\":"
                + "[{\"metadata\":{\"name\":\"n1\",\"labels\":{\"Priority.Lixueduan.com\":\"3\"}}}]}}");

        assertThat(args.nodes().get(0).labelValue()).isNull();
    }

    @Test
    void readsNodeNamesInNamesOnlyMode() throws Exception {
        ExtenderArgs args = args("{\"Pod\":{},\"Nodes\":null,\"NodeNames\":[\"a\",\"b\\u0041\"]}");

        assertThat(args.namesOnly()).isTrue();
        assertThat(args.nodeCount()).isEqualTo(2);
        assertThat(args.nodeName(0)).isEqualTo("a");
        assertThat(args.nodeName(1)).isEqualTo("bA");
    }

    @Test
    void namesOnlyArrayIsScannedToItsOwnClosingBracketCountedInBytes() throws Exception {
        // Multi-byte characters before the array would shift a character offset; a "]" after it ends nothing.
        ExtenderArgs args = args(
                "{\"Pod\":{\"metadata\":{\"name\":\"日本-ü\"}},\"NodeNames\":[ \"a\" ,\"ü\"\n]," + "\"X\":[\"]\",1]}");

        assertThat(args.nodeCount()).isEqualTo(2);
        assertThat(args.nodeName(0)).isEqualTo("a");
        assertThat(args.nodeName(1)).isEqualTo("ü");
        assertThat(args("{\"Pod\":{},\"NodeNames\":[]}").nodeCount()).isZero();
    }

    @Test
    void nullItemsIsAnEmptyList() throws Exception {
        assertThat(args("{\"Pod\":{},\"Nodes\":{\"metadata\":{},\"items\":null},\"NodeNames\":null}")
                        .nodes())
                .isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "empty body||request body is empty",
                "not an object|[1,2]|must be a JSON object",
                "truncated|{\"Pod\":{},\"NodeNames\":[\"a\"|malformed JSON",
                "garbage|{Pod:1}|malformed JSON",
                "trailing data|{\"Pod\":{},\"NodeNames\":[]} {}|unexpected data",
                "missing Pod|{\"NodeNames\":[\"a\"]}|\"Pod\" is required",
                "null Pod|{\"Pod\":null,\"NodeNames\":[\"a\"]}|\"Pod\" is required",
                "Pod not an object|{\"Pod\":\"x\",\"NodeNames\":[\"a\"]}|\"Pod\" must be an object",
                "no nodes at all|{\"Pod\":{}}|one of \"Nodes\" and \"NodeNames\" is required",
                "both modes|{\"Pod\":{},\"Nodes\":{\"items\":[]},\"NodeNames\":[]}|set only one",
                "NodeNames not a list|{\"Pod\":{},\"NodeNames\":\"a\"}|\"NodeNames\" must be an array",
                "NodeNames with a number|{\"Pod\":{},\"NodeNames\":[1]}|\"NodeNames\" must be an array",
                "Nodes not an object|{\"Pod\":{},\"Nodes\":[]}|\"Nodes\" must be an object",
                "items not a list|{\"Pod\":{},\"Nodes\":{\"items\":{}}}|\"Nodes.items\" must be an array",
                "item not an object|{\"Pod\":{},\"Nodes\":{\"items\":[1]}}|\"Nodes.items[0]\" must be an object",
                "node without name|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{}}]}}|\"Nodes.items[0].metadata.name\" is required",
                "name not a string|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":5}}]}}|must be a string",
                "label value a number|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"n\",\"labels\":{\"a\":1}}}]}}|must be strings",
            })
    void rejectsBadArgs(String description, String json, String message) {
        assertThatThrownBy(() -> args(json == null ? "" : json))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining(message);
    }

    /**
     * Found by DecoderFuzzTest: Jackson guesses UTF-32 from NUL bytes and its UTF-32 reader threw an IOException
     * that became a 500; UTF-16 would have been decoded, but the decoders' byte offsets and the replies are UTF-8.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "UTF-32BE-like,0000007b00",
        "UTF-32LE-like,7b00000022",
        "UTF-16BE BOM,feff007b007d",
        "UTF-16LE BOM,fffe7b007d00",
        "UTF-16LE,7b007d00",
        "UTF-32BE whole request,0000007b0000007d"
    })
    void bodiesNotInUtf8AreRefusedForEveryDecoder(String description, String hex) {
        byte[] body = java.util.HexFormat.of().parseHex(hex);
        assertThatThrownBy(() -> decoder.decodeArgs(body))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("UTF-8");
        assertThatThrownBy(() -> decoder.decodeBinding(body))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("UTF-8");
        assertThatThrownBy(() -> decoder.decodePreemption(body))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("UTF-8");
    }

    /** What extender/README.md "Error answers" promises for deep nesting and huge numbers: Jackson's limits, a 400. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"nesting,1001,[,]", "number,1001,9,", "nesting in Pod,1001,{\"a\":,}"})
    void jacksonsLimitsAreBadRequests(String description, int n, String open, String close) {
        String value = open.repeat(n) + (close == null ? "" : (open.startsWith("{") ? "1" : "") + close.repeat(n));
        String json = "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"},\"x\":" + value + "}]}}";
        assertThatThrownBy(() -> args(json))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("malformed JSON")
                .hasMessageContaining("exceeds the maximum allowed");
    }

    @Test
    void aUtf8ByteOrderMarkIsStillRead() throws Exception {
        byte[] json = "{\"Pod\":{},\"NodeNames\":[\"a\"]}".getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[json.length + 3];
        body[0] = (byte) 0xEF;
        body[1] = (byte) 0xBB;
        body[2] = (byte) 0xBF;
        System.arraycopy(json, 0, body, 3, json.length);
        assertThat(decoder.decodeArgs(body).nodeName(0)).isEqualTo("a");
    }

    /** The exact messages that name where in the request the problem is. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "args|{\"Pod\":{\"metadata\":1},\"NodeNames\":[]}|\"Pod.metadata\" must be an object",
                "args|{\"Pod\":{\"metadata\":{\"uid\":1}},\"NodeNames\":[]}|\"Pod.metadata.uid\" must be a string",
                "args|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"}},1]}}|\"Nodes.items[1]\" must be an object",
                "args|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":1}]}}|\"Nodes.items[0].metadata\" must be an object",
                "args|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":5}}]}}|\"Nodes.items[1].metadata.name\" must be a string",
                "args|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"labels\":1}}]}}|\"Nodes.items[0].metadata.labels\" must be an object",
                "args|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"labels\":{\"a\":1}}}]}}|label values in \"Nodes.items[0].metadata.labels\" must be strings",
                "args|{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"}},{}]}}|field \"Nodes.items[1].metadata.name\" is required",
                "preempt|{\"Pod\":{},\"NodeNameToVictims\":{\"n1\":1}}|\"NodeNameToVictims[\"n1\"]\" must be an object",
                "preempt|{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":\"x\"}}}|\"NodeNameToMetaVictims[\"n1\"].NumPDBViolations\" must be an integer",
                "preempt|{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":1}}}|\"NodeNameToMetaVictims[\"n1\"].Pods\" must be an array",
                "preempt|{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[null,{\"UID\":\"u\"},1]}}}|\"NodeNameToMetaVictims[\"n1\"].Pods[1]\" must be an object",
                "preempt|{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":1}]}}}|\"NodeNameToMetaVictims[\"n1\"].Pods[0].UID\" must be a string",
                "preempt|{\"Pod\":{},\"NodeNameToVictims\":{\"n1\":{\"Pods\":[{\"metadata\":1}]}}}|\"NodeNameToVictims[\"n1\"].Pods[0].metadata\" must be an object",
                "preempt|{\"Pod\":{},\"NodeNameToVictims\":{\"n1\":{\"Pods\":[{\"metadata\":{\"uid\":1}}]}}}|\"NodeNameToVictims[\"n1\"].Pods[0].metadata.uid\" must be a string",
            })
    void errorMessagesNameThePathOfTheOffendingValue(String verb, String json, String message) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> {
                    if (verb.equals("args")) {
                        decoder.decodeArgs(body);
                    } else {
                        decoder.decodePreemption(body);
                    }
                })
                .isInstanceOf(BadRequestException.class)
                .hasMessage(message);
    }

    @Test
    void decodesBindingArgsAndRequiresNameNamespaceAndNode() throws Exception {
        byte[] ok = "{\"podname\":\"p\",\"PodNamespace\":\"ns\",\"PodUID\":\"u\",\"Node\":\"n\"}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(decoder.decodeBinding(ok)).isEqualTo(new BindingArgs("p", "ns", "u", "n"));

        byte[] missing = "{\"PodName\":\"p\",\"PodNamespace\":\"ns\"}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> decoder.decodeBinding(missing)).hasMessageContaining("\"Node\" is required");
        byte[] wrongType = "{\"PodName\":1}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> decoder.decodeBinding(wrongType)).hasMessageContaining("\"PodName\" must be a string");
    }

    @Test
    void decodesVictimUidsFromFullPodsAndFromMetaPods() throws Exception {
        byte[] full = ("{\"Pod\":{},\"NodeNameToVictims\":{\"n1\":{\"Pods\":[{\"metadata\":{\"uid\":\"u1\"},"
                        + "\"spec\":{\"containers\":[]}}],\"NumPDBViolations\":2}},\"NodeNameToMetaVictims\":null}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] meta =
                "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"u1\"}],\"NumPDBViolations\":2}}}"
                        .getBytes(StandardCharsets.UTF_8);

        PreemptionArgs.MetaVictims expected = new PreemptionArgs.MetaVictims(List.of("u1"), 2);
        assertThat(decoder.decodePreemption(full).candidates()).containsEntry("n1", expected);
        assertThat(decoder.decodePreemption(meta).candidates()).containsEntry("n1", expected);

        byte[] badCount = "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":\"x\"}}}"
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> decoder.decodePreemption(badCount)).hasMessageContaining("must be an integer");
    }
}
