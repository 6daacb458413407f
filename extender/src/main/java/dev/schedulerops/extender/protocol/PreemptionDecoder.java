package dev.schedulerops.extender.protocol;

import static dev.schedulerops.extender.protocol.JsonFields.expectObject;
import static dev.schedulerops.extender.protocol.JsonFields.isStringOrNull;
import static dev.schedulerops.extender.protocol.JsonFields.notAString;
import static dev.schedulerops.extender.protocol.JsonFields.notAnObject;
import static dev.schedulerops.extender.protocol.JsonFields.readObject;
import static dev.schedulerops.extender.protocol.JsonFields.readPod;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Decodes {@code ExtenderPreemptionArgs}, from either full victims or meta victims. */
final class PreemptionDecoder {
    private PreemptionDecoder() {}

    /** Decodes {@code ExtenderPreemptionArgs}, from either full victims or meta victims. */
    static PreemptionArgs decode(byte[] body) throws BadRequestException {
        PreemptionFields fields = readObject(body, PreemptionDecoder::readPreemptionFields);
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
}
