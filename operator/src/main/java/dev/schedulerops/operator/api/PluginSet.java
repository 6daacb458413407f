package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class PluginSet {
    @JsonPropertyDescription("Plugins to enable at this extension point, in order, added after the defaults.")
    @Size(max = 64)
    private List<Plugin> enabled;

    @JsonPropertyDescription("Default plugins to disable at this extension point; '*' disables all of them.")
    @Size(max = 64)
    private List<Plugin> disabled;

    public PluginSet() {}

    public PluginSet(List<Plugin> enabled, List<Plugin> disabled) {
        this.enabled = enabled;
        this.disabled = disabled;
    }

    public List<Plugin> getEnabled() {
        return enabled;
    }

    public void setEnabled(List<Plugin> enabled) {
        this.enabled = enabled;
    }

    public List<Plugin> getDisabled() {
        return disabled;
    }

    public void setDisabled(List<Plugin> disabled) {
        this.disabled = disabled;
    }
}
