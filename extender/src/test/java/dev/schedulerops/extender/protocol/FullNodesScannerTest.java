package dev.schedulerops.extender.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.schedulerops.extender.fuzz.HostileJson;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The full-node fast path must read every body it accepts exactly as the general decoder does (the same pod, node
 * names, label values and node and name offsets), accept no body the general decoder refuses, and leave every other
 * body to it. The properties compare the two on generated bodies; the examples pin which bodies take the fast path.
 */
class FullNodesScannerTest {
    private static final String KEY = "priority.lixueduan.com";
    private static final byte[] KEY_UTF8 = KEY.getBytes(StandardCharsets.UTF_8);
    private static final ArgsDecoder GENERAL = new ArgsDecoder(KEY);
    private static final String POD = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u-1\"},"
            + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}";

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String node(String name, String labels) {
        return "{\"metadata\":{\"name\":\"" + name + "\",\"uid\":\"1\",\"labels\":" + labels + ",\"annotations\":"
                + "{\"csi\":\"{\\\"ebs\\\":\\\"i-0\\\"}\"}},\"spec\":{\"podCIDR\":\"10.0.0.0/24\"},\"status\":"
                + "{\"capacity\":{\"cpu\":\"8\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
                + "\"images\":[{\"names\":[\"r/a@sha256:00ff\",\"r/a:v1\"],\"sizeBytes\":123456789}],"
                + "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":10250}},\"x\":[true,false,null,-0.5e-3,0,1E+2]}}";
    }

    private static String request(String... nodes) {
        return "{\"Pod\":" + POD + ",\"Nodes\":{\"metadata\":{},\"items\":[" + String.join(",", nodes)
                + "]},\"NodeNames\":null}";
    }

    /** Every array in one pass. */
    private static final FullNodesScanner.Halves ONE_PASS = new FullNodesScanner.Halves(Integer.MAX_VALUE, null);

    /** Every array of two nodes or more in two halves, the second on a thread of its own. */
    private static final FullNodesScanner.Halves TWO_HALVES =
            new FullNodesScanner.Halves(0, runnable -> new Thread(runnable, "test-second-half").start());

    /**
     * The fast path's arguments, or null. Read in one pass and in two halves: both must give the same, whether the
     * second half was begun on its thread or read by the caller, and whether the guess where it starts was right.
     */
    private static ExtenderArgs scan(byte[] body) {
        ExtenderArgs onePass = FullNodesScanner.scan(body, body.length, KEY_UTF8, ONE_PASS);
        ExtenderArgs halves = FullNodesScanner.scan(body, body.length, KEY_UTF8, TWO_HALVES);
        if (onePass == null) {
            assertThat(halves).as("read in two halves").isNull();
        } else {
            assertThat(halves).as("read in two halves").isNotNull();
            assertSameArgs(halves, onePass);
        }
        return onePass;
    }

    @Test
    void readsWhatKubeSchedulerSendsAsTheGeneralDecoderDoes() throws Exception {
        byte[] body = utf8(request(
                node("n1", "{\"a\":\"b\",\"" + KEY + "\":\"10\"}"),
                node("n2", "{\"a\":\"b\"}"),
                node("nö-3", "{\"" + KEY + "\":\"\"}"),
                node("n4", "{\"" + KEY + "\":null}"),
                node("n5", "null")));

        ExtenderArgs fast = scan(body);

        assertThat(fast).isNotNull();
        assertSameArgs(fast, GENERAL.decodeArgs(body));
        assertThat(fast.nodes())
                .extracting(NodeItem::name, NodeItem::labelValue)
                .containsExactly(
                        tuple("n1", "10"), tuple("n2", null), tuple("nö-3", ""), tuple("n4", ""), tuple("n5", null));
    }

    @Test
    void readsABodyInALongerArrayAsTheSameBodyAlone() throws Exception {
        byte[] body = utf8(request(node("n1", "{\"" + KEY + "\":\"7\"}"), node("n2", "{}")));
        byte[] longer = Arrays.copyOf(body, body.length + 100);
        Arrays.fill(longer, body.length, longer.length, (byte) 'x');

        ExtenderArgs fast = FullNodesScanner.scan(longer, body.length, KEY_UTF8);

        assertThat(fast).isNotNull();
        assertThat(fast.body()).isSameAs(longer);
        assertThat(fast.nodes()).isEqualTo(GENERAL.decodeArgs(body).nodes());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                " \n{ \"pod\" :%s ,\t\"NODES\":{ \"items\" : [ %s ] } , \"nodeNames\" : null }\n ",
                "{\"Nodes\":{\"kind\":\"NodeList\",\"Items\":[%2$s]},\"Pod\":%1$s}",
                "{\"Pod\":%s,\"Nodes\":{\"items\":[%s]},\"Extra\":[1,{\"a\":[]}]}",
            })
    void takesAnyOrderCaseAndWhitespace(String template) throws Exception {
        byte[] body = utf8(template.formatted(POD, node("n1", "{\"" + KEY + "\":\"3\"}")));

        ExtenderArgs fast = scan(body);

        assertThat(fast).isNotNull();
        assertSameArgs(fast, GENERAL.decodeArgs(body));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"metadata\":{\"name\":\"a\\\"b\"}}", // an escape in a name
                "{\"metadata\":{\"name\":\"\"}}", // an empty name
                "{\"metadata\":{\"uid\":\"1\"}}", // no name
                "{\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}",
                "{\"metadata\":{\"name\":\"a\"},\"metadata\":{\"name\":\"b\"}}",
                "{\"metadata\":null,\"x\":1}",
                "{\"metadata\":{\"name\":\"a\",\"labels\":{\"priority.lixueduan.com\":\"1\\n\"}}}",
                "{\"metadata\":{\"name\":\"a\",\"labels\":{\"priority.lixueduan\\u002ecom\":\"1\"}}}",
                "{\"metadata\":{\"name\":\"a\",\"labels\":{\"k\":1}}}",
                "{\"metadata\":{\"name\":\"a\",\"labels\":[]}}",
                "{\"metadata\":{\"name\":\"a\",\"labels\":{},\"labels\":{}}}",
                "{\"metad\\u0061ta\":{\"name\":\"a\"}}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":01}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":1.}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":-}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":+1}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":NaN}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":tru}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":truex}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":[1,]}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":{\"a\":1,}}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":\"\\x\"}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":\"\\u12g4\"}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":\"a\tb\"}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":'a'}",
                "{\"metadata\":{\"name\":\"a\"},\"x\":[}",
                "{\"metadata\":{\"name\":\"a\"},\"\u017ftatus\":{}}",
                "{\"metadata\":{\"name\":\"a\"}},",
                "[]",
                "null",
            })
    void leavesOddNodesToTheGeneralDecoder(String node) {
        assertThat(scan(utf8(request(node)))).as(node).isNull();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"Pod\":%s,\"Nodes\":{\"items\":[]}}x",
                "{\"Pod\":%s,\"Nodes\":{\"items\":[]}}{}",
                "{\"Pod\":%s,\"Nodes\":{\"items\":[]},\"NodeNames\":[\"a\"]}",
                "{\"Pod\":%s,\"Nodes\":{\"items\":[]},\"NodeNames\":null,\"NodeNames\":null}",
                "{\"Pod\":%s,\"Nodes\":{\"items\":null}}",
                "{\"Pod\":%s,\"Nodes\":{}}",
                "{\"Pod\":%s,\"Nodes\":null}",
                "{\"Pod\":%s,\"Nodes\":{\"items\":[]},\"Nodes\":{\"items\":[]}}",
                "{\"Pod\":%s,\"Pod\":%1$s,\"Nodes\":{\"items\":[]}}",
                "{\"Pod\":null,\"Nodes\":{\"items\":[]}%.0s}",
                "{\"Nodes\":{\"items\":[]}%.0s}",
                "{\"P\\u006fd\":%s,\"Nodes\":{\"items\":[]}}",
                "\uFEFF{\"Pod\":%s,\"Nodes\":{\"items\":[]}}",
                "{\"Pod\":%s,\"Nodes\":{\"items\":[]}",
            })
    void leavesOddRequestsToTheGeneralDecoder(String template) {
        assertThat(scan(utf8(template.formatted(POD)))).as(template).isNull();
    }

    /** Bytes that are not UTF-8, or forms of it Jackson may take but this path does not: overlong, surrogates. */
    @Test
    void leavesBytesThatAreNotWellFormedUtf8ToTheGeneralDecoder() {
        for (byte[] bad : List.of(
                new byte[] {(byte) 0xC0, (byte) 0x80},
                new byte[] {(byte) 0xC1, (byte) 0xBF},
                new byte[] {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
                new byte[] {(byte) 0xFF},
                new byte[] {(byte) 0x80},
                new byte[] {(byte) 0xC3, 0x28},
                new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0x80},
                new byte[] {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0x80},
                new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80})) {
            String[] around = request(node("n1", "{\"a\":\"b?c\"}")).split("\\?", 2);
            byte[] body = concat(utf8(around[0]), bad, utf8(around[1]));

            assertThat(scan(body)).as(Arrays.toString(bad)).isNull();
        }
    }

    /**
     * A surrogate written as an escape, whole pair or not, in a key or a value: Jackson refuses a broken pair in a key
     * and takes one in a value, so the fast path takes none (the hostile-body property found the key).
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"a\":\"\\ud800\"}",
                "{\"a\":\"\\udc00\"}",
                "{\"a\":\"\\ud83d\\ude00\"}",
            })
    void leavesEscapedSurrogatesToTheGeneralDecoder(String labels) {
        assertThat(scan(utf8(request(node("n1", labels))))).as(labels).isNull();
    }

    @Test
    void leavesABrokenSurrogatePairInAnAnnotationsKeyToTheGeneralDecoder() {
        String node = node("n1", "{}").replace("\"csi\"", "\"node.alpha.k\\ud800ubernetes.io/ttl\"");

        assertThat(node).contains("k\\ud800u");
        assertThat(scan(utf8(request(node)))).isNull();
    }

    @Test
    void takesWellFormedMultiByteCharacters() throws Exception {
        byte[] body = utf8(request(node("n1", "{\"a\":\"é世😀\",\"" + KEY + "\":\"x\"}")));

        ExtenderArgs fast = scan(body);

        assertThat(fast).isNotNull();
        assertSameArgs(fast, GENERAL.decodeArgs(body));
    }

    @Test
    void leavesNestingDeeperThanItsLimitToTheGeneralDecoder() throws Exception {
        int limit = StrictJson.MAX_DEPTH;
        String shallow = "{\"metadata\":{\"name\":\"a\"},\"x\":" + "[".repeat(limit) + "]".repeat(limit) + "}";
        String deep = "{\"metadata\":{\"name\":\"a\"},\"x\":" + "[".repeat(limit + 1) + "]".repeat(limit + 1) + "}";

        assertThat(scan(utf8(request(shallow)))).isNotNull();
        assertThat(scan(utf8(request(deep)))).isNull();
        assertThat(GENERAL.decodeArgs(utf8(request(deep))).nodes()).hasSize(1);
    }

    /** {@code count} nodes as kube-scheduler writes them, {@code odd} (when not null) in place of the one at {@code at}. */
    private static byte[] kubeSchedulerBody(int count, int at, String odd) {
        String[] nodes = new String[count];
        for (int n = 0; n < count; n++) {
            nodes[n] = n == at && odd != null ? odd : node("node-" + n, "{\"" + KEY + "\":\"" + n % 7 + "\"}");
        }
        return utf8(request(nodes));
    }

    @Test
    void theGuessIsWhereANodeOpensAsKubeSchedulerWritesThem() throws Exception {
        byte[] body = kubeSchedulerBody(400, -1, null);
        List<NodeItem> nodes = GENERAL.decodeArgs(body).nodes();
        int middle = body.length / 2;

        int guess = FullNodesScanner.Halves.likelyNodeOpening(body, middle, body.length);

        assertThat(nodes.stream()
                        .filter(n -> n.start() >= middle)
                        .findFirst()
                        .orElseThrow()
                        .start())
                .isEqualTo(guess);
    }

    @Test
    void readsALargeArrayInTwoHalvesAsInOnePass() throws Exception {
        byte[] original = kubeSchedulerBody(400, -1, null);
        byte[] body = original.clone();
        int lastNode = GENERAL.decodeArgs(original).nodes().get(399).start();
        java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        FullNodesScanner.Halves halves = new FullNodesScanner.Halves(1024, runnable -> {
            started.incrementAndGet();
            runnable.run(); // the second half is read first, in full
            // Then its last node is broken: only a first half that takes the second half's reading, and does not
            // read those bytes again itself, still sees the body whole.
            body[lastNode] = '!';
        });

        ExtenderArgs split = FullNodesScanner.scan(body, body.length, KEY_UTF8, halves);

        assertThat(started).as("second halves begun").hasValue(1);
        assertThat(split).as("read in two halves, not again in one pass").isNotNull();
        assertThat(split.nodes()).isEqualTo(GENERAL.decodeArgs(original).nodes());
        assertThat(split.nodes()).hasSize(400);
        assertThat(split.nodes().get(399).labelValue()).isEqualTo("0");
    }

    @Test
    void aSecondHalfNobodyBeganIsReadByTheFirst() throws Exception {
        byte[] body = kubeSchedulerBody(400, -1, null);
        List<Runnable> neverRun = new java.util.ArrayList<>();

        ExtenderArgs split =
                FullNodesScanner.scan(body, body.length, KEY_UTF8, new FullNodesScanner.Halves(1024, neverRun::add));

        assertThat(neverRun).hasSize(1);
        assertSameArgs(split, GENERAL.decodeArgs(body));
    }

    @ParameterizedTest
    @ValueSource(ints = {10, 390})
    void anOddNodeInEitherHalfLeavesTheBodyToTheGeneralDecoder(int at) {
        byte[] body = kubeSchedulerBody(400, at, "{\"metadata\":{\"name\":\"n\"},\"x\":01}");
        FullNodesScanner.Halves halves = new FullNodesScanner.Halves(1024, Runnable::run);

        assertThat(FullNodesScanner.scan(body, body.length, KEY_UTF8, halves)).isNull();
    }

    @Test
    void aGuessInsideANodeIsDroppedAndTheFirstHalfReadsOn() throws Exception {
        // The only place after the middle that opens like a node is inside node 300.
        String[] nodes = new String[400];
        for (int n = 0; n < nodes.length; n++) {
            nodes[n] = "{\"metadata\":{\"name\":\"node-" + n + "\",\"labels\":{\"" + KEY + "\":\"1\"}}"
                    + (n == 300 ? ",\"x\":[{},{\"metadata\":{\"name\":\"nested\"}}]" : "") + "}";
        }
        byte[] body =
                utf8(request(nodes).replace("},{\"metadata\":{\"name\":\"node-", "} ,{\"metadata\":{\"name\":\"node-"));
        java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        FullNodesScanner.Halves halves = new FullNodesScanner.Halves(1024, runnable -> {
            started.incrementAndGet();
            runnable.run();
        });

        ExtenderArgs split = FullNodesScanner.scan(body, body.length, KEY_UTF8, halves);

        assertThat(started).as("a second half was begun at the guess").hasValue(1);
        assertThat(split).isNotNull();
        assertSameArgs(split, GENERAL.decodeArgs(body));
        assertThat(split.nodes()).hasSize(400);
    }

    @Property(edgeCases = EdgeCasesMode.NONE)
    void agreesWithTheGeneralDecoderOnHostileBodies(@ForAll("hostile") byte[] body) {
        checkAgreement(body);
    }

    @Property(edgeCases = EdgeCasesMode.NONE)
    void agreesWithTheGeneralDecoderOnFullNodeBodies(@ForAll("fullNodes") FullNodesBody generated) {
        ExtenderArgs fast = checkAgreement(generated.body());
        if (generated.plain()) {
            assertThat(fast)
                    .as("a plain body takes the fast path: %s", generated)
                    .isNotNull();
        }
    }

    @Provide
    Arbitrary<byte[]> hostile() {
        return HostileJson.bodies();
    }

    /** A full-node request; plain when kube-scheduler could have sent it (the fast path must take it then). */
    record FullNodesBody(byte[] body, boolean plain) {
        @Override
        public String toString() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** A value for some field of a node, and whether kube-scheduler could send it (the fast path must take it). */
    private record Part(String json, boolean plain) {}

    @Provide
    Arbitrary<FullNodesBody> fullNodes() {
        Arbitrary<Part> plainValue = Arbitraries.of(
                        "\"v\"",
                        "\"\"",
                        "\"a \\\"quoted\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 value\"",
                        "\"é世😀\"",
                        "0",
                        "-12.5e+3",
                        "1E2",
                        "true",
                        "false",
                        "null",
                        "[]",
                        "{}",
                        "[1,\"a\",{\"b\":[null]}]",
                        // Opens like a node: a wrong guess where the second half starts.
                        "[{},{\"metadata\":{\"name\":\"nested\"}}]",
                        "{\"k\":{\"l\":[[],{}]}}")
                .map(json -> new Part(json, true));
        Arbitrary<Part> oddValue = Arbitraries.of(
                        "01",
                        "1.",
                        ".5",
                        "-",
                        "+1",
                        "NaN",
                        "tru",
                        "nul",
                        "[1,]",
                        "{,}",
                        "\"\\x\"",
                        "\"a\u0001\"",
                        "'a'",
                        "[",
                        "\"",
                        "{\"a\"}",
                        "{\"a\":}",
                        "1 2")
                .map(json -> new Part(json, false));
        Arbitrary<Part> value = Arbitraries.frequencyOf(Tuple.of(8, plainValue), Tuple.of(1, oddValue));
        Arbitrary<String> blank = Arbitraries.of("", "", "", " ", "\n", "\t", "\r\n ");
        Arbitrary<String> name = Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars('-', '.', '0', '9')
                .ofMinLength(1)
                .ofMaxLength(20);
        Arbitrary<Part> labelValue = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of("\"10\"", "\"\"", "\"fast\"", "null").map(v -> new Part(v, true))),
                Tuple.of(1, Arbitraries.of("\"1\\u0030\"", "7", "[]").map(v -> new Part(v, false))));
        Arbitrary<String> otherKey = Arbitraries.of("a", "kubernetes.io/os", "x/y", "é", "");
        Arbitrary<Part> labels = Combinators.combine(
                        otherKey.list().ofMaxSize(3),
                        labelValue,
                        Arbitraries.integers().between(0, 3),
                        blank)
                .as((keys, wanted, where, ws) -> {
                    StringBuilder json = new StringBuilder("{" + ws);
                    for (int k = 0; k < keys.size(); k++) {
                        json.append(k > 0 ? "," : "")
                                .append('"')
                                .append(keys.get(k))
                                .append("\":\"x\"");
                    }
                    boolean plain = wanted.plain() || where == 3;
                    if (where < 3) {
                        json.append(keys.isEmpty() ? "" : ",")
                                .append('"')
                                .append(KEY)
                                .append("\":" + ws)
                                .append(wanted.json());
                    }
                    return new Part(json.append(ws).append('}').toString(), plain);
                });
        Arbitrary<String> metadataKey = Arbitraries.of("metadata", "metadata", "Metadata", "METADATA", "meta_data");
        Arbitrary<Part> node = Combinators.combine(name, labels, value, value, metadataKey, blank)
                .as((n, l, status, extra, metaKey, ws) -> new Part(
                        "{" + ws + "\"" + metaKey + "\"" + ws + ":" + ws + "{\"name\":\"" + n + "\",\"labels\":"
                                + l.json() + ",\"uid\":" + extra.json() + "}," + ws + "\"status\":" + status.json()
                                + ws + "}",
                        l.plain() && status.plain() && extra.plain() && metaKey.equalsIgnoreCase("metadata")));
        Arbitrary<String> nodesKey = Arbitraries.of("Nodes", "nodes", "NODES", "Nodes\u017f");
        return Combinators.combine(
                        node.list().ofMaxSize(6),
                        nodesKey,
                        blank,
                        Arbitraries.integers().between(0, 3))
                .as((nodes, key, ws, order) -> {
                    String items = "[" + ws
                            + String.join(
                                    "," + ws, nodes.stream().map(Part::json).toList()) + ws + "]";
                    String pod = "\"Pod\":" + ws + POD;
                    String list = "\"" + key + "\":{" + ws + "\"metadata\":{},\"items\":" + items + "}";
                    String fields =
                            switch (order) {
                                case 0 -> pod + "," + list + ",\"NodeNames\":null";
                                case 1 -> list + "," + ws + pod;
                                case 2 -> pod + "," + list;
                                default -> pod + "," + list + "," + list;
                            };
                    boolean plain = order != 3
                            && key.matches("(?i)nodes")
                            && !nodes.isEmpty()
                            && nodes.stream().allMatch(Part::plain);
                    return new FullNodesBody(utf8(ws + "{" + fields + "}" + ws), plain);
                });
    }

    /** The fast path's arguments (or null); fails unless they are the general decoder's. */
    private static ExtenderArgs checkAgreement(byte[] body) {
        ExtenderArgs fast = scan(body);
        if (fast == null) {
            return null;
        }
        ExtenderArgs general;
        try {
            general = GENERAL.decodeArgs(body);
        } catch (BadRequestException e) {
            throw new AssertionError("the fast path accepted a body the general decoder refuses (" + e.getMessage()
                    + "): " + new String(body, StandardCharsets.UTF_8));
        }
        assertSameArgs(fast, general);
        return fast;
    }

    private static void assertSameArgs(ExtenderArgs fast, ExtenderArgs general) {
        assertThat(fast.pod()).isEqualTo(general.pod());
        assertThat(fast.namesOnly()).isFalse();
        assertThat(general.namesOnly()).isFalse();
        assertThat(fast.nodes()).isEqualTo(general.nodes());
        assertThat(fast.nodeCount()).isEqualTo(general.nodeCount());
        assertThat(Arrays.copyOf(fast.nameRanges(), 2 * fast.nodeCount()))
                .isEqualTo(Arrays.copyOf(general.nameRanges(), 2 * general.nodeCount()));
        assertThat(fast.body()).isSameAs(general.body());
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }
}
