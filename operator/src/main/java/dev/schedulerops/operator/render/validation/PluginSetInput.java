package dev.schedulerops.operator.render.validation;

import java.util.List;

/** The {@code enabled} and {@code disabled} lists of one extension point; null lists count as empty. */
public record PluginSetInput(List<PluginRef> enabled, List<PluginRef> disabled) {

    public PluginSetInput {
        enabled = enabled == null ? List.of() : List.copyOf(enabled);
        disabled = disabled == null ? List.of() : List.copyOf(disabled);
    }
}
