package dev.schedulerops.extender.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.protocol.ExtenderArgs;
import dev.schedulerops.extender.protocol.RequestDecoder;
import dev.schedulerops.extender.verbs.ExtenderVerbs.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The one-pass names-only filter must give the general path's reply, byte for byte. */
class NamesOnlyFilterTest {
    private static final String KEY = "example.com/pool";
    private static final RequestDecoder DECODER = new RequestDecoder(KEY);

    /** node-0 .. node-19: every third lacks the label, node-19 is not in the cache at all. */
    private static final StaticNodeCache CACHE = cache();

    private static final ExtenderVerbs VERBS = new ExtenderVerbs(KEY, CACHE, args -> BindResult.bound());

    private static StaticNodeCache cache() {
        StaticNodeCache cache = new StaticNodeCache();
        for (int i = 0; i < 19; i++) {
            cache.put("node-" + i, i % 3 == 0 ? null : Integer.toString(i));
        }
        return cache;
    }

    @Test
    void keepsLabelledNodesInOrderAndReportsTheOthersWithTheirReason() throws Exception {
        Outcome outcome = filter(List.of("node-1", "node-0", "node-19", "node-2"));

        assertThat(outcome.reply().toString())
                .isEqualTo("{\"Nodes\":null,\"NodeNames\":[\"node-1\",\"node-2\"],\"FailedNodes\":{},"
                        + "\"FailedAndUnresolvableNodes\":{\"node-0\":\"node(s) lack the label \\\"" + KEY
                        + "\\\" required by the SchedulerProfile extender\",\"node-19\":\"node(s) not yet known to the"
                        + " SchedulerProfile extender's node cache\"},\"Error\":\"\"}");
        assertThat(outcome.nodesIn()).isEqualTo(4);
        assertThat(outcome.nodesOut()).isEqualTo(2);
    }

    /**
     * Whichever decoder read the body: the scanner (kube-scheduler's compact JSON) or, for a body with spaces in its
     * name array, the general one, whose names without escapes take the same one-pass filter.
     */
    @Property(edgeCases = EdgeCasesMode.NONE)
    void answersAsTheGeneralPath(@ForAll("names") List<String> names, @ForAll boolean spaced) throws Exception {
        byte[] body = body(names, spaced ? ", " : ",");
        ExtenderArgs args = DECODER.decodeArgs(body);
        assertThat(args.plainNames()).as("so the one-pass filter answers").isTrue();
        Outcome onePass = VERBS.answer(Verb.FILTER, body);

        Outcome general = VERBS.filterByValues(args, false);

        assertThat(onePass.reply().toString()).isEqualTo(general.reply().toString());
        assertThat(onePass.nodesIn()).isEqualTo(general.nodesIn());
        assertThat(onePass.nodesOut()).isEqualTo(general.nodesOut());
    }

    @Test
    void aReplyWrittenIntoTheReleasedArrayOfALongerOneIsExactlyItsOwn() throws Exception {
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 19; i++) {
            many.add("node-" + i);
        }
        Outcome longer = VERBS.answer(Verb.FILTER, body(many));
        byte[] array = longer.reply().segments().get(0).array();
        longer.reply().release();

        Outcome shorter = filter(List.of("node-2", "node-3"));

        assertThat(shorter.reply().segments().get(0).array())
                .as("the same array")
                .isSameAs(array);
        assertThat(shorter.reply().toString())
                .startsWith("{\"Nodes\":null,\"NodeNames\":[\"node-2\"],")
                .endsWith("\"Error\":\"\"}")
                .isEqualTo(VERBS.filterByValues(DECODER.decodeArgs(body(List.of("node-2", "node-3"))), false)
                        .reply()
                        .toString());
    }

    @Provide
    Arbitrary<List<String>> names() {
        Arbitrary<String> known = Arbitraries.integers().between(0, 19).map(i -> "node-" + i);
        Arbitrary<String> other = Arbitraries.strings().alpha().ofMaxLength(30);
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(8, known), net.jqwik.api.Tuple.of(1, other))
                .list()
                .ofMaxSize(60);
    }

    private static Outcome filter(List<String> names) throws Exception {
        return VERBS.answer(Verb.FILTER, body(names));
    }

    private static byte[] body(List<String> names) {
        return body(names, ",");
    }

    private static byte[] body(List<String> names, String separator) {
        List<String> literals = new ArrayList<>();
        names.forEach(n -> literals.add("\"" + n + "\""));
        return ("{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"Nodes\":null,\"NodeNames\":["
                        + String.join(separator, literals) + "]}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
