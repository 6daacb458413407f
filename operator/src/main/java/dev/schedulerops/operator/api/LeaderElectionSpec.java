package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = LeaderElectionSpec.RENEW + " < " + LeaderElectionSpec.LEASE,
        message = "leaderElection.renewDeadline must be shorter than leaseDuration (defaults: renewDeadline "
                + Defaults.RENEW_DEADLINE + ", leaseDuration " + Defaults.LEASE_DURATION + ")",
        fieldPath = ".renewDeadline")
// client-go's leader elector refuses renewDeadline <= 1.2 x retryPeriod (its JitterFactor) when kube-scheduler starts.
// CEL cannot multiply a duration, so 5 x renew >= 6 x retry by additions; >= lets the exact boundary through, where
// Go's float arithmetic decides, and the Java validator does the same arithmetic.
@ValidationRule(
        value = LeaderElectionSpec.FIVE_RENEWS + " >= " + LeaderElectionSpec.SIX_RETRIES,
        message = "leaderElection.renewDeadline must be more than 1.2 x retryPeriod (defaults: renewDeadline "
                + Defaults.RENEW_DEADLINE + ", retryPeriod " + Defaults.RETRY_PERIOD + "): kube-scheduler's leader"
                + " election refuses to start otherwise",
        fieldPath = ".retryPeriod")
public class LeaderElectionSpec {
    static final String LEASE =
            "(has(self.leaseDuration) ? duration(self.leaseDuration) : duration('" + Defaults.LEASE_DURATION + "'))";
    static final String RENEW =
            "(has(self.renewDeadline) ? duration(self.renewDeadline) : duration('" + Defaults.RENEW_DEADLINE + "'))";
    static final String RETRY =
            "(has(self.retryPeriod) ? duration(self.retryPeriod) : duration('" + Defaults.RETRY_PERIOD + "'))";
    static final String FIVE_RENEWS = RENEW + " + " + RENEW + " + " + RENEW + " + " + RENEW + " + " + RENEW;
    static final String SIX_RETRIES =
            RETRY + " + " + RETRY + " + " + RETRY + " + " + RETRY + " + " + RETRY + " + " + RETRY;

    @JsonPropertyDescription("Whether the scheduler replicas elect a leader (on the lease <profile>-scheduler in the"
            + " operator's workload namespace, never the main scheduler's). Defaults to true.")
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
