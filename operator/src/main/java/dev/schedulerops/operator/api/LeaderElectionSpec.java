package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.leaseDuration) || !has(self.renewDeadline)"
                + " || duration(self.renewDeadline) < duration(self.leaseDuration)",
        message = "leaderElection.renewDeadline must be shorter than leaseDuration",
        fieldPath = ".renewDeadline")
@ValidationRule(
        value = "!has(self.renewDeadline) || !has(self.retryPeriod)"
                + " || duration(self.retryPeriod) < duration(self.renewDeadline)",
        message = "leaderElection.retryPeriod must be shorter than renewDeadline",
        fieldPath = ".retryPeriod")
public class LeaderElectionSpec {
    @JsonPropertyDescription("Whether the scheduler replicas elect a leader (on the lease <profile>-scheduler in the"
            + " profile's namespace, never the main scheduler's). Defaults to true.")
    @Default("" + Defaults.LEADER_ELECT)
    private Boolean leaderElect;

    @JsonPropertyDescription("How long a lease is valid, a Go duration. Defaults to 15s.")
    @Pattern(Defaults.DURATION_PATTERN)
    private String leaseDuration;

    @JsonPropertyDescription(
            "How long the leader keeps trying to renew before giving up, a Go duration. Defaults" + " to 10s.")
    @Pattern(Defaults.DURATION_PATTERN)
    private String renewDeadline;

    @JsonPropertyDescription("How long candidates wait between tries, a Go duration. Defaults to 2s.")
    @Pattern(Defaults.DURATION_PATTERN)
    private String retryPeriod;

    public Boolean getLeaderElect() {
        return leaderElect;
    }

    public void setLeaderElect(Boolean leaderElect) {
        this.leaderElect = leaderElect;
    }

    public String getLeaseDuration() {
        return leaseDuration;
    }

    public void setLeaseDuration(String leaseDuration) {
        this.leaseDuration = leaseDuration;
    }

    public String getRenewDeadline() {
        return renewDeadline;
    }

    public void setRenewDeadline(String renewDeadline) {
        this.renewDeadline = renewDeadline;
    }

    public String getRetryPeriod() {
        return retryPeriod;
    }

    public void setRetryPeriod(String retryPeriod) {
        this.retryPeriod = retryPeriod;
    }
}
