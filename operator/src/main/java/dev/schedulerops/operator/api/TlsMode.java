package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How kube-scheduler and the extender talk: see {@link TlsSpec}. */
public enum TlsMode {
    /** TLS, and the extender requires a client certificate of the profile's CA: only the scheduler may call it. */
    @JsonProperty("Mutual")
    MUTUAL("mutual"),
    /** TLS, the scheduler verifies the extender; the extender does not authenticate its callers. */
    @JsonProperty("Server")
    SERVER("server"),
    /** Plain HTTP: any pod that reaches the Service may call every verb. For debugging only. */
    @JsonProperty("Disabled")
    DISABLED("disabled");

    private final String extenderValue;

    TlsMode(String extenderValue) {
        this.extenderValue = extenderValue;
    }

    /** The value of the extender's SCHEDULEROPS_TLS_MODE. */
    public String extenderValue() {
        return extenderValue;
    }

    public boolean enabled() {
        return this != DISABLED;
    }
}
