package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class PluginConfig {
    @JsonPropertyDescription("The plugin these arguments are for.")
    @Required
    @Size(min = 1, max = 253)
    private String name;

    @JsonPropertyDescription("The plugin's arguments, e.g. NodeResourcesFitArgs without apiVersion/kind. For in-tree"
            + " plugins they are validated against the args type of the target Kubernetes version.")
    @PreserveUnknownFields
    private JsonNode args;

    public PluginConfig() {}

    public PluginConfig(String name, JsonNode args) {
        this.name = name;
        this.args = args;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public JsonNode getArgs() {
        return args;
    }

    public void setArgs(JsonNode args) {
        this.args = args;
    }
}
