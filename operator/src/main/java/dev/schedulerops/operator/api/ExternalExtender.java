package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * An extender the user runs, called by the generated kube-scheduler after the bundled one: a KubeSchedulerConfiguration
 * extenders[] entry passed through, validated like kube-scheduler validates it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.prioritizeVerb) || has(self.weight)",
        message = "weight is required with prioritizeVerb: kube-scheduler needs a positive weight for the extender's"
                + " scores",
        fieldPath = ".weight",
        reason = "FieldValueRequired")
@ValidationRule(
        value = "!has(self.enableHTTPS) || !self.enableHTTPS || (has(self.tlsConfig)"
                + " && (has(self.tlsConfig.caData) || (has(self.tlsConfig.insecure) && self.tlsConfig.insecure)))",
        message = "enableHTTPS needs tlsConfig.caData (the CA of the extender's certificate); without it"
                + " kube-scheduler would skip verification silently. Set tlsConfig.insecure: true to accept that",
        fieldPath = ".tlsConfig",
        reason = "FieldValueRequired")
@ValidationRule(
        value = "!has(self.tlsConfig) || !has(self.tlsConfig.insecure) || !self.tlsConfig.insecure"
                + " || !has(self.tlsConfig.caData)",
        message = "tlsConfig: insecure and caData exclude each other (kube-scheduler refuses to start with both)",
        fieldPath = ".tlsConfig",
        reason = "FieldValueInvalid")
public class ExternalExtender {
    @JsonPropertyDescription("The extender's base URL; kube-scheduler calls urlPrefix + '/' + verb, e.g."
            + " https://gpu-extender.gpu-system.svc:8443/scheduler.")
    @Required
    @Size(min = 1, max = 2048)
    @Pattern("^https?://[^\\s/]+\\S*$")
    private String urlPrefix;

    @JsonPropertyDescription("The filter call's verb (path after urlPrefix). Unset: not asked to filter.")
    @Size(min = 1, max = 256)
    @Pattern(Defaults.EXTENDER_VERB_PATTERN)
    private String filterVerb;

    @JsonPropertyDescription("The prioritize call's verb. Needs weight.")
    @Size(min = 1, max = 256)
    @Pattern(Defaults.EXTENDER_VERB_PATTERN)
    private String prioritizeVerb;

    @JsonPropertyDescription("The preempt call's verb.")
    @Size(min = 1, max = 256)
    @Pattern(Defaults.EXTENDER_VERB_PATTERN)
    private String preemptVerb;

    @JsonPropertyDescription("The bind call's verb. Only one extender of a profile may bind, the bundled one included.")
    @Size(min = 1, max = 256)
    @Pattern(Defaults.EXTENDER_VERB_PATTERN)
    private String bindVerb;

    @JsonPropertyDescription("Multiplier of the extender's prioritize scores (positive).")
    @Min(1)
    private Long weight;

    @JsonPropertyDescription("Call the extender over HTTPS with tlsConfig. Defaults to false.")
    private Boolean enableHTTPS;

    @JsonPropertyDescription("Verification of the extender's certificate.")
    private ExternalExtenderTls tlsConfig;

    @JsonPropertyDescription("Timeout of one call, a Go duration such as 5s. Unset: kube-scheduler's default (5s).")
    @Pattern(Defaults.DURATION_PATTERN)
    @ValidationRule(value = "duration(self) > duration('0s')", message = "httpTimeout must be positive")
    private String httpTimeout;

    @JsonPropertyDescription("Send node names only, not whole Node objects (the extender keeps its own node cache).")
    private Boolean nodeCacheCapable;

    @JsonPropertyDescription(
            "When true, a failed or unreachable call is skipped instead of failing the pod's" + " scheduling.")
    private Boolean ignorable;

    @JsonPropertyDescription("Extended resources the extender manages; empty means it is asked about every pod. A"
            + " name may be managed by one extender of the profile only.")
    @Size(max = Defaults.MAX_MANAGED_RESOURCES)
    private List<ManagedResource> managedResources;

    public String getUrlPrefix() {
        return urlPrefix;
    }

    public void setUrlPrefix(String urlPrefix) {
        this.urlPrefix = urlPrefix;
    }

    public String getFilterVerb() {
        return filterVerb;
    }

    public void setFilterVerb(String filterVerb) {
        this.filterVerb = filterVerb;
    }

    public String getPrioritizeVerb() {
        return prioritizeVerb;
    }

    public void setPrioritizeVerb(String prioritizeVerb) {
        this.prioritizeVerb = prioritizeVerb;
    }

    public String getPreemptVerb() {
        return preemptVerb;
    }

    public void setPreemptVerb(String preemptVerb) {
        this.preemptVerb = preemptVerb;
    }

    public String getBindVerb() {
        return bindVerb;
    }

    public void setBindVerb(String bindVerb) {
        this.bindVerb = bindVerb;
    }

    public Long getWeight() {
        return weight;
    }

    public void setWeight(Long weight) {
        this.weight = weight;
    }

    public Boolean getEnableHTTPS() {
        return enableHTTPS;
    }

    public void setEnableHTTPS(Boolean enableHTTPS) {
        this.enableHTTPS = enableHTTPS;
    }

    public ExternalExtenderTls getTlsConfig() {
        return tlsConfig;
    }

    public void setTlsConfig(ExternalExtenderTls tlsConfig) {
        this.tlsConfig = tlsConfig;
    }

    public String getHttpTimeout() {
        return httpTimeout;
    }

    public void setHttpTimeout(String httpTimeout) {
        this.httpTimeout = httpTimeout;
    }

    public Boolean getNodeCacheCapable() {
        return nodeCacheCapable;
    }

    public void setNodeCacheCapable(Boolean nodeCacheCapable) {
        this.nodeCacheCapable = nodeCacheCapable;
    }

    public Boolean getIgnorable() {
        return ignorable;
    }

    public void setIgnorable(Boolean ignorable) {
        this.ignorable = ignorable;
    }

    public List<ManagedResource> getManagedResources() {
        return managedResources;
    }

    public void setManagedResources(List<ManagedResource> managedResources) {
        this.managedResources = managedResources;
    }
}
