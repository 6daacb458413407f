package dev.schedulerops.operator.validation;

/** One entry of an {@code enabled} or {@code disabled} list: a plugin name and its optional score weight. */
public record PluginRef(String name, Integer weight) {

    public static PluginRef of(String name) {
        return new PluginRef(name, null);
    }
}
