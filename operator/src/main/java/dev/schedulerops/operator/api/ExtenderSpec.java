package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class ExtenderSpec extends PodPlacementSpec {
    @JsonPropertyDescription("Number of extender pods. Defaults to 2; a PodDisruptionBudget is created above 1.")
    @Min(Defaults.MIN_EXTENDER_REPLICAS)
    @Max(Defaults.MAX_EXTENDER_REPLICAS)
    @Default("" + Defaults.EXTENDER_REPLICAS)
    private Integer replicas;

    @JsonPropertyDescription("The extender image. Defaults to the bundled extender of the operator's own version. Must"
            + " be in a repository the operator's installation allows (operator setting"
            + " SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES), else the profile is refused with reason ImageNotAllowed;"
            + " pinning by digest (repository@sha256:...) is recommended.")
    @Size(min = 1, max = 512)
    @Pattern("^\\S+$")
    private String image;

    @JsonPropertyDescription("Compute resources of the extender container. Defaults to requests of 100m CPU and"
            + " 256Mi memory and a 512Mi memory limit.")
    private ResourceRequirements resources;

    @JsonPropertyDescription("When true (the default) kube-scheduler sends only node names and the extender keeps its"
            + " own node cache (watching Nodes): far less JSON per call, and it avoids kube-scheduler 1.33's loss of"
            + " node information for nodes an extender filter passes on.")
    @Default("" + Defaults.NODE_CACHE_CAPABLE)
    private Boolean nodeCacheCapable;

    @JsonPropertyDescription("When true, scheduling goes on without the extender when it is unreachable or fails;"
            + " when false (the default) pods stay Pending until it answers.")
    @Default("" + Defaults.IGNORABLE)
    private Boolean ignorable;

    @JsonPropertyDescription("Timeout of one extender call, a Go duration such as 5s. Defaults to 5s.")
    @Pattern(Defaults.DURATION_PATTERN)
    @Default(Defaults.HTTP_TIMEOUT)
    @ValidationRule(value = "duration(self) > duration('0s')", message = "httpTimeout must be positive")
    private String httpTimeout;

    @JsonPropertyDescription("Extended resources the extender manages. Empty means the extender is asked about"
            + " every pod of this scheduler.")
    @Size(max = Defaults.MAX_MANAGED_RESOURCES)
    private List<ManagedResource> managedResources;

    @JsonPropertyDescription("TLS between kube-scheduler and the extender. Defaults to mode Mutual.")
    private TlsSpec tls;

    @JsonPropertyDescription("The extender JVM's heap size and extra options (JAVA_TOOL_OPTIONS).")
    private JvmSpec jvm;

    @JsonPropertyDescription("Who may scrape the extender's health and metrics port (8081, plain HTTP, no verb), as"
            + " NetworkPolicy peers, e.g. your Prometheus's namespace. Unset or empty: no pod (the kubelet's probes"
            + " come from the node, which network plugins admit whatever the policy says); [{namespaceSelector: {}}]"
            + " admits every pod, as before. The verb port admits only this profile's scheduler pods whatever this"
            + " says.")
    @Size(max = 32)
    private List<NetworkPolicyPeer> metricsFrom;

    public Integer getReplicas() {
        return replicas;
    }

    public void setReplicas(Integer replicas) {
        this.replicas = replicas;
    }

    public String getImage() {
        return image;
    }

    public void setImage(String image) {
        this.image = image;
    }

    public ResourceRequirements getResources() {
        return resources;
    }

    public void setResources(ResourceRequirements resources) {
        this.resources = resources;
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

    public String getHttpTimeout() {
        return httpTimeout;
    }

    public void setHttpTimeout(String httpTimeout) {
        this.httpTimeout = httpTimeout;
    }

    public List<ManagedResource> getManagedResources() {
        return managedResources;
    }

    public void setManagedResources(List<ManagedResource> managedResources) {
        this.managedResources = managedResources;
    }

    public JvmSpec getJvm() {
        return jvm;
    }

    public void setJvm(JvmSpec jvm) {
        this.jvm = jvm;
    }

    public TlsSpec getTls() {
        return tls;
    }

    public void setTls(TlsSpec tls) {
        this.tls = tls;
    }

    public List<NetworkPolicyPeer> getMetricsFrom() {
        return metricsFrom;
    }

    public void setMetricsFrom(List<NetworkPolicyPeer> metricsFrom) {
        this.metricsFrom = metricsFrom;
    }
}
