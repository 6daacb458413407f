package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "has(self.proposal) != has(self.explain)",
        message = "give either proposal (preview a SchedulerProfile) or explain (a pod), not both and not neither",
        reason = "FieldValueInvalid")
public class PreviewSpec {
    /** How long a sandbox may run by default, and at most. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 300;

    public static final int MAX_TIMEOUT_SECONDS = 3600;
    public static final int MAX_SAMPLE_PODS = 500;

    @JsonPropertyDescription("The SchedulerProfile as proposed: a change of the live profile of that name, or a new"
            + " one. Validated as a SchedulerProfile is; a proposal the operator would refuse is refused with its"
            + " messages and nothing starts.")
    private PreviewProposal proposal;

    @JsonPropertyDescription("A pod to explain instead: why it is on its node (or not scheduled), from a replay of it"
            + " under its profile as it runs.")
    private ExplainTarget explain;

    @JsonPropertyDescription("Sample pods to place under the proposal, in this order, as new pods; without them the"
            + " profile's current pods are placed again. Only what scheduling reads is used.")
    @Size(max = MAX_SAMPLE_PODS)
    private List<JsonNode> pods;

    @JsonPropertyDescription("Seconds the sandbox may run before the preview fails and the sandbox is removed.")
    @Min(30)
    @Max(MAX_TIMEOUT_SECONDS)
    @Default("" + DEFAULT_TIMEOUT_SECONDS)
    private Integer timeoutSeconds;

    public PreviewProposal getProposal() {
        return proposal;
    }

    public void setProposal(PreviewProposal proposal) {
        this.proposal = proposal;
    }

    public ExplainTarget getExplain() {
        return explain;
    }

    public void setExplain(ExplainTarget explain) {
        this.explain = explain;
    }

    public List<JsonNode> getPods() {
        return pods;
    }

    public void setPods(List<JsonNode> pods) {
        this.pods = pods;
    }

    public Integer getTimeoutSeconds() {
        return timeoutSeconds;
    }

    public void setTimeoutSeconds(Integer timeoutSeconds) {
        this.timeoutSeconds = timeoutSeconds;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class PreviewProposal {
        @JsonPropertyDescription("The SchedulerProfile's metadata.name.")
        @io.fabric8.generator.annotation.Required
        @Size(min = 1, max = 253)
        private String name;

        @JsonPropertyDescription("The SchedulerProfile's spec, as it would be applied.")
        @io.fabric8.generator.annotation.Required
        private SchedulerProfileSpec spec;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public SchedulerProfileSpec getSpec() {
            return spec;
        }

        public void setSpec(SchedulerProfileSpec spec) {
            this.spec = spec;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ExplainTarget {
        @JsonPropertyDescription("The pod's namespace.")
        @io.fabric8.generator.annotation.Required
        @Size(min = 1, max = 63)
        private String namespace;

        @JsonPropertyDescription("The pod's name.")
        @io.fabric8.generator.annotation.Required
        @Size(min = 1, max = 253)
        private String name;

        @JsonPropertyDescription("The SchedulerProfile whose schedulerName the pod names (the kubectl plugin looks it"
                + " up); the explanation replays the pod under it as it runs.")
        @io.fabric8.generator.annotation.Required
        @Size(min = 1, max = 253)
        private String profile;

        public String getProfile() {
            return profile;
        }

        public void setProfile(String profile) {
            this.profile = profile;
        }

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }
    }
}
