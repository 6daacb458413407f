package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.LinkedHashMap;
import java.util.Map;

/** The plugin sets of one scheduling profile, per extension point (KubeSchedulerConfiguration's `plugins`). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
    "multiPoint"
})
public class Plugins {
    @JsonPropertyDescription("Plugins run before pods are added to the active queue.")
    private PluginSet preEnqueue;

    @JsonPropertyDescription("The plugin that sorts the scheduling queue (exactly one may be enabled).")
    private PluginSet queueSort;

    @JsonPropertyDescription("Plugins run at the PreFilter extension point.")
    private PluginSet preFilter;

    @JsonPropertyDescription("Plugins that filter out nodes that cannot run the pod.")
    private PluginSet filter;

    @JsonPropertyDescription("Plugins run when no node fits, such as DefaultPreemption.")
    private PluginSet postFilter;

    @JsonPropertyDescription("Plugins run at the PreScore extension point.")
    private PluginSet preScore;

    @JsonPropertyDescription("Plugins that score feasible nodes; weight multiplies each plugin's score.")
    private PluginSet score;

    @JsonPropertyDescription("Plugins run at the Reserve extension point.")
    private PluginSet reserve;

    @JsonPropertyDescription("Plugins run at the Permit extension point.")
    private PluginSet permit;

    @JsonPropertyDescription("Plugins run at the PreBind extension point.")
    private PluginSet preBind;

    @JsonPropertyDescription("Plugins that bind pods to nodes.")
    private PluginSet bind;

    @JsonPropertyDescription("Plugins run at the PostBind extension point.")
    private PluginSet postBind;

    @JsonPropertyDescription("Plugins enabled or disabled at every extension point they implement.")
    private PluginSet multiPoint;

    /** The configured plugin sets keyed by extension point name, in kube-scheduler's order; unset points omitted. */
    @JsonIgnore
    public Map<String, PluginSet> byExtensionPoint() {
        Map<String, PluginSet> sets = new LinkedHashMap<>();
        putIfSet(sets, "preEnqueue", preEnqueue);
        putIfSet(sets, "queueSort", queueSort);
        putIfSet(sets, "preFilter", preFilter);
        putIfSet(sets, "filter", filter);
        putIfSet(sets, "postFilter", postFilter);
        putIfSet(sets, "preScore", preScore);
        putIfSet(sets, "score", score);
        putIfSet(sets, "reserve", reserve);
        putIfSet(sets, "permit", permit);
        putIfSet(sets, "preBind", preBind);
        putIfSet(sets, "bind", bind);
        putIfSet(sets, "postBind", postBind);
        putIfSet(sets, "multiPoint", multiPoint);
        return sets;
    }

    private static void putIfSet(Map<String, PluginSet> sets, String point, PluginSet set) {
        if (set != null) {
            sets.put(point, set);
        }
    }

    public PluginSet getPreEnqueue() {
        return preEnqueue;
    }

    public void setPreEnqueue(PluginSet preEnqueue) {
        this.preEnqueue = preEnqueue;
    }

    public PluginSet getQueueSort() {
        return queueSort;
    }

    public void setQueueSort(PluginSet queueSort) {
        this.queueSort = queueSort;
    }

    public PluginSet getPreFilter() {
        return preFilter;
    }

    public void setPreFilter(PluginSet preFilter) {
        this.preFilter = preFilter;
    }

    public PluginSet getFilter() {
        return filter;
    }

    public void setFilter(PluginSet filter) {
        this.filter = filter;
    }

    public PluginSet getPostFilter() {
        return postFilter;
    }

    public void setPostFilter(PluginSet postFilter) {
        this.postFilter = postFilter;
    }

    public PluginSet getPreScore() {
        return preScore;
    }

    public void setPreScore(PluginSet preScore) {
        this.preScore = preScore;
    }

    public PluginSet getScore() {
        return score;
    }

    public void setScore(PluginSet score) {
        this.score = score;
    }

    public PluginSet getReserve() {
        return reserve;
    }

    public void setReserve(PluginSet reserve) {
        this.reserve = reserve;
    }

    public PluginSet getPermit() {
        return permit;
    }

    public void setPermit(PluginSet permit) {
        this.permit = permit;
    }

    public PluginSet getPreBind() {
        return preBind;
    }

    public void setPreBind(PluginSet preBind) {
        this.preBind = preBind;
    }

    public PluginSet getBind() {
        return bind;
    }

    public void setBind(PluginSet bind) {
        this.bind = bind;
    }

    public PluginSet getPostBind() {
        return postBind;
    }

    public void setPostBind(PluginSet postBind) {
        this.postBind = postBind;
    }

    public PluginSet getMultiPoint() {
        return multiPoint;
    }

    public void setMultiPoint(PluginSet multiPoint) {
        this.multiPoint = multiPoint;
    }
}
