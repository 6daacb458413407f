package dev.schedulerops.operator.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sample's rendered objects against its golden file, compared as YAML trees (for a readable failure) and then
 * byte for byte. To regenerate after an intended change, run
 * {@code ./mvnw -pl operator test -Dtest=RenderGoldenTest -Dgolden.update=true}: each golden test is then aborted,
 * never passed; review {@code git diff operator/src/test/resources/golden} and run the tests again without the flag.
 */
class RenderGoldenTest {
    private static final Path GOLDEN = Path.of("src", "test", "resources", "golden");
    private static final boolean UPDATE = Boolean.getBoolean("golden.update");

    static Stream<Path> samples() {
        return Samples.files().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void renderedObjectsMatchGoldenFile(Path sample) throws IOException {
        String rendered = renderStream(sample);
        Path golden = GOLDEN.resolve(sample.getFileName());
        if (UPDATE) {
            Files.createDirectories(GOLDEN);
            Files.writeString(golden, rendered);
            Assumptions.abort("golden rewritten: review git diff " + golden
                    + " and run the tests again without -Dgolden.update=true");
        }
        assertThat(golden)
                .as("golden file for %s (regenerate with -Dgolden.update=true)", sample)
                .exists();
        String goldenText = Files.readString(golden);
        List<JsonNode> expected = readTrees(goldenText);
        List<JsonNode> actual = readTrees(rendered);
        assertEquals(expected.size(), actual.size(), "number of objects rendered for " + sample);
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "object " + i + " of " + sample + ":\n" + rendered);
        }
        // Same trees can still differ in key order, quoting or layout: what `render` prints must not change either.
        assertEquals(goldenText, rendered, "rendered text of " + sample + " must equal " + golden + " byte for byte");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void renderingIsByteIdenticalEveryTime(Path sample) {
        assertEquals(renderStream(sample), renderStream(sample));
    }

    static String renderStream(Path sample) {
        var result = ProfileRenderer.render(Samples.load(sample), Samples.FACTS);
        assertThat(result).as("sample %s must be valid: %s", sample, result).isInstanceOf(RenderResult.Valid.class);
        StringBuilder out = new StringBuilder();
        for (var object : ((RenderResult.Valid) result).state().all()) {
            out.append("---\n").append(Yaml.write(object));
        }
        return out.toString();
    }

    private static List<JsonNode> readTrees(String yaml) throws IOException {
        try (MappingIterator<JsonNode> it =
                Yaml.MAPPER.readerFor(JsonNode.class).readValues(yaml)) {
            return it.readAll().stream().filter(n -> n != null && !n.isEmpty()).toList();
        }
    }
}
