package dev.schedulerops.operator.validation;

import java.util.List;

/** The {@code enabled} and {@code disabled} lists of one extension point; null lists count as empty. */
public record PluginSetInput(List<PluginRef> enabled, List<PluginRef> disabled) {

    /** No plugins enabled or disabled: what an unset extension point means. */
    public static final PluginSetInput EMPTY = new PluginSetInput(null, null);

    public PluginSetInput {
        enabled = enabled == null ? List.of() : List.copyOf(enabled);
        disabled = disabled == null ? List.of() : List.copyOf(disabled);
    }
}
