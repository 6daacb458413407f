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
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CRD the build generates may not break a released API version: crds/released/ holds the schema of each version
 * as released (committed by hand when a version is released: {@code ./mvnw -pl operator test
 * -Dtest=CrdCompatibilityTest -Dcrd.released.update=true}), and every build compares against it. A breaking change
 * needs a new API version instead.
 */
class CrdCompatibilityTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Path GENERATED = Path.of("..", "crds", "schedulerprofiles.schedulerops.dev-v1.yml");
    private static final Path RELEASED = Path.of("..", "crds", "released");

    @Test
    void theGeneratedCrdBreaksNoReleasedVersion() throws IOException {
        JsonNode current = YAML.readTree(GENERATED.toFile());
        if (Boolean.getBoolean("crd.released.update")) {
            for (JsonNode version : current.at("/spec/versions")) {
                Files.writeString(
                        RELEASED.resolve("schedulerprofiles.schedulerops.dev-"
                                + version.path("name").asText() + ".yaml"),
                        Files.readString(GENERATED));
            }
        }
        List<Path> released;
        try (Stream<Path> files = Files.list(RELEASED)) {
            released =
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(released).as("released CRDs in crds/released").isNotEmpty();
        for (Path file : released) {
            assertThat(CrdCompatibility.breakingChanges(YAML.readTree(file.toFile()), current))
                    .as(
                            "breaking changes against the released %s: serve a new API version instead (if this"
                                    + " version was never released, refresh crds/released with"
                                    + " -Dcrd.released.update=true and say why in the commit)",
                            file.getFileName())
                    .isEmpty();
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
