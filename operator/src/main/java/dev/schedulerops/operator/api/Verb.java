package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The extender calls kube-scheduler makes; each maps to one HTTP path of the bundled extender. */
public enum Verb {
    @JsonProperty("Filter")
    FILTER("filter"),
    @JsonProperty("FilterOnlyOne")
    FILTER_ONLY_ONE("filter_onlyone"),
    @JsonProperty("Prioritize")
    PRIORITIZE("prioritize"),
    @JsonProperty("Bind")
    BIND("bind"),
    @JsonProperty("Preempt")
    PREEMPT("preempt");

    private final String path;

    Verb(String path) {
        this.path = path;
    }

    /** The verb as kube-scheduler appends it to the extender's urlPrefix. */
    public String path() {
        return path;
    }

    public boolean isFilter() {
        return this == FILTER || this == FILTER_ONLY_ONE;
    }
}
