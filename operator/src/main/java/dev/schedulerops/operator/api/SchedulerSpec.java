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
import java.util.LinkedHashMap;
import java.util.Map;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.replicas) || self.replicas <= 1 || !has(self.leaderElection)"
                + " || !has(self.leaderElection.leaderElect) || self.leaderElection.leaderElect",
        message = "scheduler.replicas above 1 needs leaderElection.leaderElect: true, or the replicas would bind"
                + " pods concurrently",
        fieldPath = ".replicas")
@ValidationRule(
        value = "(has(self.podMaxBackoffSeconds) ? self.podMaxBackoffSeconds : " + Defaults.POD_MAX_BACKOFF_SECONDS
                + ") >= (has(self.podInitialBackoffSeconds) ? self.podInitialBackoffSeconds : "
                + Defaults.POD_INITIAL_BACKOFF_SECONDS + ")",
        message = "podMaxBackoffSeconds (default " + Defaults.POD_MAX_BACKOFF_SECONDS + ") must be at least"
                + " podInitialBackoffSeconds (default " + Defaults.POD_INITIAL_BACKOFF_SECONDS
                + "); kube-scheduler refuses to start otherwise",
        fieldPath = ".podMaxBackoffSeconds")
public class SchedulerSpec extends PodPlacementSpec {
    @JsonPropertyDescription("Number of kube-scheduler pods; above 1 they elect a leader. Defaults to 1.")
    @Min(Defaults.MIN_SCHEDULER_REPLICAS)
    @Max(Defaults.MAX_SCHEDULER_REPLICAS)
    @Default("" + Defaults.SCHEDULER_REPLICAS)
    private Integer replicas;

    @JsonPropertyDescription("The kube-scheduler image. Defaults to registry.k8s.io/kube-scheduler at the cluster's"
            + " own server version (a scheduler must not be newer than the API server). When set, the operator"
            + " does not check plugin names against the in-tree plugins (a custom build may add its own). Must be in"
            + " a repository the operator's installation allows (operator setting"
            + " SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES), else the profile is refused with reason ImageNotAllowed;"
            + " pinning by digest (repository@sha256:...) is recommended.")
    @Size(min = 1, max = 512)
    @Pattern("^\\S+$")
    private String image;

    @JsonPropertyDescription("Compute resources of the kube-scheduler container. Defaults to requests of 100m CPU and"
            + " 128Mi memory.")
    private ResourceRequirements resources;

    @JsonPropertyDescription("KubeSchedulerConfiguration percentageOfNodesToScore (0..100); unset or 0 uses"
            + " kube-scheduler's adaptive default.")
    @Min(Defaults.MIN_PERCENTAGE_OF_NODES_TO_SCORE)
    @Max(Defaults.MAX_PERCENTAGE_OF_NODES_TO_SCORE)
    private Integer percentageOfNodesToScore;

    @JsonPropertyDescription("kube-scheduler's --v log verbosity (0..10). Defaults to 2.")
    @Min(Defaults.MIN_LOG_VERBOSITY)
    @Max(Defaults.MAX_LOG_VERBOSITY)
    @Default("" + Defaults.LOG_VERBOSITY)
    private Integer logVerbosity;

    @JsonPropertyDescription("KubeSchedulerConfiguration parallelism: how many nodes kube-scheduler filters and scores"
            + " at once. Unset uses kube-scheduler's default (16).")
    @Min(1)
    @Max(Defaults.MAX_PARALLELISM)
    private Integer parallelism;

    @JsonPropertyDescription("KubeSchedulerConfiguration podInitialBackoffSeconds: the first wait before an"
            + " unschedulable pod is tried again. Unset uses kube-scheduler's default (1).")
    @Min(1)
    @Max(Defaults.MAX_BACKOFF_SECONDS)
    private Integer podInitialBackoffSeconds;

    @JsonPropertyDescription("KubeSchedulerConfiguration podMaxBackoffSeconds: the longest wait between tries of an"
            + " unschedulable pod; at least podInitialBackoffSeconds. Unset uses kube-scheduler's default (10).")
    @Min(1)
    @Max(Defaults.MAX_BACKOFF_SECONDS)
    private Integer podMaxBackoffSeconds;

    @JsonPropertyDescription("kube-scheduler feature gates to switch, by name, e.g. {SchedulerAsyncPreemption: true};"
            + " rendered as --feature-gates. Only the alpha and beta gates that the target version lists in its --help"
            + " are accepted (GA and deprecated gates cannot be set); the operator refuses others before anything"
            + " rolls out. Changing them restarts only the scheduler.")
    @Size(max = Defaults.MAX_FEATURE_GATES)
    private Map<String, Boolean> featureGates;

    @JsonPropertyDescription("Further kube-scheduler command-line flags, by name without the leading dashes, e.g."
            + " {kube-api-burst: \"200\"} is refused (ignored with --config) but {tls-min-version: VersionTLS13} is"
            + " passed as --tls-min-version=VersionTLS13. Checked against the flags the target version knows and"
            + " their types; flags the operator sets itself (config, v, feature-gates, leader-elect*, secure-port,"
            + " bind-address, kubeconfig, master), flags naming files, and flags kube-scheduler ignores when given"
            + " --config are refused with the field to use instead.")
    @Size(max = Defaults.MAX_EXTRA_ARGS)
    private Map<String, @Size(max = Defaults.MAX_VALUE_LENGTH) String> extraArgs;

    @JsonPropertyDescription("Leader election of the scheduler replicas, on a lease of their own.")
    private LeaderElectionSpec leaderElection;

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

    public Integer getPercentageOfNodesToScore() {
        return percentageOfNodesToScore;
    }

    public void setPercentageOfNodesToScore(Integer percentageOfNodesToScore) {
        this.percentageOfNodesToScore = percentageOfNodesToScore;
    }

    public Integer getLogVerbosity() {
        return logVerbosity;
    }

    public void setLogVerbosity(Integer logVerbosity) {
        this.logVerbosity = logVerbosity;
    }

    public Integer getParallelism() {
        return parallelism;
    }

    public void setParallelism(Integer parallelism) {
        this.parallelism = parallelism;
    }

    public Integer getPodInitialBackoffSeconds() {
        return podInitialBackoffSeconds;
    }

    public void setPodInitialBackoffSeconds(Integer podInitialBackoffSeconds) {
        this.podInitialBackoffSeconds = podInitialBackoffSeconds;
    }

    public Integer getPodMaxBackoffSeconds() {
        return podMaxBackoffSeconds;
    }

    public void setPodMaxBackoffSeconds(Integer podMaxBackoffSeconds) {
        this.podMaxBackoffSeconds = podMaxBackoffSeconds;
    }

    public Map<String, Boolean> getFeatureGates() {
        return featureGates;
    }

    public void setFeatureGates(Map<String, Boolean> featureGates) {
        this.featureGates = featureGates == null ? null : new LinkedHashMap<>(featureGates);
    }

    public Map<String, String> getExtraArgs() {
        return extraArgs;
    }

    public void setExtraArgs(Map<String, String> extraArgs) {
        this.extraArgs = extraArgs == null ? null : new LinkedHashMap<>(extraArgs);
    }

    public LeaderElectionSpec getLeaderElection() {
        return leaderElection;
    }

    public void setLeaderElection(LeaderElectionSpec leaderElection) {
        this.leaderElection = leaderElection;
    }
}
