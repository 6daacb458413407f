package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class PreviewStatus {
    public static final String PENDING = "Pending";
    public static final String RUNNING = "Running";
    public static final String SUCCEEDED = "Succeeded";
    public static final String FAILED = "Failed";
    public static final String REFUSED = "Refused";

    /** The condition set when the preview is over, whatever its outcome (kubectl wait --for=condition=Done). */
    public static final String DONE = "Done";

    @JsonPropertyDescription("Pending, Running, then Succeeded (see verdict), Failed (the sandbox failed or timed out)"
            + " or Refused (the proposal is invalid: see message).")
    private String phase;

    @JsonPropertyDescription("Done=True once the preview is over, with the phase as its reason.")
    private List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("Why it failed or was refused, or what it waits for.")
    private String message;

    @JsonPropertyDescription("A preview's verdict: Pass, or Fail when the proposal leaves unschedulable a pod that"
            + " schedules today.")
    private String verdict;

    @JsonPropertyDescription("The answer for people: a preview's table, or a pod's receipt.")
    private String report;

    @JsonPropertyDescription("The answer as data: a preview's rows and totals, or a pod's receipt.")
    @PreserveUnknownFields
    private JsonNode result;

    @JsonPropertyDescription("The sandbox pod, in the operator's workload namespace, while it runs.")
    private String sandboxPod;

    @JsonPropertyDescription("When the sandbox started.")
    private String startTime;

    @JsonPropertyDescription("When the preview was over.")
    private String completionTime;

    public String getPhase() {
        return phase;
    }

    public void setPhase(String phase) {
        this.phase = phase;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions == null ? new ArrayList<>() : conditions;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    public String getVerdict() {
        return verdict;
    }

    public void setVerdict(String verdict) {
        this.verdict = verdict;
    }

    public String getReport() {
        return report;
    }

    public void setReport(String report) {
        this.report = report;
    }

    public JsonNode getResult() {
        return result;
    }

    public void setResult(JsonNode result) {
        this.result = result;
    }

    public String getSandboxPod() {
        return sandboxPod;
    }

    public void setSandboxPod(String sandboxPod) {
        this.sandboxPod = sandboxPod;
    }

    public String getStartTime() {
        return startTime;
    }

    public void setStartTime(String startTime) {
        this.startTime = startTime;
    }

    public String getCompletionTime() {
        return completionTime;
    }

    public void setCompletionTime(String completionTime) {
        this.completionTime = completionTime;
    }

    /** Whether the preview is over. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean over() {
        return SUCCEEDED.equals(phase) || FAILED.equals(phase) || REFUSED.equals(phase);
    }
}
