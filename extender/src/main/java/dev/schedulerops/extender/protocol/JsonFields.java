package dev.schedulerops.extender.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;

/**
 * What every request decoder shares: the streaming parser, the request object's frame (one object, nothing after
 * it), the pod reference and the small readers and errors of single values. Keys are matched case-insensitively, as
 * Go's {@code encoding/json} does.
 */
final class JsonFields {
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .build();
    /**
     * For one value of a request object read on its own ({@link #openAt}): one level less of nesting, since the value
     * is the parser's root here but one level down in the request, so the same bodies pass as when {@link #JSON}
     * reads the whole request.
     */
    private static final JsonFactory VALUE_JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(JSON.streamReadConstraints().getMaxNestingDepth() - 1)
                    .build())
            .build();

    private JsonFields() {}

    /** Reads the fields of a request object; returns with the parser on the object's closing brace. */
    @FunctionalInterface
    interface FieldsReader<T> {
        T read(JsonParser p) throws IOException, BadRequestException;
    }

    /**
     * Opens the request object, lets {@code reader} read its fields and checks that nothing follows it. The fields are
     * checked for presence only afterwards, so a body with trailing data is refused for that first.
     */
    static <T> T readObject(byte[] body, FieldsReader<T> reader) throws BadRequestException {
        try (JsonParser p = open(body)) {
            T fields = reader.read(p);
            expectEnd(p);
            return fields;
        } catch (JsonProcessingException e) {
            throw malformed(e);
        } catch (IOException e) {
            // Reading from a byte array fails only on its content (e.g. Jackson's UTF-32 decoder, which open() keeps
            // out): still the client's fault, never a 5xx.
            throw new BadRequestException("unreadable request body: " + e.getMessage());
        }
    }

    static JsonParser open(byte[] body) throws IOException, BadRequestException {
        requireUtf8(body);
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

    /** A parser over {@code body} from {@code offset} on, for one value inside a body read by other means. */
    static JsonParser openAt(byte[] body, int offset) throws IOException {
        return openAt(body, offset, body.length - offset);
    }

    /** The same over the {@code length} bytes from {@code offset} on. */
    static JsonParser openAt(byte[] body, int offset, int length) throws IOException {
        return VALUE_JSON.createParser(body, offset, length);
    }

    /**
     * Refuses what Jackson would read as UTF-16 or UTF-32: a byte-order mark or a NUL byte among the first four bytes
     * (never valid UTF-8 JSON, whose first non-blank byte is '{'). JSON between systems is UTF-8 (RFC 8259, and
     * kube-scheduler's Go client sends nothing else); the decoders and the replies work on the body's UTF-8 bytes.
     */
    private static void requireUtf8(byte[] body) throws BadRequestException {
        if (body.length >= 2
                && ((body[0] == (byte) 0xFE && body[1] == (byte) 0xFF)
                        || (body[0] == (byte) 0xFF && body[1] == (byte) 0xFE))) {
            throw notUtf8();
        }
        for (int i = 0; i < Math.min(4, body.length); i++) {
            if (body[i] == 0) {
                throw notUtf8();
            }
        }
    }

    private static BadRequestException notUtf8() {
        return new BadRequestException(
                "request body must be JSON in UTF-8 (found a UTF-16/UTF-32 byte-order mark or" + " NUL byte)");
    }

    static void expectEnd(JsonParser p) throws IOException, BadRequestException {
        if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
            throw new BadRequestException("unexpected data after the request object");
        }
    }

    static BadRequestException malformed(JsonProcessingException e) {
        var location = e.getLocation();
        String where =
                location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return new BadRequestException("malformed JSON" + where + ": " + e.getOriginalMessage());
    }

    /** Reads a pod object, keeping namespace, name and uid of its metadata. Returns null for JSON null. */
    static PodRef readPod(JsonParser p, JsonToken token) throws IOException, BadRequestException {
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

    static String readString(JsonParser p, JsonToken token, String path) throws IOException, BadRequestException {
        if (!isStringOrNull(token)) {
            throw notAString(path);
        }
        return token == JsonToken.VALUE_NULL ? null : p.getText();
    }

    static boolean isStringOrNull(JsonToken token) {
        return token == JsonToken.VALUE_STRING || token == JsonToken.VALUE_NULL;
    }

    static void expectObject(JsonToken token, String path) throws BadRequestException {
        if (token != JsonToken.START_OBJECT) {
            throw notAnObject(path);
        }
    }

    static void requireNonEmpty(String value, String path) throws BadRequestException {
        if (value == null || value.isEmpty()) {
            throw required(path);
        }
    }

    static BadRequestException notAString(String path) {
        return new BadRequestException("\"" + path + "\" must be a string");
    }

    static BadRequestException notAnObject(String path) {
        return new BadRequestException("\"" + path + "\" must be an object");
    }

    static BadRequestException required(String path) {
        return new BadRequestException("field \"" + path + "\" is required");
    }

    static String orEmpty(String value) {
        return value == null ? "" : value;
    }
}
