package dev.schedulerops.extender.protocol;

import static dev.schedulerops.extender.protocol.JsonFields.expectObject;
import static dev.schedulerops.extender.protocol.JsonFields.isStringOrNull;
import static dev.schedulerops.extender.protocol.JsonFields.notAString;
import static dev.schedulerops.extender.protocol.JsonFields.notAnObject;
import static dev.schedulerops.extender.protocol.JsonFields.readObject;
import static dev.schedulerops.extender.protocol.JsonFields.readPod;
import static dev.schedulerops.extender.protocol.JsonFields.required;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes {@code ExtenderArgs} (filter, filter_onlyone, prioritize): the pod, and either the node objects (only their
 * names and the value of {@code labelKey} are kept; the byte ranges of each node object are remembered so the reply can
 * copy kept nodes verbatim) or the node names.
 */
final class ArgsDecoder {
    private final String labelKey;

    ArgsDecoder(String labelKey) {
        this.labelKey = labelKey;
    }

    /** Decodes {@code ExtenderArgs} (filter, filter_onlyone, prioritize). */
    ExtenderArgs decodeArgs(byte[] body) throws BadRequestException {
        ArgsFields fields = readObject(body, p -> readArgsFields(p, body));
        if (fields.pod() == null) {
            throw new BadRequestException("field \"Pod\" is required");
        }
        if (fields.nodes() != null && fields.names() != null) {
            throw new BadRequestException("set only one of \"Nodes\" and \"NodeNames\"");
        }
        if (fields.nodes() == null && fields.names() == null) {
            throw new BadRequestException("one of \"Nodes\" and \"NodeNames\" is required");
        }
        NodeNameLiterals names = fields.names();
        return names != null
                ? new ExtenderArgs(fields.pod(), null, body, names.ranges(), names.escaped())
                : new ExtenderArgs(
                        fields.pod(), fields.nodes(), body, fields.nodeRanges().toArray(), null);
    }

    private record ArgsFields(PodRef pod, List<NodeItem> nodes, NameRanges nodeRanges, NodeNameLiterals names) {}

    private ArgsFields readArgsFields(JsonParser p, byte[] body) throws IOException, BadRequestException {
        PodRef pod = null;
        List<NodeItem> nodes = null;
        NodeNameLiterals names = null;
        NameRanges nodeRanges = new NameRanges();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equalsIgnoreCase("Pod")) {
                pod = readPod(p, value);
            } else if (field.equalsIgnoreCase("Nodes")) {
                nodeRanges.clear();
                nodes = readNodeList(p, value, nodeRanges);
            } else if (field.equalsIgnoreCase("NodeNames")) {
                names = readNodeNames(p, value, body);
            } else {
                p.skipChildren();
            }
        }
        return new ArgsFields(pod, nodes, nodeRanges, names);
    }

    private List<NodeItem> readNodeList(JsonParser p, JsonToken token, NameRanges ranges)
            throws IOException, BadRequestException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        expectObject(token, "Nodes");
        List<NodeItem> items = new ArrayList<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equalsIgnoreCase("items") && value != JsonToken.VALUE_NULL) {
                if (value != JsonToken.START_ARRAY) {
                    throw new BadRequestException("\"Nodes.items\" must be an array of nodes");
                }
                items.clear();
                ranges.clear();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    items.add(readNode(p, items.size(), ranges));
                }
            } else {
                p.skipChildren();
            }
        }
        return items;
    }

    /** Error paths name the node by its index; they are built only when a request is refused. */
    private NodeItem readNode(JsonParser p, int index, NameRanges ranges) throws IOException, BadRequestException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw notAnObject(nodePath(index, ""));
        }
        int start = (int) p.currentTokenLocation().getByteOffset();
        String name = null;
        int nameStart = 0;
        int nameEnd = 0;
        String labelValue = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equalsIgnoreCase("metadata") && value != JsonToken.VALUE_NULL) {
                if (value != JsonToken.START_OBJECT) {
                    throw notAnObject(nodePath(index, ".metadata"));
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String metaField = p.currentName();
                    JsonToken metaValue = p.nextToken();
                    if (metaField.equalsIgnoreCase("name")) {
                        if (!isStringOrNull(metaValue)) {
                            throw notAString(nodePath(index, ".metadata.name"));
                        }
                        nameStart = (int) p.currentTokenLocation().getByteOffset();
                        name = metaValue == JsonToken.VALUE_NULL ? null : p.getText();
                        nameEnd = (int) p.currentLocation().getByteOffset();
                    } else if (metaField.equalsIgnoreCase("labels")) {
                        labelValue = readLabel(p, metaValue, index);
                    } else {
                        p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
        int end = (int) p.currentTokenLocation().getByteOffset() + 1;
        if (name == null || name.isEmpty()) {
            throw required(nodePath(index, ".metadata.name"));
        }
        ranges.add(nameStart, nameEnd);
        return new NodeItem(name, labelValue, start, end);
    }

    private static String nodePath(int index, String suffix) {
        return "Nodes.items[" + index + "]" + suffix;
    }

    private String readLabel(JsonParser p, JsonToken token, int nodeIndex) throws IOException, BadRequestException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token != JsonToken.START_OBJECT) {
            throw notAnObject(nodePath(nodeIndex, ".metadata.labels"));
        }
        String found = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean wanted = labelKey.equals(p.currentName());
            JsonToken value = p.nextToken();
            if (value != JsonToken.VALUE_STRING && value != JsonToken.VALUE_NULL) {
                throw new BadRequestException(
                        "label values in \"" + nodePath(nodeIndex, ".metadata.labels") + "\" must be strings");
            }
            if (wanted) {
                found = value == JsonToken.VALUE_NULL ? "" : p.getText();
            }
        }
        return found;
    }

    private static NodeNameLiterals readNodeNames(JsonParser p, JsonToken token, byte[] body)
            throws IOException, BadRequestException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token != JsonToken.START_ARRAY) {
            throw NodeNameLiterals.notStrings();
        }
        int open = (int) p.currentTokenLocation().getByteOffset();
        // Jackson checks the array is well-formed without materialising its strings; the scan then only locates them,
        // up to the array's closing bracket (where skipChildren leaves the parser), not the end of the body.
        p.skipChildren();
        int close = (int) p.currentTokenLocation().getByteOffset();
        return NodeNameLiterals.scan(body, open, close + 1);
    }

    /** A growable list of [start, end) pairs. */
    private static final class NameRanges {
        private int[] ranges = new int[64];
        private int size;

        void add(int start, int end) {
            if (size + 2 > ranges.length) {
                ranges = java.util.Arrays.copyOf(ranges, ranges.length * 2);
            }
            ranges[size++] = start;
            ranges[size++] = end;
        }

        void clear() {
            size = 0;
        }

        int[] toArray() {
            return java.util.Arrays.copyOf(ranges, size);
        }
    }
}
