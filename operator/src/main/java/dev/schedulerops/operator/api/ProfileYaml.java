package dev.schedulerops.operator.api;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
        if (e instanceof com.fasterxml.jackson.databind.JsonMappingException mapping
                && !mapping.getPath().isEmpty()) {
            return "field \"" + path(mapping) + "\": " + e.getOriginalMessage().split("\n")[0];
        }
        JsonLocation location = e.getLocation();
        String at = location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return e.getOriginalMessage().split("\n")[0] + at;
    }

    private static String path(com.fasterxml.jackson.databind.JsonMappingException e) {
        return e.getPath().stream()
                .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining("."))
                .replace(".[", "[");
    }
}
