package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class Plugin {
    @JsonPropertyDescription("The plugin's name, e.g. NodeResourcesFit; '*' (in disabled) means all plugins.")
    @Required
    @Size(min = 1, max = 253)
    @Pattern("^(\\*|[A-Za-z][A-Za-z0-9_.-]*)$")
    private String name;

    @JsonPropertyDescription("Weight of a score plugin; unset or 0 keeps the plugin's default weight.")
    @Min(0)
    private Integer weight;

    public Plugin() {}

    public Plugin(String name, Integer weight) {
        this.name = name;
        this.weight = weight;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public Integer getWeight() {
        return weight;
    }

    public void setWeight(Integer weight) {
        this.weight = weight;
    }
}
