package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class ManagedResource {
    @JsonPropertyDescription("Extended resource name, e.g. example.com/foo.")
    @Required
    @Size(min = 1, max = 317)
    @Pattern(Defaults.LABEL_KEY_PATTERN)
    private String name;

    @JsonPropertyDescription("When true, kube-scheduler ignores this resource in its own fit checks.")
    private Boolean ignoredByScheduler;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public Boolean getIgnoredByScheduler() {
        return ignoredByScheduler;
    }

    public void setIgnoredByScheduler(Boolean ignoredByScheduler) {
        this.ignoredByScheduler = ignoredByScheduler;
    }
}
