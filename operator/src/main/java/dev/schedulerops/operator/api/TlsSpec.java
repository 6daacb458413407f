package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class TlsSpec {
    @JsonPropertyDescription("Mutual (the default): the operator issues a CA per profile, a serving certificate for the"
            + " extender and a client certificate for the scheduler, and the extender refuses callers without it."
            + " Server: TLS, but any caller that reaches the extender may call it. Disabled: plain HTTP on port 8080,"
            + " open to any pod that reaches the Service (for debugging with curl).")
    @Default(Defaults.TLS_MODE_NAME)
    private TlsMode mode;

    public TlsMode getMode() {
        return mode;
    }

    public void setMode(TlsMode mode) {
        this.mode = mode;
    }
}
