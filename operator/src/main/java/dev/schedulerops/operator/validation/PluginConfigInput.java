package dev.schedulerops.operator.validation;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One {@code pluginConfig} entry. {@code args} is the JSON object as plain Java values (Map, List, String, Number,
 * Boolean, null), e.g. from Jackson's {@code convertValue(node, Map.class)}; null means no args.
 */
public record PluginConfigInput(String name, Map<String, Object> args) {

    public PluginConfigInput {
        args = args == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(args));
    }
}
