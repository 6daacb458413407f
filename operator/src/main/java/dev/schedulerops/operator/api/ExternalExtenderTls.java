package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;

/** How kube-scheduler verifies an external extender's HTTPS certificate: KubeSchedulerConfiguration tlsConfig. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ExternalExtenderTls {
    @JsonPropertyDescription("PEM CA certificates that sign the extender's serving certificate, base64-encoded as in"
            + " a kubeconfig's certificate-authority-data. Required with enableHTTPS unless insecure is true.")
    @Size(max = Defaults.MAX_CA_DATA_LENGTH)
    @Pattern("^[A-Za-z0-9+/]+={0,2}$")
    private String caData;

    @JsonPropertyDescription(
            "The name to verify the extender's certificate against, when it differs from the host of" + " urlPrefix.")
    @Size(max = 253)
    @Pattern("^[A-Za-z0-9.-]+$")
    private String serverName;

    @JsonPropertyDescription("Skip verifying the extender's certificate. Only for tests: anyone on the path can then"
            + " answer for the extender. Excludes caData.")
    private Boolean insecure;

    public String getCaData() {
        return caData;
    }

    public void setCaData(String caData) {
        this.caData = caData;
    }

    public String getServerName() {
        return serverName;
    }

    public void setServerName(String serverName) {
        this.serverName = serverName;
    }

    public Boolean getInsecure() {
        return insecure;
    }

    public void setInsecure(Boolean insecure) {
        this.insecure = insecure;
    }
}
