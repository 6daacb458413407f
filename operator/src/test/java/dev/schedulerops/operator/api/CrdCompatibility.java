package dev.schedulerops.operator.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the changes between a released CRD and the one the build generates that would break a user of the released
 * version, the way Flink's operator checks its CRDs: a removed field or version, a narrowed type, a new required field,
 * a tightened validation (bounds, lengths, enums, patterns, formats, CEL rules, nullability), a changed default, or a
 * changed scope or name. Additions (a new optional field, a looser bound, a new enum value) pass.
 */
final class CrdCompatibility {
    private CrdCompatibility() {}

    /** Every breaking change from {@code released} to {@code current} (both whole CRDs), as "path: what changed". */
    static List<String> breakingChanges(JsonNode released, JsonNode current) {
        List<String> problems = new ArrayList<>();
        for (String field : List.of("/spec/group", "/spec/scope", "/spec/names/kind", "/spec/names/plural")) {
            if (!released.at(field).equals(current.at(field))) {
                problems.add(field + ": changed from " + released.at(field) + " to " + current.at(field));
            }
        }
        for (JsonNode version : released.at("/spec/versions")) {
            String name = version.path("name").asText();
            JsonNode now = versionNamed(current, name);
            if (now == null || !now.path("served").asBoolean()) {
                problems.add("version " + name + ": no longer served");
                continue;
            }
            compare(
                    "version " + name + " ",
                    version.at("/schema/openAPIV3Schema"),
                    now.at("/schema/openAPIV3Schema"),
                    problems);
            if (!version.at("/subresources").equals(now.at("/subresources"))) {
                problems.add("version " + name + " subresources: changed");
            }
        }
        return problems;
    }

    private static JsonNode versionNamed(JsonNode crd, String name) {
        for (JsonNode version : crd.at("/spec/versions")) {
            if (version.path("name").asText().equals(name)) {
                return version;
            }
        }
        return null;
    }

    private static void compare(String path, JsonNode old, JsonNode now, List<String> problems) {
        String at = path.isBlank() ? "." : path;
        if (old.has("type") && !old.path("type").equals(now.path("type"))) {
            problems.add(at + ": type changed from " + old.path("type") + " to " + now.path("type"));
            return;
        }
        if (old.path("x-kubernetes-int-or-string").asBoolean()
                && !now.path("x-kubernetes-int-or-string").asBoolean()) {
            problems.add(at + ": no longer int-or-string");
        }
        if (old.path("x-kubernetes-preserve-unknown-fields").asBoolean()
                && !now.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
            problems.add(at + ": unknown fields are no longer preserved");
        }
        if (old.path("nullable").asBoolean() && !now.path("nullable").asBoolean()) {
            problems.add(at + ": no longer nullable");
        }
        if (!old.path("default").equals(now.path("default"))) {
            problems.add(at + ": default changed from " + old.path("default") + " to " + now.path("default"));
        }
        for (String field : List.of("pattern", "format", "x-kubernetes-list-type", "x-kubernetes-map-type")) {
            if (now.has(field) && !now.path(field).equals(old.path(field))) {
                problems.add(at + ": " + field + " " + (old.has(field) ? "changed from " + old.path(field) : "added")
                        + " to " + now.path(field));
            }
        }
        for (String field : List.of("minimum", "minLength", "minItems", "minProperties")) {
            if (tightened(old.path(field), now.path(field), true)) {
                problems.add(at + ": " + field + " raised from " + shown(old.path(field)) + " to " + now.path(field));
            }
        }
        for (String field : List.of("maximum", "maxLength", "maxItems", "maxProperties")) {
            if (tightened(old.path(field), now.path(field), false)) {
                problems.add(at + ": " + field + " lowered from " + shown(old.path(field)) + " to " + now.path(field));
            }
        }
        for (String field : List.of("exclusiveMinimum", "exclusiveMaximum")) {
            if (now.path(field).asBoolean() && !old.path(field).asBoolean()) {
                problems.add(at + ": " + field + " added");
            }
        }
        if (now.has("enum")) {
            Set<JsonNode> allowed = new HashSet<>();
            now.path("enum").forEach(allowed::add);
            if (!old.has("enum")) {
                problems.add(at + ": enum added " + now.path("enum"));
            } else {
                old.path("enum").forEach(value -> {
                    if (!allowed.contains(value)) {
                        problems.add(at + ": enum value " + value + " removed");
                    }
                });
            }
        }
        Set<String> oldRules = new HashSet<>();
        old.path("x-kubernetes-validations")
                .forEach(rule -> oldRules.add(rule.path("rule").asText()));
        now.path("x-kubernetes-validations").forEach(rule -> {
            if (!oldRules.contains(rule.path("rule").asText())) {
                problems.add(at + ": new validation rule " + rule.path("rule").asText());
            }
        });
        Set<String> oldRequired = new HashSet<>();
        old.path("required").forEach(name -> oldRequired.add(name.asText()));
        now.path("required").forEach(name -> {
            if (!oldRequired.contains(name.asText())) {
                problems.add(at + ": " + name.asText() + " is newly required");
            }
        });
        for (Iterator<Map.Entry<String, JsonNode>> it = old.path("properties").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> property = it.next();
            JsonNode counterpart = now.path("properties").path(property.getKey());
            String child = path + "." + property.getKey();
            if (counterpart.isMissingNode()) {
                if (!now.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
                    problems.add(child.strip() + ": removed");
                }
                continue;
            }
            compare(child, property.getValue(), counterpart, problems);
        }
        if (old.has("items")) {
            compare(path + "[]", old.path("items"), now.path("items"), problems);
        }
        JsonNode oldAdditional = old.path("additionalProperties");
        JsonNode nowAdditional = now.path("additionalProperties");
        if (oldAdditional.isObject() && nowAdditional.isObject()) {
            compare(path + ".*", oldAdditional, nowAdditional, problems);
        } else if (oldAdditional.isObject() || oldAdditional.asBoolean(false)) {
            if (!nowAdditional.isObject() && !nowAdditional.asBoolean(false)) {
                problems.add(at + ": additional properties no longer allowed");
            }
        }
    }

    /** Whether the bound {@code now} is stricter than {@code old} (or a new bound where there was none). */
    private static boolean tightened(JsonNode old, JsonNode now, boolean lower) {
        if (now.isMissingNode() || now.isNull()) {
            return false;
        }
        if (old.isMissingNode() || old.isNull()) {
            return true;
        }
        int order = new BigDecimal(now.asText()).compareTo(new BigDecimal(old.asText()));
        return lower ? order > 0 : order < 0;
    }

    private static String shown(JsonNode bound) {
        return bound.isMissingNode() ? "none" : bound.toString();
    }
}
