package dev.schedulerops.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CRD the build generates may not break a released API version: crds/released/ holds the schema of each version
 * as released, and every build compares against it. A breaking change needs a new API version instead. The baseline
 * changes only through {@code crds/released/refresh "why"}, which records a new revision in crds/released/BASELINE
 * with the files' sha256; a baseline file that differs from what the last revision recorded fails here, and nothing in
 * a test ever writes it.
 */
class CrdCompatibilityTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Path GENERATED = Path.of("..", "crds", "schedulerprofiles.schedulerops.dev-v1.yml");
    private static final Path RELEASED = Path.of("..", "crds", "released");
    private static final Path RECORD = RELEASED.resolve("BASELINE");

    @Test
    void theGeneratedCrdBreaksNoReleasedVersion() throws IOException {
        assertThat(System.getProperty("crd.released.update"))
                .as("-Dcrd.released.update is gone: the baseline changes only through crds/released/refresh \"why\"")
                .isNull();
        JsonNode current = YAML.readTree(GENERATED.toFile());
        List<Path> released = releasedFiles();
        assertThat(released).as("released CRDs in crds/released").isNotEmpty();
        for (Path file : released) {
            assertThat(CrdCompatibility.breakingChanges(YAML.readTree(file.toFile()), current))
                    .as(
                            "breaking changes against the released %s: serve a new API version instead (if this"
                                    + " version was never released, refresh the baseline with crds/released/refresh"
                                    + " \"why\" and commit it)",
                            file.getFileName())
                    .isEmpty();
        }
    }

    /** Every baseline file is as the last revision of crds/released/BASELINE recorded it, and that record is whole. */
    @Test
    void theBaselineIsWhatItsLastRevisionRecorded() throws IOException {
        List<String> lines = Files.readAllLines(RECORD).stream()
                .filter(l -> !l.startsWith("#") && !l.isBlank())
                .toList();
        List<String> revisions = lines.stream()
                .filter(l -> l.startsWith("revision "))
                .map(l -> l.substring("revision ".length()))
                .toList();
        assertThat(revisions).as("the revision line of %s", RECORD).hasSize(1);
        int revision = Integer.parseInt(revisions.get(0));
        Map<String, String> recorded = new TreeMap<>();
        List<Integer> history = new ArrayList<>();
        for (String line : lines) {
            String[] fields = line.split(" ", 4);
            switch (fields[0]) {
                case "revision" -> {}
                case "sha256" -> recorded.put(fields[2], fields[1]);
                case "history" -> history.add(Integer.parseInt(fields[1]));
                default -> throw new AssertionError("unknown line in " + RECORD + ": " + line);
            }
        }
        assertThat(history)
                .as("the history of the baseline: one line per revision, 1 to %d", revision)
                .isEqualTo(IntStream.rangeClosed(1, revision).boxed().toList());
        Map<String, String> actual = new TreeMap<>();
        for (Path file : releasedFiles()) {
            actual.put(file.getFileName().toString(), sha256(file));
        }
        assertThat(actual)
                .as(
                        "the baseline files and their sha256 against revision %d of %s: the baseline changes only"
                                + " through crds/released/refresh \"why\"",
                        revision, RECORD)
                .isEqualTo(recorded);
    }

    private static List<Path> releasedFiles() throws IOException {
        try (Stream<Path> files = Files.list(RELEASED)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void additionsAndLooserValidationPass() throws IOException {
        assertThat(changes(schema -> {
                    field(schema, "spec")
                            .with("properties")
                            .putObject("newOptional")
                            .put("type", "string");
                    field(schema, "spec.weight").put("minimum", 0);
                }))
                .isEmpty();
    }

    @Test
    void eachKindOfBreakingChangeIsFound() throws IOException {
        assertThat(changes(schema -> field(schema, "spec").with("properties").remove("weight")))
                .singleElement()
                .asString()
                .contains(".spec.weight: removed");
        assertThat(changes(schema -> field(schema, "spec.labelKey").put("type", "integer")))
                .anySatisfy(p -> assertThat(p).contains("spec.labelKey: type changed"));
        assertThat(changes(schema -> ((ArrayNode) field(schema, "spec").withArray("required")).add("weight")))
                .anySatisfy(p -> assertThat(p).contains("weight is newly required"));
        assertThat(changes(schema -> field(schema, "spec.weight").put("minimum", 5)))
                .anySatisfy(p -> assertThat(p).contains("spec.weight: minimum raised"));
        assertThat(changes(schema -> field(schema, "spec.labelKey").put("maxLength", 10)))
                .anySatisfy(p -> assertThat(p).contains("spec.labelKey: maxLength lowered"));
        assertThat(changes(schema -> field(schema, "spec.labelKey").put("pattern", "^a$")))
                .anySatisfy(p -> assertThat(p).contains("spec.labelKey: pattern"));
        assertThat(changes(schema -> field(schema, "spec")
                        .withArray("x-kubernetes-validations")
                        .addObject()
                        .put("rule", "self.weight < 3")))
                .anySatisfy(p -> assertThat(p).contains("new validation rule self.weight < 3"));
        assertThat(changes(schema -> field(schema, "spec.weight").put("default", 2)))
                .anySatisfy(p -> assertThat(p).contains("spec.weight: default changed"));
    }

    @Test
    void aRemovedVersionOrAnotherScopeIsFound() throws IOException {
        JsonNode released = YAML.readTree(GENERATED.toFile());
        ObjectNode scope = released.deepCopy();
        ((ObjectNode) scope.path("spec")).put("scope", "Namespaced");
        assertThat(CrdCompatibility.breakingChanges(released, scope))
                .anySatisfy(p -> assertThat(p).contains("/spec/scope"));
        ObjectNode renamed = released.deepCopy();
        ((ObjectNode) renamed.at("/spec/versions/0")).put("name", "v2");
        assertThat(CrdCompatibility.breakingChanges(released, renamed))
                .anySatisfy(p -> assertThat(p).contains("no longer served"));
    }

    /** The breaking changes of the generated CRD after {@code edit} of its first version's schema. */
    private static List<String> changes(Consumer<ObjectNode> edit) throws IOException {
        JsonNode released = YAML.readTree(GENERATED.toFile());
        ObjectNode current = released.deepCopy();
        edit.accept((ObjectNode) current.at("/spec/versions/0/schema/openAPIV3Schema"));
        return CrdCompatibility.breakingChanges(released, current);
    }

    private static ObjectNode field(ObjectNode schema, String dotted) {
        ObjectNode node = schema;
        for (String part : dotted.split("\\.")) {
            node = (ObjectNode) node.path("properties").path(part);
        }
        return node;
    }
}
