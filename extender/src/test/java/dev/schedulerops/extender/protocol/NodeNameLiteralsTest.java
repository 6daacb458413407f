package dev.schedulerops.extender.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NodeNameLiteralsTest {
    private static NodeNameLiterals scan(String json) throws BadRequestException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return NodeNameLiterals.scan(body, json.indexOf('['), body.length);
    }

    private static String literal(String json, NodeNameLiterals names, int i) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        int from = names.ranges()[2 * i];
        return new String(body, from, names.ranges()[2 * i + 1] - from, StandardCharsets.UTF_8);
    }

    @Test
    void findsEachLiteralWithItsQuotesWhateverTheWhitespace() throws Exception {
        String json = "{\"NodeNames\": [ \"a\" ,\n\t\"b,]\"\r\n, \"\"] ,\"Pod\":{}}";

        NodeNameLiterals names = scan(json);

        assertThat(names.ranges()).hasSize(6);
        assertThat(literal(json, names, 0)).isEqualTo("\"a\"");
        assertThat(literal(json, names, 1)).isEqualTo("\"b,]\"");
        assertThat(literal(json, names, 2)).isEqualTo("\"\"");
        assertThat(names.escaped()).isNull();
    }

    @Test
    void scansUpToAnEndJustPastTheClosingBracket() throws Exception {
        String json = "{\"NodeNames\":[\"a\",\"b\"],\"Pod\":{\"x\":[\"c\"]}}";
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        int close = json.indexOf(']');

        assertThat(NodeNameLiterals.scan(body, json.indexOf('['), close + 1).ranges())
                .hasSize(4);
        assertThatThrownBy(() -> NodeNameLiterals.scan(body, json.indexOf('['), close))
                .as("an end that cuts off the bracket")
                .isInstanceOf(BadRequestException.class);
    }

    @Test
    void anEmptyArrayHasNoNames() throws Exception {
        assertThat(scan("{\"NodeNames\":[ ]}").ranges()).isEmpty();
    }

    @Test
    void marksAndDecodesNamesWrittenWithEscapes() throws Exception {
        String json = "[\"plain\",\"b\\u0041\",\"q\\\"\\\\\"]";
        byte[] body = json.getBytes(StandardCharsets.UTF_8);

        NodeNameLiterals names = scan(json);

        assertThat(names.escaped().stream()).containsExactly(1, 2);
        int[] r = names.ranges();
        assertThat(NodeNameLiterals.decode(body, r[0], r[1], false)).isEqualTo("plain");
        assertThat(NodeNameLiterals.decode(body, r[2], r[3], true)).isEqualTo("bA");
        assertThat(NodeNameLiterals.decode(body, r[4], r[5], true)).isEqualTo("q\"\\");
    }

    @ParameterizedTest
    @ValueSource(strings = {"[1]", "[\"a\",null]", "[\"a\",[\"b\"]]", "[{\"a\":1}]", "[\"a\" \"b\"]", "[\"a\""})
    void rejectsAnythingButStrings(String json) {
        assertThatThrownBy(() -> scan(json))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("\"NodeNames\" must be an array of strings or null");
    }
}
