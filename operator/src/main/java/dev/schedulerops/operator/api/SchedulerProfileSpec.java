package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value =
                "!has(self.verbs) || !(self.verbs.exists(v, v == 'Filter') && self.verbs.exists(v, v == 'FilterOnlyOne'))",
        message = "verbs: Filter and FilterOnlyOne exclude each other; keep one of them",
        fieldPath = ".verbs",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "!has(self.verbs) || !self.verbs.exists(v, v == 'Preempt')"
                + " || self.verbs.exists(v, v == 'Filter' || v == 'FilterOnlyOne')",
        message = "verbs: Preempt needs Filter or FilterOnlyOne, so that preemption agrees with the filter rule",
        fieldPath = ".verbs",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = SchedulerProfileSpec.MUTUAL_FOR_API_VERBS_RULE,
        message = SchedulerProfileSpec.MUTUAL_FOR_API_VERBS_MESSAGE,
        fieldPath = ".verbs",
        reason = "FieldValueForbidden")
@ValidationRule(
        value = "!has(self.extenders) || self.extenders.filter(e, has(e.bindVerb)).size()"
                + " + ((has(self.verbs) && self.verbs.exists(v, v == 'Bind')) ? 1 : 0) <= 1",
        message = "extenders: only one extender may bind (kube-scheduler refuses two bindVerbs); the bundled one binds"
                + " when verbs has Bind",
        fieldPath = ".extenders",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "has(self.labelKey) || (!has(self.verbs) && !has(self.extender))",
        message = "verbs and extender configure the bundled extender, which runs only with labelKey: set labelKey, or"
                + " remove them for a plugins-only profile",
        fieldPath = ".labelKey",
        reason = "FieldValueRequired")
public class SchedulerProfileSpec {
    /**
     * Bind and Preempt act on the API: with them, any caller of the extender could bind pending pods or steer
     * preemption. Only mutual TLS limits the callers to the profile's own scheduler.
     */
    public static final String MUTUAL_FOR_API_VERBS_RULE = "!has(self.verbs) || !self.verbs.exists(v, v == 'Bind' || v"
            + " == 'Preempt') || !has(self.extender) || !has(self.extender.tls) || !has(self.extender.tls.mode)"
            + " || self.extender.tls.mode == 'Mutual'";

    public static final String MUTUAL_FOR_API_VERBS_MESSAGE = "verbs: Bind and Preempt act on the API (they create"
            + " Bindings and steer preemption), so they need extender.tls.mode Mutual: only the profile's own"
            + " scheduler may call them";

    @JsonPropertyDescription("The name pods set in spec.schedulerName to be scheduled by this profile. Defaults to"
            + " metadata.name. Must be unique among SchedulerProfiles in the cluster and must not be"
            + " '" + Defaults.DEFAULT_SCHEDULER + "'.")
    @Size(min = 1, max = 253)
    @Pattern(Defaults.SCHEDULER_NAME_PATTERN)
    @ValidationRule(
            value = "self != '" + Defaults.DEFAULT_SCHEDULER + "'",
            message = "schedulerName must not be " + Defaults.DEFAULT_SCHEDULER)
    private String schedulerName;

    @JsonPropertyDescription("The node label the bundled extender filters on and scores by, a qualified label key"
            + " such as 'priority.lixueduan.com' or 'example.com/tier'. Nodes without it are filtered out (with"
            + " Filter/FilterOnlyOne); higher integer values score higher (with Prioritize/FilterOnlyOne). Unset: no"
            + " bundled extender runs, and the profile is plugins only (plus any spec.extenders); verbs and extender"
            + " must then be unset too.")
    @Size(min = 1, max = 317)
    @Pattern(Defaults.LABEL_KEY_PATTERN)
    private String labelKey;

    @JsonPropertyDescription("Which extender calls kube-scheduler makes: a set drawn from Filter, FilterOnlyOne,"
            + " Prioritize, Bind, Preempt. Filter and FilterOnlyOne exclude each other; Preempt needs one of them."
            + " Defaults to [Filter, Prioritize].")
    @Size(min = 1, max = 5)
    @ValidationRule(
            value = "self.all(x, self.exists_one(y, y == x))",
            message = "verbs: each verb may appear only once")
    private List<Verb> verbs;

    @JsonPropertyDescription("The extender's prioritize weight: its score (0..10) is multiplied by weight and by 10"
            + " and added to the plugin scores. Higher values let the label dominate placement. Defaults to 1.")
    @Min(Defaults.MIN_WEIGHT)
    @Default("" + Defaults.WEIGHT)
    private Integer weight;

    @JsonPropertyDescription("The scheduling-framework plugins of the generated profile, as in kube-scheduler's"
            + " KubeSchedulerConfiguration profiles[].plugins. Unset extension points keep kube-scheduler's"
            + " defaults.")
    private Plugins plugins;

    @JsonPropertyDescription("Arguments for plugins, as in KubeSchedulerConfiguration profiles[].pluginConfig."
            + " Arguments of in-tree plugins are validated against their args type by the operator.")
    @Size(max = 64)
    @ValidationRule(
            value = "self.all(x, self.exists_one(y, y.name == x.name))",
            message = "pluginConfig: each plugin may appear only once")
    private List<PluginConfig> pluginConfig;

    @JsonPropertyDescription("The bundled extender's Deployment and how kube-scheduler calls it.")
    private ExtenderSpec extender;

    @JsonPropertyDescription("Extenders you run yourself, called after the bundled one in this order: each is a"
            + " KubeSchedulerConfiguration extenders[] entry (urlPrefix, the verbs, weight, enableHTTPS, tlsConfig,"
            + " httpTimeout, nodeCacheCapable, ignorable, managedResources), validated as kube-scheduler validates it.")
    @Size(max = Defaults.MAX_EXTERNAL_EXTENDERS)
    private List<ExternalExtender> extenders;

    @JsonPropertyDescription("The kube-scheduler Deployment.")
    private SchedulerSpec scheduler;

    public String getSchedulerName() {
        return schedulerName;
    }

    public void setSchedulerName(String schedulerName) {
        this.schedulerName = schedulerName;
    }

    public String getLabelKey() {
        return labelKey;
    }

    public void setLabelKey(String labelKey) {
        this.labelKey = labelKey;
    }

    public List<Verb> getVerbs() {
        return verbs;
    }

    public void setVerbs(List<Verb> verbs) {
        this.verbs = verbs == null ? null : new ArrayList<>(verbs);
    }

    public Integer getWeight() {
        return weight;
    }

    public void setWeight(Integer weight) {
        this.weight = weight;
    }

    public Plugins getPlugins() {
        return plugins;
    }

    public void setPlugins(Plugins plugins) {
        this.plugins = plugins;
    }

    public List<PluginConfig> getPluginConfig() {
        return pluginConfig;
    }

    public void setPluginConfig(List<PluginConfig> pluginConfig) {
        this.pluginConfig = pluginConfig;
    }

    public ExtenderSpec getExtender() {
        return extender;
    }

    public void setExtender(ExtenderSpec extender) {
        this.extender = extender;
    }

    public List<ExternalExtender> getExtenders() {
        return extenders;
    }

    public void setExtenders(List<ExternalExtender> extenders) {
        this.extenders = extenders == null ? null : new ArrayList<>(extenders);
    }

    public SchedulerSpec getScheduler() {
        return scheduler;
    }

    public void setScheduler(SchedulerSpec scheduler) {
        this.scheduler = scheduler;
    }
}
