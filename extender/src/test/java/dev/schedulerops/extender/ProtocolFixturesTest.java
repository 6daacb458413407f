package dev.schedulerops.extender;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.ExtenderVerbs.Outcome;
import dev.schedulerops.extender.verbs.Verb;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Replays the request/response pairs generated with kube-scheduler's own Go types (see fixtures/README.md). */
class ProtocolFixturesTest {
    private static final String LABEL_KEY = "priority.lixueduan.com";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REQUEST = ".request.json";

    /** At least the 15 fixtures written when the cases were first generated; more may come. */
    private static final int KNOWN_FIXTURES = 15;

    /** Every {@code <verb>/<case>.request.json} under the {@code fixtures} resource directory, as {@code <verb>/<case>}. */
    static Stream<Arguments> fixtures() throws Exception {
        URL root = ProtocolFixturesTest.class.getResource("/fixtures");
        assertThat(root).as("the fixtures directory on the test classpath").isNotNull();
        Path dir = Path.of(root.toURI());
        List<String> names;
        try (Stream<Path> files = Files.walk(dir)) {
            names = files.filter(file -> file.getFileName().toString().endsWith(REQUEST))
                    .map(file -> dir.relativize(file).toString().replace(File.separatorChar, '/'))
                    .map(name -> name.substring(0, name.length() - REQUEST.length()))
                    .sorted()
                    .toList();
        }
        assertThat(names).as("fixtures found in " + dir).hasSizeGreaterThanOrEqualTo(KNOWN_FIXTURES);
        return names.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void replyMatchesFixture(String fixture) throws Exception {
        byte[] request = resource(fixture + REQUEST);
        JsonNode expected = JSON.readTree(resource(fixture + ".response.json"));

        Outcome outcome = run(fixture, request);

        assertThat(outcome.status()).isEqualTo(200);
        byte[] reply = outcome.reply().toByteArray();
        assertThat(JSON.readTree(reply))
                .as(new String(reply, StandardCharsets.UTF_8))
                .isEqualTo(expected);
        if (isFullNodeFilter(fixture)) {
            assertKeptNodesCopiedVerbatim(request, reply);
        }
    }

    static Stream<Arguments> fullNodeFilterFixtures() throws Exception {
        return fixtures()
                .filter(arguments -> isFullNodeFilter((String) arguments.get()[0]));
    }

    private static boolean isFullNodeFilter(String fixture) {
        return fixture.startsWith("filter") && fixture.contains("full-nodes");
    }

    /**
     * The same filter requests pretty-printed: each kept node must come back exactly as the request wrote it, line
     * breaks and indentation included, which a reply that re-serialises nodes would not do.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fullNodeFilterFixtures")
    void keptNodesOfAPrettyPrintedRequestComeBackAsWritten(String fixture) throws Exception {
        byte[] pretty =
                JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(JSON.readTree(resource(fixture + REQUEST)));
        JsonNode expected = JSON.readTree(resource(fixture + ".response.json"));

        byte[] reply = run(fixture, pretty).reply().toByteArray();

        String replyText = new String(reply, StandardCharsets.UTF_8);
        assertThat(JSON.readTree(reply)).as(replyText).isEqualTo(expected);
        Map<String, String> requestNodes = new HashMap<>();
        for (String item : rawItems(pretty)) {
            String name = JSON.readTree(item).at("/metadata/name").asText();
            if (!name.isEmpty()) {
                requestNodes.put(name, item);
            }
        }
        for (JsonNode kept : JSON.readTree(reply).at("/Nodes/items")) {
            String asWritten = requestNodes.get(kept.at("/metadata/name").asText());
            assertThat(asWritten)
                    .as("kept node %s in the request", kept.at("/metadata/name"))
                    .contains("\n  ");
            assertThat(replyText).contains(asWritten);
        }
    }

    private static Outcome run(String fixture, byte[] request) throws Exception {
        StaticNodeCache cache = new StaticNodeCache()
                .put("n1", "10")
                .put("n2", null)
                .put("n3", "20")
                .put("n4", "fast");
        ExtenderVerbs verbs = new ExtenderVerbs(
                LABEL_KEY,
                fixture.endsWith("-cache") ? cache : null,
                args -> args.node().equals("broken")
                        ? new BindResult.BindingFailed("node broken is gone")
                        : BindResult.bound());
        Verb verb =
                Verb.ofPath("/" + fixture.substring(0, fixture.indexOf('/'))).orElseThrow();
        return verbs.answer(verb, request);
    }

    /** Every node object in the reply's Nodes.items must appear byte for byte in the request. */
    private static void assertKeptNodesCopiedVerbatim(byte[] request, byte[] reply) throws IOException {
        String requestText = new String(request, StandardCharsets.UTF_8);
        List<String> items = rawItems(reply);
        assertThat(items).hasSize(JSON.readTree(reply).get("Nodes").get("items").size());
        for (String item : items) {
            assertThat(requestText).contains(item);
        }
    }

    /** The raw text of each element of {@code Nodes.items} in a filter reply or request. */
    private static List<String> rawItems(byte[] reply) throws IOException {
        List<String> items = new ArrayList<>();
        try (JsonParser p = JSON.getFactory().createParser(reply)) {
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME && p.currentName().equals("items")) {
                    p.nextToken();
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        int start = (int) p.currentTokenLocation().getByteOffset();
                        p.skipChildren();
                        int end = (int) p.currentTokenLocation().getByteOffset() + 1;
                        items.add(new String(reply, start, end - start, StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return items;
    }

    static byte[] resource(String name) throws IOException {
        try (InputStream in = ProtocolFixturesTest.class.getResourceAsStream("/fixtures/" + name)) {
            if (in == null) {
                throw new IOException("missing fixture " + name);
            }
            return in.readAllBytes();
        }
    }
}
