package dev.schedulerops.extender.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.protocol.BadRequestException;
import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.protocol.RequestDecoder;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.ExtenderVerbs.Outcome;
import dev.schedulerops.extender.verbs.Verb;
import java.util.HexFormat;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the request decoders and the verbs behind them with {@link HostileJson} bodies. Every body is either decoded
 * and answered with a documented status (200, or 422 for a names-only prioritize without a node cache) and a reply
 * that is well-formed JSON, or refused with a {@link BadRequestException} (400) carrying a message; anything else
 * thrown fails. Tries: {@code -Dfuzz.tries} (2000 in the build, 100 000 in bench/fuzz).
 */
class DecoderFuzzTest {
    static final String KEY = "priority.lixueduan.com";
    /**
     * Checks replies; no length limits: a reply may carry a 100 000-character node name (which the request carried as
     * a string) as a map key, past Jackson's default 50 000 for names. Go, which reads the replies, has no such limit.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNameLength(Integer.MAX_VALUE)
                    .maxStringLength(Integer.MAX_VALUE)
                    .build())
            // Random reply keys (node names) would otherwise fill this test's own name table and look like a leak.
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .build();

    private static final Set<Integer> VERB_STATUSES = Set.of(200, 422);

    /** The node cache of the fixtures' README. */
    private static final StaticNodeCache CACHE = new StaticNodeCache()
            .put("n1", "10")
            .put("n2", null)
            .put("n3", "20")
            .put("n4", "fast");

    private static final ExtenderVerbs WITH_CACHE = new ExtenderVerbs(KEY, CACHE, DecoderFuzzTest::bind);
    private static final ExtenderVerbs WITHOUT_CACHE = new ExtenderVerbs(KEY, null, DecoderFuzzTest::bind);
    private static final RequestDecoder DECODER = new RequestDecoder(KEY);

    private static FuzzReport report;

    private static BindResult bind(dev.schedulerops.extender.protocol.BindingArgs args) {
        return args.node().equals("broken") ? new BindResult.BindingFailed("node broken is gone") : BindResult.bound();
    }

    @BeforeContainer
    static void start() {
        report = new FuzzReport("extender decoders and verbs (DecoderFuzzTest)");
    }

    @AfterContainer
    static void finish() {
        report.finish("- each input: one verb (with or without a node cache) and all three decoders");
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        return HostileJson.bodies();
    }

    // The generators draw their extremes themselves; jqwik's edge cases (every range's maximum at once) would make
    // most long-run inputs the slowest ones.
    @Property(edgeCases = EdgeCasesMode.NONE)
    void everyBodyIsAnsweredOrRefusedWithAMessage(
            @ForAll("bodies") byte[] body, @ForAll Verb verb, @ForAll boolean withCache) {
        String outcome;
        try {
            Outcome answer = (withCache ? WITH_CACHE : WITHOUT_CACHE).answer(verb, body);
            expect(VERB_STATUSES.contains(answer.status()), "status " + answer.status(), verb, body);
            expect(wellFormedJson(answer.reply()), "reply is not JSON", verb, body);
            outcome = verb.path() + " " + answer.status();
        } catch (BadRequestException e) {
            expect(e.getMessage() != null && !e.getMessage().isBlank(), "400 without a message", verb, body);
            outcome = verb.path() + " 400 (BadRequestException)";
        } catch (Throwable t) {
            report.failure(verb + " threw " + t + " on " + preview(body));
            throw new AssertionError(verb + " threw on " + preview(body), t);
        }
        decodeWithEveryDecoder(body);
        report.count(outcome);
    }

    private static void decodeWithEveryDecoder(byte[] body) {
        for (int i = 0; i < 3; i++) {
            try {
                switch (i) {
                    case 0 -> DECODER.decodeArgs(body);
                    case 1 -> DECODER.decodeBinding(body);
                    default -> DECODER.decodePreemption(body);
                }
            } catch (BadRequestException e) {
                assertThat(e.getMessage()).isNotBlank();
            } catch (Throwable t) {
                report.failure("decoder " + i + " threw " + t + " on " + preview(body));
                throw new AssertionError("decoder " + i + " threw on " + preview(body), t);
            }
        }
    }

    private static void expect(boolean ok, String what, Verb verb, byte[] body) {
        if (!ok) {
            report.failure(verb + ": " + what + " on " + preview(body));
            throw new AssertionError(verb + ": " + what + " on " + preview(body));
        }
    }

    static boolean wellFormedJson(Reply reply) {
        byte[] bytes = reply.toByteArray();
        try (JsonParser p = JSON.createParser(bytes)) {
            while (p.nextToken() != null) {
                p.skipChildren();
            }
            return bytes.length > 0;
        } catch (Exception e) {
            return false;
        }
    }

    static String preview(byte[] body) {
        int n = Math.min(body.length, 200);
        return body.length + " bytes, starting " + HexFormat.of().formatHex(body, 0, n);
    }
}
