package dev.schedulerops.extender.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fast path must read every body it accepts exactly as the general decoder does, and leave every other body to
 * it. The properties compare the two on generated bodies; the examples pin which bodies take the fast path.
 */
class NamesOnlyScannerTest {
    private static final String POD = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u-1\"},"
            + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}";
    private static final ArgsDecoder GENERAL = new ArgsDecoder("k");

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String request(String names) {
        return "{\"Pod\":" + POD + ",\"Nodes\":null,\"NodeNames\":" + names + "}";
    }

    @Test
    void readsWhatKubeSchedulerSendsAsTheGeneralDecoderDoes() throws Exception {
        byte[] body = utf8(request("[\"node-00001\",\"a\",\"exactly8\",\"sixteen-bytes-16\",\"\"]"));

        ExtenderArgs fast = NamesOnlyScanner.scan(body);

        assertThat(fast).isNotNull();
        assertSameArgs(fast, GENERAL.decodeArgs(body));
        assertThat(fast.pod()).isEqualTo(new PodRef("ns", "p", "u-1"));
        assertThat(fast.nodeCount()).isEqualTo(5);
        assertThat(fast.nodeName(0)).isEqualTo("node-00001");
        assertThat(fast.nodeName(4)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                " \n{ \"pod\" :%s ,\t\"NODES\":null , \"nodeNames\" : [ \"a\" ,\r\n\"b\" ] }\n ",
                "{\"NodeNames\":[\"a\",\"b\"],\"Pod\":%s}",
                "{\"Pod\":%s,\"NodeNames\":[]}",
            })
    void takesAnyOrderCaseAndWhitespace(String template) throws Exception {
        byte[] body = utf8(template.formatted(POD));

        ExtenderArgs fast = NamesOnlyScanner.scan(body);

        assertThat(fast).isNotNull();
        assertSameArgs(fast, GENERAL.decodeArgs(body));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"Pod\":%s,\"NodeNames\":[\"a\\\"b\"]}", // an escape in a name
                "{\"Pod\":%s,\"NodeNames\":[\"nöde\"]}", // not ASCII
                "{\"Pod\":%s,\"NodeNames\":[\"a\tb\"]}", // a control character
                "{\"Pod\":%s,\"NodeNames\":[\"a\",]}",
                "{\"Pod\":%s,\"NodeNames\":[\"a\" \"b\"]}",
                "{\"Pod\":%s,\"NodeNames\":[\"a\"]",
                "{\"Pod\":%s,\"NodeNames\":[\"a\"]}x",
                "{\"Pod\":%s,\"NodeNames\":[\"a\"]}{}",
                "{\"Pod\":%s,\"NodeNames\":null}",
                "{\"Pod\":%s,\"NodeNames\":[1]}",
                "{\"Pod\":%s,\"Nodes\":{},\"NodeNames\":[\"a\"]}",
                "{\"Pod\":%s,\"Nodes\":nullx,\"NodeNames\":[\"a\"]}",
                "{\"Pod\":%s,\"Extra\":1,\"NodeNames\":[\"a\"]}",
                "{\"Pod\":%s,\"Pod\":%1$s,\"NodeNames\":[\"a\"]}",
                "{\"Pod\":%s,\"NodeNames\":[\"a\"],\"NodeNames\":[\"b\"]}",
                "{\"P\\u006fd\":%s,\"NodeNames\":[\"a\"]}",
                "{\"Pod\":null,\"NodeNames\":[\"a\"]%.0s}",
                "{\"Pod\":[%s],\"NodeNames\":[\"a\"]}",
                "{\"NodeNames\":[\"a\"]%.0s}",
                "[%s]",
            })
    void leavesEverythingElseToTheGeneralDecoder(String template) {
        assertThat(NamesOnlyScanner.scan(utf8(template.formatted(POD)))).isNull();
    }

    @Test
    void leavesABrokenPodToTheGeneralDecoder() {
        String brokenPod = POD.replace("\"uid\":\"u-1\"", "\"uid\":7");
        assertThat(NamesOnlyScanner.scan(utf8(request("[\"a\"]").replace(POD, brokenPod))))
                .isNull();
        assertThat(NamesOnlyScanner.scan(utf8(request("[\"a\"]").replace(POD, "{\"a\":[}"))))
                .isNull();
    }

    /** Jackson, started at the pod's offset, would skip a byte order mark or read UTF-16 there. */
    @ParameterizedTest
    @ValueSource(strings = {"\uFEFF{}", "{\u0000}\u0000"})
    void leavesAPodInAnotherEncodingToTheGeneralDecoder(String pod) {
        byte[] body = utf8(request("[\"a\"]").replace(POD, pod));

        assertThat(NamesOnlyScanner.scan(body)).isNull();
        assertThatThrownBy(() -> GENERAL.decodeArgs(body)).isInstanceOf(BadRequestException.class);
    }

    /** Jackson limits nesting; the pod, read on its own, must be held to the same depth as inside the request. */
    @ParameterizedTest
    @ValueSource(ints = {990, 995, 996, 997, 998, 999, 1000})
    void readsADeeplyNestedPodOnlyWhenTheGeneralDecoderDoes(int arrays) {
        String pod = "{\"spec\":" + "[".repeat(arrays) + "]".repeat(arrays) + "}";
        byte[] body = utf8(request("[\"a\"]").replace(POD, pod));
        boolean generalReads;
        try {
            GENERAL.decodeArgs(body);
            generalReads = true;
        } catch (BadRequestException e) {
            generalReads = false;
        }

        assertThat(NamesOnlyScanner.scan(body) != null).isEqualTo(generalReads);
    }

    @Test
    void findsEveryNameAndHashesItInPlaceAsAloneWhateverItsLengthAndPlaceInTheBody() {
        for (int length = 0; length <= 40; length++) {
            String name = "n".repeat(length);
            // The last names end within a word of the body's end, where the scanner reads byte by byte.
            for (String tail : List.of("]}", "] }", "]  \n  }", "]}          ")) {
                byte[] body = utf8("{\"Pod\":" + POD + ",\"NodeNames\":[\"x\",\"" + name + "\"" + tail);
                ExtenderArgs fast = NamesOnlyScanner.scan(body);

                assertThat(fast).as("length %d, tail %s", length, tail).isNotNull();
                assertThat(fast.nodeName(1)).isEqualTo(name);
                byte[] bytes = utf8(name);
                assertThat(NameHash.of(body, fast.nameFrom(1), fast.nameTo(1)))
                        .as("the hash of the name in the body, where bytes follow it, and alone, as the index has it")
                        .isEqualTo(NameHash.of(bytes, 0, bytes.length));
            }
        }
    }

    @Property(edgeCases = EdgeCasesMode.NONE)
    void agreesWithTheGeneralDecoderOnHostileBodies(@ForAll("hostile") byte[] body) {
        checkAgreement(body);
    }

    @Property(edgeCases = EdgeCasesMode.NONE)
    void agreesWithTheGeneralDecoderOnNamesOnlyBodies(@ForAll("namesOnly") NamesOnlyBody generated) {
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

    /** A names-only request; plain when kube-scheduler could have sent it (the fast path must take it then). */
    record NamesOnlyBody(byte[] body, boolean plain) {
        @Override
        public String toString() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    @Provide
    Arbitrary<NamesOnlyBody> namesOnly() {
        Arbitrary<String> plainName = Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars('-', '.', '0', '9')
                .ofMaxLength(40);
        Arbitrary<String> oddName = Arbitraries.strings()
                .withCharRange('\u0000', '\u00ff')
                .withChars('"', '\\', '\u00e9', '\u4e16')
                .ofMaxLength(12);
        Arbitrary<String> blank = Arbitraries.of("", "", "", " ", "\n", "\t", "\r\n ");
        Arbitrary<String> element = Combinators.combine(
                        Arbitraries.frequencyOf(
                                net.jqwik.api.Tuple.of(9, plainName.map(NamesOnlyScannerTest::literal)),
                                net.jqwik.api.Tuple.of(1, oddName.map(NamesOnlyScannerTest::literal)),
                                net.jqwik.api.Tuple.of(1, Arbitraries.of("1", "null", "{}", "\"a\"\"b\""))),
                        blank,
                        blank)
                .as((name, before, after) -> before + name + after);
        Arbitrary<String> names = element.list().ofMaxSize(30).map(list -> "[" + String.join(",", list) + "]");
        Arbitrary<String> nodesKey = Arbitraries.of("Nodes", "nodes", "NODES", "Nodes", "Nodes\u017f");
        Arbitrary<String> namesKey = Arbitraries.of("NodeNames", "nodenames", "NodeNames", "NodeNames", "Node_Names");
        return Combinators.combine(
                        names, nodesKey, namesKey, blank, Arbitraries.integers().between(0, 5))
                .as((list, nodes, nameKey, ws, order) -> {
                    String pod = ws + "\"Pod\"" + ws + ":" + ws + POD;
                    String nodesField = "\"" + nodes + "\":" + ws + "null";
                    String namesField = "\"" + nameKey + "\":" + list;
                    String fields =
                            switch (order) {
                                case 0 -> pod + "," + nodesField + "," + namesField;
                                case 1 -> namesField + "," + pod;
                                case 2 -> nodesField + "," + namesField + "," + ws + pod;
                                case 3 -> pod + "," + namesField + "," + nodesField;
                                case 4 -> pod + "," + namesField;
                                default -> pod + "," + namesField + "," + namesField;
                            };
                    String json = ws + "{" + fields + ws + "}" + ws;
                    boolean plain = order != 5
                            && nodes.matches("(?i)nodes")
                            && nameKey.equalsIgnoreCase("NodeNames")
                            && list.matches("\\[(\\s*\"[a-z0-9.\\-]*\"\\s*(,\\s*\"[a-z0-9.\\-]*\"\\s*)*)?]");
                    return new NamesOnlyBody(utf8(json), plain);
                });
    }

    private static String literal(String name) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : name.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** The fast path's arguments (or null); fails unless they are the general decoder's. */
    private static ExtenderArgs checkAgreement(byte[] body) {
        ExtenderArgs fast = NamesOnlyScanner.scan(body);
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
        for (int i = 0; i < fast.nodeCount(); i++) {
            byte[] alone = Arrays.copyOfRange(body, fast.nameFrom(i), fast.nameTo(i));
            assertThat(NameHash.of(body, fast.nameFrom(i), fast.nameTo(i)))
                    .isEqualTo(NameHash.of(alone, 0, alone.length));
        }
        return fast;
    }

    private static void assertSameArgs(ExtenderArgs fast, ExtenderArgs general) {
        assertThat(fast.pod()).isEqualTo(general.pod());
        assertThat(fast.namesOnly()).isTrue();
        assertThat(general.namesOnly()).isTrue();
        assertThat(fast.nodeCount()).isEqualTo(general.nodeCount());
        assertThat(Arrays.copyOf(fast.nameRanges(), 2 * fast.nodeCount())).isEqualTo(general.nameRanges());
        assertThat(general.escapedNames()).isNull();
        assertThat(fast.body()).isSameAs(general.body());
    }
}
