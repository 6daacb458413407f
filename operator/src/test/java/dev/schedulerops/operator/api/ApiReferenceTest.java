package dev.schedulerops.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * docs/api-reference.md is generated from the CRD the build generates (every field, its type, default, validation
 * and description, as the API server publishes them), so it cannot drift from the API: this test regenerates it and
 * fails when the committed file differs. Update: {@code ./mvnw -pl operator test -Dtest=ApiReferenceTest
 * -Dapi.reference.update=true}, then review the diff.
 */
class ApiReferenceTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Path CRD = Path.of("..", "crds", "schedulerprofiles.schedulerops.dev-v1.yml");
    private static final Path REFERENCE = Path.of("..", "docs", "api-reference.md");

    /**
     * Fields of Kubernetes' own types: one row each, named, instead of hundreds of rows of their insides (kubectl
     * explain shows those).
     */
    private static final Map<String, String> KUBERNETES_TYPES = Map.of(
            "affinity", "Affinity",
            "tolerations", "[]Toleration",
            "topologySpreadConstraints", "[]TopologySpreadConstraint",
            "resources", "ResourceRequirements",
            "metricsFrom", "[]NetworkPolicyPeer",
            "conditions", "[]Condition");

    @Test
    void theCommittedReferenceIsWhatTheCrdSays() throws IOException {
        String generated = render(YAML.readTree(CRD.toFile()));
        if (Boolean.getBoolean("api.reference.update")) {
            Files.writeString(REFERENCE, generated);
        }
        assertThat(Files.readString(REFERENCE))
                .as("docs/api-reference.md drifted from the CRD; regenerate with -Dapi.reference.update=true")
                .isEqualTo(generated);
    }

    @Test
    void everyFieldIsListed() throws IOException {
        String reference = render(YAML.readTree(CRD.toFile()));
        for (String field : List.of(
                "`spec.labelKey`",
                "`spec.extender.jvm.options`",
                "`spec.extender.tls.mode`",
                "`spec.scheduler.leaderElection.renewDeadline`",
                "`status.conditions`")) {
            assertThat(reference).contains("| " + field + " |");
        }
    }

    static String render(JsonNode crd) {
        JsonNode version = crd.at("/spec/versions/0");
        StringBuilder out = new StringBuilder();
        out.append("# SchedulerProfile API reference\n\n")
                .append("<!-- Generated from crds/schedulerprofiles.schedulerops.dev-v1.yml by ApiReferenceTest;")
                .append(" do not edit. -->\n\n")
                .append("`")
                .append(crd.at("/spec/group").asText())
                .append('/')
                .append(version.path("name").asText())
                .append("`, kind `")
                .append(crd.at("/spec/names/kind").asText())
                .append("`, scope ")
                .append(crd.at("/spec/scope").asText())
                .append(", short names ")
                .append(String.join(", ", strings(crd.at("/spec/names/shortNames"))))
                .append(".\n\n");
        JsonNode schema = version.at("/schema/openAPIV3Schema");
        if (schema.has("description")) {
            out.append(text(schema.path("description"))).append("\n\n");
        }
        out.append(
                        "Every field as the API server publishes it (`kubectl explain schedulerprofile.spec` shows the same).")
                .append(" Rules on a whole object (CEL, checked at admission) are listed in the object's row; what")
                .append(" the operator checks on top is in [profiles.md](profiles.md).\n\n");
        for (String top : List.of("spec", "status")) {
            out.append("## `").append(top).append("`\n\n");
            out.append("| field | type | default | validation | description |\n");
            out.append("|---|---|---|---|---|\n");
            rows(top, schema.path("properties").path(top), requiredOf(schema), out);
            out.append('\n');
        }
        return out.toString();
    }

    private static void rows(String path, JsonNode node, List<String> requiredHere, StringBuilder out) {
        String name = path.substring(path.lastIndexOf('.') + 1).replace("[]", "");
        List<String> validation = new ArrayList<>();
        if (requiredHere.contains(name)) {
            validation.add("required");
        }
        bound(node, "minimum", "≥ ", validation);
        bound(node, "maximum", "≤ ", validation);
        bound(node, "minLength", "length ≥ ", validation);
        bound(node, "maxLength", "length ≤ ", validation);
        bound(node, "minItems", "items ≥ ", validation);
        bound(node, "maxItems", "items ≤ ", validation);
        bound(node, "maxProperties", "entries ≤ ", validation);
        if (node.has("enum")) {
            validation.add("one of " + String.join(", ", strings(node.path("enum"))));
        }
        if (node.has("pattern")) {
            validation.add("pattern `" + node.path("pattern").asText().replace("|", "\\|") + "`");
        }
        for (JsonNode rule : node.path("x-kubernetes-validations")) {
            validation.add(
                    "rule: " + text(rule.path("message").isMissingNode() ? rule.path("rule") : rule.path("message")));
        }
        JsonNode items = node.path("items");
        boolean list = "array".equals(node.path("type").asText());
        String kubernetesType = KUBERNETES_TYPES.get(name);
        String type = kubernetesType != null
                ? "Kubernetes `" + kubernetesType + "`"
                : list ? "[]" + typeOf(items) : typeOf(node);
        out.append("| `")
                .append(path)
                .append("` | ")
                .append(type)
                .append(" | ")
                .append(node.has("default") ? "`" + node.path("default") + "`" : "")
                .append(" | ")
                .append(String.join("; ", validation))
                .append(" | ")
                .append(text(node.path("description")))
                .append(" |\n");
        if (kubernetesType != null) {
            return;
        }
        JsonNode children = list ? items : node;
        List<String> required = requiredOf(children);
        for (Iterator<Map.Entry<String, JsonNode>> it =
                        children.path("properties").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> child = it.next();
            rows(path + (list ? "[]" : "") + "." + child.getKey(), child.getValue(), required, out);
        }
    }

    private static String typeOf(JsonNode node) {
        if (node.path("x-kubernetes-int-or-string").asBoolean()) {
            return "int or string";
        }
        if (node.has("additionalProperties")) {
            JsonNode values = node.path("additionalProperties");
            return "map of " + (values.isObject() ? typeOf(values) : "any");
        }
        if (node.path("x-kubernetes-preserve-unknown-fields").asBoolean() && !node.has("properties")) {
            return "object (free-form)";
        }
        return node.path("type").asText("object");
    }

    private static List<String> requiredOf(JsonNode node) {
        return strings(node.path("required"));
    }

    private static void bound(JsonNode node, String field, String prefix, List<String> out) {
        if (node.has(field)) {
            out.add(prefix + node.path(field).asText());
        }
    }

    private static List<String> strings(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false)
                .map(JsonNode::asText)
                .toList();
    }

    private static String text(JsonNode node) {
        return node.isMissingNode()
                ? ""
                : node.asText().replace("\n", " ").replace("|", "\\|").strip();
    }
}
