package dev.schedulerops.extender.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Streaming decoder of the extender v1 requests. It walks the body token by token with Jackson's {@link JsonParser},
 * keeps only the fields a verb needs and skips everything else (pod specs, node status, images) without building
 * objects.
 *
 * <p>Keys are matched case-insensitively, as Go's {@code encoding/json} does; label keys inside {@code labels} are
 * map keys and match exactly. A JSON {@code null} where an object or list is expected means "absent", as in Go.
 */
public final class RequestDecoder {
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .build();

    private final String labelKey;

    public RequestDecoder(String labelKey) {
        this.labelKey = labelKey;
    }

    /** Decodes {@code ExtenderArgs} (filter, filter_onlyone, prioritize). */
    public ExtenderArgs decodeArgs(byte[] body) throws BadRequestException {
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

    /** Decodes {@code ExtenderBindingArgs}. */
    public BindingArgs decodeBinding(byte[] body) throws BadRequestException {
        BindingArgs fields = readObject(body, RequestDecoder::readBindingFields);
        requireNonEmpty(fields.podName(), "PodName");
        requireNonEmpty(fields.podNamespace(), "PodNamespace");
        requireNonEmpty(fields.node(), "Node");
        return fields.podUid() != null
                ? fields
                : new BindingArgs(fields.podName(), fields.podNamespace(), "", fields.node());
    }

    /** The binding fields as sent: any of them may be null. */
    private static BindingArgs readBindingFields(JsonParser p) throws IOException, BadRequestException {
        String podName = null;
        String podNamespace = null;
        String podUid = null;
        String node = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equalsIgnoreCase("PodName")) {
                podName = readString(p, value, "PodName");
            } else if (field.equalsIgnoreCase("PodNamespace")) {
                podNamespace = readString(p, value, "PodNamespace");
            } else if (field.equalsIgnoreCase("PodUID")) {
                podUid = readString(p, value, "PodUID");
            } else if (field.equalsIgnoreCase("Node")) {
                node = readString(p, value, "Node");
            } else {
                p.skipChildren();
            }
        }
        return new BindingArgs(podName, podNamespace, podUid, node);
    }

    /** Decodes {@code ExtenderPreemptionArgs}, from either full victims or meta victims. */
    public PreemptionArgs decodePreemption(byte[] body) throws BadRequestException {
        PreemptionFields fields = readObject(body, RequestDecoder::readPreemptionFields);
        if (fields.pod() == null) {
            throw new BadRequestException("field \"Pod\" is required");
        }
        if (fields.victims() != null && fields.metaVictims() != null) {
            throw new BadRequestException("set only one of \"NodeNameToVictims\" and \"NodeNameToMetaVictims\"");
        }
        Map<String, PreemptionArgs.MetaVictims> candidates =
                fields.metaVictims() != null ? fields.metaVictims() : fields.victims();
        return new PreemptionArgs(fields.pod(), candidates == null ? Map.of() : candidates);
    }

    private record PreemptionFields(
            PodRef pod,
            Map<String, PreemptionArgs.MetaVictims> victims,
            Map<String, PreemptionArgs.MetaVictims> metaVictims) {}

    private static PreemptionFields readPreemptionFields(JsonParser p) throws IOException, BadRequestException {
        PodRef pod = null;
        Map<String, PreemptionArgs.MetaVictims> victims = null;
        Map<String, PreemptionArgs.MetaVictims> metaVictims = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equalsIgnoreCase("Pod")) {
                pod = readPod(p, value);
            } else if (field.equalsIgnoreCase("NodeNameToVictims")) {
                victims = readVictimsMap(p, value, "NodeNameToVictims");
            } else if (field.equalsIgnoreCase("NodeNameToMetaVictims")) {
                metaVictims = readVictimsMap(p, value, "NodeNameToMetaVictims");
            } else {
                p.skipChildren();
            }
        }
        return new PreemptionFields(pod, victims, metaVictims);
    }

    /** Reads the fields of a request object; returns with the parser on the object's closing brace. */
    @FunctionalInterface
    private interface FieldsReader<T> {
        T read(JsonParser p) throws IOException, BadRequestException;
    }

    /**
     * Opens the request object, lets {@code reader} read its fields and checks that nothing follows it. The fields are
     * checked for presence only afterwards, so a body with trailing data is refused for that first.
     */
    private static <T> T readObject(byte[] body, FieldsReader<T> reader) throws BadRequestException {
        try (JsonParser p = open(body)) {
            T fields = reader.read(p);
            expectEnd(p);
            return fields;
        } catch (JsonProcessingException e) {
            throw malformed(e);
        } catch (IOException e) {
            throw new IllegalStateException("reading from a byte array cannot fail", e);
        }
    }

    private static JsonParser open(byte[] body) throws IOException, BadRequestException {
        JsonParser p = JSON.createParser(body);
        JsonToken first = p.nextToken();
        if (first == null) {
            throw new BadRequestException("request body is empty");
        }
        if (first != JsonToken.START_OBJECT) {
            throw new BadRequestException("request body must be a JSON object");
        }
        return p;
    }

    private static void expectEnd(JsonParser p) throws IOException, BadRequestException {
        if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
            throw new BadRequestException("unexpected data after the request object");
        }
    }

    private static BadRequestException malformed(JsonProcessingException e) {
        var location = e.getLocation();
        String where =
                location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return new BadRequestException("malformed JSON" + where + ": " + e.getOriginalMessage());
    }

    /** Reads a pod object, keeping namespace, name and uid of its metadata. Returns null for JSON null. */
    private static PodRef readPod(JsonParser p, JsonToken token) throws IOException, BadRequestException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        expectObject(token, "Pod");
        String namespace = "";
        String name = "";
        String uid = "";
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equalsIgnoreCase("metadata") && value != JsonToken.VALUE_NULL) {
                expectObject(value, "Pod.metadata");
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String metaField = p.currentName();
                    JsonToken metaValue = p.nextToken();
                    if (metaField.equalsIgnoreCase("namespace")) {
                        namespace = orEmpty(readString(p, metaValue, "Pod.metadata.namespace"));
                    } else if (metaField.equalsIgnoreCase("name")) {
                        name = orEmpty(readString(p, metaValue, "Pod.metadata.name"));
                    } else if (metaField.equalsIgnoreCase("uid")) {
                        uid = orEmpty(readString(p, metaValue, "Pod.metadata.uid"));
                    } else {
                        p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
        return new PodRef(namespace, name, uid);
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

    private static Map<String, PreemptionArgs.MetaVictims> readVictimsMap(JsonParser p, JsonToken token, String path)
            throws IOException, BadRequestException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        expectObject(token, path);
        Map<String, PreemptionArgs.MetaVictims> result = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String node = p.currentName();
            JsonToken value = p.nextToken();
            if (value == JsonToken.VALUE_NULL) {
                result.put(node, new PreemptionArgs.MetaVictims(List.of(), 0));
                continue;
            }
            if (value != JsonToken.START_OBJECT) {
                throw notAnObject(victimsPath(path, node, ""));
            }
            List<String> uids = List.of();
            long pdbViolations = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken fieldValue = p.nextToken();
                if (field.equalsIgnoreCase("Pods")) {
                    uids = readVictimUids(p, fieldValue, path, node);
                } else if (field.equalsIgnoreCase("NumPDBViolations")) {
                    if (fieldValue == JsonToken.VALUE_NULL) {
                        continue;
                    }
                    if (fieldValue != JsonToken.VALUE_NUMBER_INT) {
                        throw new BadRequestException(
                                "\"" + victimsPath(path, node, ".NumPDBViolations") + "\" must be an integer");
                    }
                    pdbViolations = p.getLongValue();
                } else {
                    p.skipChildren();
                }
            }
            result.put(node, new PreemptionArgs.MetaVictims(uids, pdbViolations));
        }
        return result;
    }

    /** {@code NodeNameToVictims["node"]} and what follows it, for error messages only. */
    private static String victimsPath(String map, String node, String suffix) {
        return map + "[\"" + node + "\"]" + suffix;
    }

    /**
     * Reads the UIDs of the victims list of candidate {@code node} in the victims map {@code map}, whose items are
     * either full pods or {@code {"UID": ...}} meta pods. Error paths are built only when a request is refused.
     */
    private static List<String> readVictimUids(JsonParser p, JsonToken token, String map, String node)
            throws IOException, BadRequestException {
        if (token == JsonToken.VALUE_NULL) {
            return List.of();
        }
        if (token != JsonToken.START_ARRAY) {
            throw new BadRequestException("\"" + victimsPath(map, node, ".Pods") + "\" must be an array");
        }
        List<String> uids = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == JsonToken.VALUE_NULL) {
                continue;
            }
            int item = uids.size();
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw notAnObject(victimsPath(map, node, ".Pods[" + item + "]"));
            }
            String uid = "";
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equalsIgnoreCase("UID")) {
                    if (!isStringOrNull(value)) {
                        throw notAString(victimsPath(map, node, ".Pods[" + item + "].UID"));
                    }
                    uid = value == JsonToken.VALUE_NULL ? "" : p.getText();
                } else if (field.equalsIgnoreCase("metadata") && value != JsonToken.VALUE_NULL) {
                    if (value != JsonToken.START_OBJECT) {
                        throw notAnObject(victimsPath(map, node, ".Pods[" + item + "].metadata"));
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String metaField = p.currentName();
                        JsonToken metaValue = p.nextToken();
                        if (metaField.equalsIgnoreCase("uid")) {
                            if (!isStringOrNull(metaValue)) {
                                throw notAString(victimsPath(map, node, ".Pods[" + item + "].metadata.uid"));
                            }
                            uid = metaValue == JsonToken.VALUE_NULL ? "" : p.getText();
                        } else {
                            p.skipChildren();
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
            uids.add(uid);
        }
        return uids;
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

    private static String readString(JsonParser p, JsonToken token, String path)
            throws IOException, BadRequestException {
        if (!isStringOrNull(token)) {
            throw notAString(path);
        }
        return token == JsonToken.VALUE_NULL ? null : p.getText();
    }

    private static boolean isStringOrNull(JsonToken token) {
        return token == JsonToken.VALUE_STRING || token == JsonToken.VALUE_NULL;
    }

    private static void expectObject(JsonToken token, String path) throws BadRequestException {
        if (token != JsonToken.START_OBJECT) {
            throw notAnObject(path);
        }
    }

    private static void requireNonEmpty(String value, String path) throws BadRequestException {
        if (value == null || value.isEmpty()) {
            throw required(path);
        }
    }

    private static BadRequestException notAString(String path) {
        return new BadRequestException("\"" + path + "\" must be a string");
    }

    private static BadRequestException notAnObject(String path) {
        return new BadRequestException("\"" + path + "\" must be an object");
    }

    private static BadRequestException required(String path) {
        return new BadRequestException("field \"" + path + "\" is required");
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }
}
