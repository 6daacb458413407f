package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class TlsSpec {
    @JsonPropertyDescription("Mutual (the default): the operator issues a CA per profile, a serving certificate for the"
            + " extender and a client certificate for the scheduler, and the extender refuses callers without it."
            + " Server: TLS, but any caller that reaches the extender may call it. Disabled: plain HTTP on port 8080,"
            + " open to any pod that reaches the Service (for debugging with curl).")
    @Default(Defaults.TLS_MODE_NAME)
    private TlsMode mode;

    @JsonPropertyDescription("Set to a new value (a date, a ticket number) to force a CA rotation now: the same"
            + " process as the automatic one (the old and the new CA trusted side by side, new certificates once both"
            + " the extender and the scheduler run with that bundle, then the old CA dropped).")
    @Size(max = 63)
    private String rotate;

    public TlsMode getMode() {
        return mode;
    }

    public void setMode(TlsMode mode) {
        this.mode = mode;
    }

    public String getRotate() {
        return rotate;
    }

    public void setRotate(String rotate) {
        this.rotate = rotate;
    }
}
