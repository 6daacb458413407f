package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.List;
import java.util.Map;

/**
 * Where a component's pods run and what they carry besides the operator's own settings: the fields {@code extender}
 * and {@code scheduler} share, passed to that component's pod template only, as Kubernetes types. The CEL rules say
 * what the API server would otherwise refuse only later, when the operator applies the Deployment; label and
 * annotation syntax is checked by {@code ProfileValidator} (a regex over map keys is beyond a CEL rule's cost budget).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public abstract class PodPlacementSpec {
    /** The prefix of the operator's own label and annotation keys (model.Labels), refused in podLabels/Annotations. */
    public static final String RESERVED_PREFIX = "schedulerops.dev/";

    /** The CEL rule on podLabels: no key the operator sets on its pods. PlacementRulesTest keeps it in step. */
    public static final String POD_LABELS_RULE = "self.all(k, !k.startsWith('" + RESERVED_PREFIX + "') && !(k in"
            + " ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/component',"
            + " 'app.kubernetes.io/part-of', 'app.kubernetes.io/managed-by']))";

    @JsonPropertyDescription("Node labels the pods must match (pod spec nodeSelector).")
    @Size(max = Defaults.MAX_PLACEMENT_ENTRIES)
    private Map<String, String> nodeSelector;

    @JsonPropertyDescription("Tolerations of the pods (pod spec tolerations), e.g. to run on tainted control-plane or"
            + " infrastructure nodes.")
    @Size(max = Defaults.MAX_PLACEMENT_ENTRIES)
    @ValidationRule(
            value = "self.all(t, !has(t.operator) || t.operator in ['Exists', 'Equal'])",
            message = "a toleration's operator must be Exists or Equal")
    @ValidationRule(
            value = "self.all(t, !has(t.effect) || t.effect in ['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
            message = "a toleration's effect must be NoSchedule, PreferNoSchedule, NoExecute or empty (all effects)")
    @ValidationRule(
            value = "self.all(t, (has(t.key) && t.key != '') || (has(t.operator) && t.operator == 'Exists'))",
            message = "a toleration without a key must have operator Exists (it then tolerates every taint)")
    @ValidationRule(
            value = "self.all(t, !has(t.operator) || t.operator != 'Exists' || !has(t.value) || t.value == '')",
            message = "a toleration with operator Exists must have no value")
    @ValidationRule(
            value = "self.all(t, !has(t.tolerationSeconds) || (has(t.effect) && t.effect == 'NoExecute'))",
            message = "tolerationSeconds needs effect NoExecute")
    private List<Toleration> tolerations;

    @JsonPropertyDescription("Node and pod affinity of the pods (pod spec affinity).")
    private Affinity affinity;

    @JsonPropertyDescription("Topology spread constraints of the pods (pod spec topologySpreadConstraints). When set,"
            + " they replace the operator's default spread; a constraint without labelSelector counts this"
            + " component's pods of this profile.")
    @Size(max = 8)
    @ValidationRule(
            value = "self.all(c, has(c.topologyKey) && c.topologyKey != '')",
            message = "every topology spread constraint needs a topologyKey, e.g. kubernetes.io/hostname")
    @ValidationRule(
            value = "self.all(c, has(c.maxSkew) && c.maxSkew >= 1)",
            message = "every topology spread constraint needs maxSkew of at least 1")
    @ValidationRule(
            value = "self.all(c, has(c.whenUnsatisfiable) && c.whenUnsatisfiable in ['DoNotSchedule',"
                    + " 'ScheduleAnyway'])",
            message = "whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway")
    private List<TopologySpreadConstraint> topologySpreadConstraints;

    @JsonPropertyDescription("PriorityClass of the pods. Unset by default; see the README on when a scheduler should be"
            + " system-cluster-critical.")
    @Size(min = 1, max = 253)
    @Pattern(Defaults.SCHEDULER_NAME_PATTERN)
    private String priorityClassName;

    @JsonPropertyDescription("Extra labels of the pods, e.g. a service mesh's opt-out. Keys the operator sets itself"
            + " (app.kubernetes.io/name, instance, component, part-of, managed-by and schedulerops.dev/*) are refused.")
    @Size(max = Defaults.MAX_PLACEMENT_ENTRIES)
    @ValidationRule(
            value = POD_LABELS_RULE,
            message = "podLabels may not set the labels the operator sets itself (app.kubernetes.io/name, instance,"
                    + " component, part-of, managed-by, schedulerops.dev/*)")
    private Map<String, String> podLabels;

    @JsonPropertyDescription("Extra annotations of the pods, e.g. sidecar.istio.io/inject: \"false\". Keys under"
            + " schedulerops.dev/ are the operator's own and refused.")
    @Size(max = Defaults.MAX_PLACEMENT_ENTRIES)
    @ValidationRule(
            value = "self.all(k, !k.startsWith('" + RESERVED_PREFIX + "'))",
            message = "podAnnotations may not use the operator's own prefix schedulerops.dev/")
    private Map<String, String> podAnnotations;

    @JsonPropertyDescription(
            "Secrets in the operator's workload namespace to pull the image with (private or air-gapped registries);"
                    + " the cluster's administrators create them there.")
    @Size(max = 8)
    @ValidationRule(
            value = "self.all(s, has(s.name) && s.name != '')",
            message = "every imagePullSecrets entry needs the name of a Secret")
    private List<LocalObjectReference> imagePullSecrets;

    public Map<String, String> getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(Map<String, String> nodeSelector) {
        this.nodeSelector = nodeSelector;
    }

    public List<Toleration> getTolerations() {
        return tolerations;
    }

    public void setTolerations(List<Toleration> tolerations) {
        this.tolerations = tolerations;
    }

    public Affinity getAffinity() {
        return affinity;
    }

    public void setAffinity(Affinity affinity) {
        this.affinity = affinity;
    }

    public List<TopologySpreadConstraint> getTopologySpreadConstraints() {
        return topologySpreadConstraints;
    }

    public void setTopologySpreadConstraints(List<TopologySpreadConstraint> topologySpreadConstraints) {
        this.topologySpreadConstraints = topologySpreadConstraints;
    }

    public String getPriorityClassName() {
        return priorityClassName;
    }

    public void setPriorityClassName(String priorityClassName) {
        this.priorityClassName = priorityClassName;
    }

    public Map<String, String> getPodLabels() {
        return podLabels;
    }

    public void setPodLabels(Map<String, String> podLabels) {
        this.podLabels = podLabels;
    }

    public Map<String, String> getPodAnnotations() {
        return podAnnotations;
    }

    public void setPodAnnotations(Map<String, String> podAnnotations) {
        this.podAnnotations = podAnnotations;
    }

    public List<LocalObjectReference> getImagePullSecrets() {
        return imagePullSecrets;
    }

    public void setImagePullSecrets(List<LocalObjectReference> imagePullSecrets) {
        this.imagePullSecrets = imagePullSecrets;
    }
}
