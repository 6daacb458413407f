package dev.schedulerops.extender.nodecache;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The nodes that carry the label, as one consistent read of the API server saw them.
 *
 * @param version the read's resource version: the state of every node as of that version
 * @param nodes node name → its label value and the version of that state
 */
public record LabelledNodes(long version, Map<String, Node> nodes) {
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .build();

    /** A node's label value and the resource version of the node's state that carries it. */
    public record Node(String value, long version) {}

    /** One page of a list: its version, the token of the next page (null on the last) and its nodes. */
    record Page(long version, String next, Map<String, Node> nodes) {}

    /**
     * Reads a page of a node list (a {@code NodeList} or {@code PartialObjectMetadataList}) keeping, per item, only the
     * name, the resource version and the value of {@code labelKey}; everything else is skipped token by token.
     */
    static Page parsePage(byte[] json, String labelKey) throws IOException {
        long version = ResourceVersion.UNKNOWN;
        String next = null;
        Map<String, Node> nodes = new HashMap<>();
        try (JsonParser p = JSON.createParser(json)) {
            expect(p.nextToken(), JsonToken.START_OBJECT, p);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("metadata") && value == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String meta = p.currentName();
                        p.nextToken();
                        if (meta.equals("resourceVersion")) {
                            version = ResourceVersion.parse(p.getValueAsString());
                        } else if (meta.equals("continue")) {
                            String token = p.getValueAsString();
                            next = token == null || token.isEmpty() ? null : token;
                        } else {
                            p.skipChildren();
                        }
                    }
                } else if (field.equals("items") && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        readItem(p, labelKey, nodes);
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        return new Page(version, next, nodes);
    }

    private static void readItem(JsonParser p, String labelKey, Map<String, Node> nodes) throws IOException {
        String name = null;
        String version = null;
        String value = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken token = p.nextToken();
            if (!field.equals("metadata") || token != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String meta = p.currentName();
                JsonToken metaToken = p.nextToken();
                switch (meta) {
                    case "name" -> name = p.getValueAsString();
                    case "resourceVersion" -> version = p.getValueAsString();
                    case "labels" -> {
                        if (metaToken != JsonToken.START_OBJECT) {
                            p.skipChildren();
                            break;
                        }
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String key = p.currentName();
                            p.nextToken();
                            if (key.equals(labelKey)) {
                                value = p.getValueAsString();
                            } else {
                                p.skipChildren();
                            }
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        }
        // The list asked for nodes with the label; one without it (a server that ignored the selector) is not listed.
        if (name != null && value != null) {
            nodes.put(name, new Node(value, ResourceVersion.parse(version)));
        }
    }

    private static void expect(JsonToken actual, JsonToken expected, JsonParser p) throws IOException {
        if (actual != expected) {
            throw new IOException("expected " + expected + " at the start of a node list, got " + actual + " at "
                    + p.currentLocation());
        }
    }
}
