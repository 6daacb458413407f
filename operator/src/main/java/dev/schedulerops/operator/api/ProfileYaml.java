package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads SchedulerProfiles from YAML files (one or many documents), strictly: an unknown field is an error, as a typo
 * would otherwise silently fall back to a default.
 */
public final class ProfileYaml {
    private static final ObjectMapper MAPPER = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    private ProfileYaml() {}

    /** A file that cannot be read as SchedulerProfiles, with every problem found. */
    public static final class InvalidProfileFileException extends IOException {
        private final List<String> problems;

        InvalidProfileFileException(List<String> problems) {
            super(String.join("\n", problems));
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }

    public static List<SchedulerProfile> readAll(Path file) throws IOException {
        return readAll(file.toString(), Files.readString(file));
    }

    public static SchedulerProfile readOne(String yaml) throws IOException {
        List<SchedulerProfile> profiles = readAll("<string>", yaml);
        if (profiles.size() != 1) {
            throw new InvalidProfileFileException(List.of("expected one SchedulerProfile, found " + profiles.size()));
        }
        return profiles.get(0);
    }

    public static List<SchedulerProfile> readAll(String source, String yaml) throws IOException {
        List<SchedulerProfile> profiles = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<JsonNode> documents;
        try (Reader reader = new StringReader(yaml);
                MappingIterator<JsonNode> it = MAPPER.readerFor(JsonNode.class).readValues(reader)) {
            documents = it.readAll();
        } catch (JsonProcessingException e) {
            throw new InvalidProfileFileException(List.of(source + ": not valid YAML: " + describe(e)));
        }
        int index = 0;
        for (JsonNode document : documents) {
            index++;
            if (document == null || document.isNull() || document.isMissingNode() || document.isEmpty()) {
                continue;
            }
            String where = source + " (document " + index + ")";
            String apiVersion = document.path("apiVersion").asText("");
            String kind = document.path("kind").asText("");
            if (!SchedulerProfile.KIND.equals(kind) || !SchedulerProfile.API_VERSION.equals(apiVersion)) {
                problems.add(where + ": expected apiVersion " + SchedulerProfile.API_VERSION + " and kind "
                        + SchedulerProfile.KIND + ", found \"" + apiVersion + "\" \"" + kind + "\"");
                continue;
            }
            try {
                profiles.add(MAPPER.treeToValue(document, SchedulerProfile.class));
            } catch (JsonProcessingException e) {
                problems.add(where + ": " + describe(e));
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidProfileFileException(problems);
        }
        if (profiles.isEmpty()) {
            throw new InvalidProfileFileException(List.of(source + ": no SchedulerProfile found"));
        }
        return profiles;
    }

    private static String describe(JsonProcessingException e) {
        if (e instanceof UnrecognizedPropertyException unknown) {
            return "unknown field \"" + path(unknown) + "\"";
        }
        if (e instanceof MismatchedInputException mismatch
                && mismatch.getTargetType() != null
                && !mismatch.getPath().isEmpty()) {
            return "field \"" + path(mismatch) + "\": must be " + expected(mismatch.getTargetType()) + found(mismatch);
        }
        if (e instanceof com.fasterxml.jackson.databind.JsonMappingException mapping
                && !mapping.getPath().isEmpty()) {
            return "field \"" + path(mapping) + "\": " + e.getOriginalMessage().split("\n")[0];
        }
        JsonLocation location = e.getLocation();
        String at = location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return e.getOriginalMessage().split("\n")[0] + at;
    }

    /** The expected type in the words of a YAML author, not Java's: found by ProfileFuzzTest. */
    private static String expected(Class<?> type) {
        if (type.isEnum()) {
            return "one of "
                    + Arrays.stream(type.getEnumConstants())
                            .map(constant -> wireName((Enum<?>) constant))
                            .collect(Collectors.joining(", "));
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "an integer";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a list";
        }
        return "an object";
    }

    /** The name an enum constant has in YAML: its {@code @JsonProperty}, else its Java name. */
    private static String wireName(Enum<?> constant) {
        try {
            JsonProperty property =
                    constant.getDeclaringClass().getField(constant.name()).getAnnotation(JsonProperty.class);
            return property != null && !property.value().isEmpty() ? property.value() : constant.name();
        } catch (NoSuchFieldException e) {
            return constant.name();
        }
    }

    /** What was found instead, when Jackson says: a value (cut), or the kind of node. */
    private static String found(MismatchedInputException e) {
        if (e instanceof InvalidFormatException format && format.getValue() != null) {
            String value = String.valueOf(format.getValue());
            return ", found \"" + (value.length() > 60 ? value.substring(0, 60) + "..." : value) + "\"";
        }
        String message = e.getOriginalMessage();
        int from = message.indexOf(" from ");
        if (from < 0) {
            return "";
        }
        String rest = message.substring(from + 6);
        int end = rest.length();
        for (String stop : new String[] {" (", ":", "\n"}) {
            int i = rest.indexOf(stop);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        String what = rest.substring(0, end).trim();
        if (what.isEmpty() || what.contains("`") || what.length() > 80) {
            return "";
        }
        return ", found " + what.replace(" value", "").toLowerCase(java.util.Locale.ROOT);
    }

    /** Longer path segments (map keys are the user's) are cut: a message must stay readable (found by ProfileFuzzTest). */
    private static final int MAX_SEGMENT = 63;

    private static String path(com.fasterxml.jackson.databind.JsonMappingException e) {
        return e.getPath().stream()
                .map(ref -> ref.getFieldName() != null ? cut(ref.getFieldName()) : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining("."))
                .replace(".[", "[");
    }

    private static String cut(String segment) {
        return segment.length() <= MAX_SEGMENT
                ? segment
                : segment.substring(0, MAX_SEGMENT) + "... (" + segment.length() + " characters)";
    }
}
