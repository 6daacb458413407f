package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class SchedulerProfileStatus {
    @JsonPropertyDescription("The metadata.generation this status describes.")
    private Long observedGeneration;

    @JsonPropertyDescription("Ready, ExtenderAvailable, SchedulerAvailable and ConfigValid (False with reason"
            + " InvalidConfig, SchedulerNameConflict, ImageNotAllowed, ProtectedNamespace or"
            + " UnsupportedKubernetesVersion when the spec"
            + " cannot be rolled out); Ready=False WaitingForRolloutSlot while its turn to restart its pods has not"
            + " come.")
    private List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("The schedulerName pods use to select this profile.")
    private String schedulerName;

    @JsonPropertyDescription("The kube-scheduler image in use (the cluster's own version unless pinned).")
    private String schedulerImage;

    @JsonPropertyDescription("The extender image in use.")
    private String extenderImage;

    @JsonPropertyDescription("Hash of the rendered KubeSchedulerConfiguration; the scheduler pods carry it.")
    private String configHash;

    @JsonPropertyDescription("How many nodes carry spec.labelKey.")
    private Integer labelledNodes;

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions == null ? new ArrayList<>() : conditions;
    }

    public String getSchedulerName() {
        return schedulerName;
    }

    public void setSchedulerName(String schedulerName) {
        this.schedulerName = schedulerName;
    }

    public String getSchedulerImage() {
        return schedulerImage;
    }

    public void setSchedulerImage(String schedulerImage) {
        this.schedulerImage = schedulerImage;
    }

    public String getExtenderImage() {
        return extenderImage;
    }

    public void setExtenderImage(String extenderImage) {
        this.extenderImage = extenderImage;
    }

    public String getConfigHash() {
        return configHash;
    }

    public void setConfigHash(String configHash) {
        this.configHash = configHash;
    }

    public Integer getLabelledNodes() {
        return labelledNodes;
    }

    public void setLabelledNodes(Integer labelledNodes) {
        this.labelledNodes = labelledNodes;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SchedulerProfileStatus other)) {
            return false;
        }
        return Objects.equals(observedGeneration, other.observedGeneration)
                && Objects.equals(conditions, other.conditions)
                && Objects.equals(schedulerName, other.schedulerName)
                && Objects.equals(schedulerImage, other.schedulerImage)
                && Objects.equals(extenderImage, other.extenderImage)
                && Objects.equals(configHash, other.configHash)
                && Objects.equals(labelledNodes, other.labelledNodes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                observedGeneration,
                conditions,
                schedulerName,
                schedulerImage,
                extenderImage,
                configHash,
                labelledNodes);
    }
}
