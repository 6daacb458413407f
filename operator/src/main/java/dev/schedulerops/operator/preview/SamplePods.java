package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the pods a user gives a preview: YAML or JSON, one document or several, a Pod or a List of Pods (what {@code
 * kubectl get pods -o yaml} prints). Anything else is an error naming it.
 */
public final class SamplePods {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private SamplePods() {}

    public static List<JsonNode> read(String source, String text) throws IOException {
        List<JsonNode> pods = new ArrayList<>();
        try (var documents = YAML.readerFor(JsonNode.class).readValues(text)) {
            while (documents.hasNext()) {
                JsonNode doc = (JsonNode) documents.next();
                if (doc == null || doc.isNull() || doc.isMissingNode()) {
                    continue;
                }
                collect(source, doc, pods);
            }
        }
        if (pods.isEmpty()) {
            throw new IOException(source + ": no pod in it");
        }
        return pods;
    }

    /**
     * The pods of a preview request's spec.pods: each entry a Pod or a List of them (what {@code kubectl create
     * --dry-run=client -o json} prints for a file of one or several).
     */
    public static List<JsonNode> flatten(List<JsonNode> entries) throws IOException {
        List<JsonNode> pods = new ArrayList<>();
        for (JsonNode entry : entries) {
            collect("spec.pods", entry, pods);
        }
        return pods;
    }

    private static void collect(String source, JsonNode doc, List<JsonNode> pods) throws IOException {
        String kind = doc.path("kind").asText();
        if (kind.equals("List") || kind.equals("PodList")) {
            for (JsonNode item : doc.path("items")) {
                collect(source, item, pods);
            }
            return;
        }
        if (!kind.equals("Pod")) {
            throw new IOException(source + ": a " + (kind.isEmpty() ? "document without a kind" : kind)
                    + " is not a Pod: give pods (a Pod, several, or a List of them)");
        }
        if (!doc.at("/spec/containers").isArray() || doc.at("/spec/containers").isEmpty()) {
            throw new IOException(
                    source + ": pod " + doc.at("/metadata/name").asText("(unnamed)") + " has no containers");
        }
        pods.add(doc);
    }
}
