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
// Go's float arithmetic decides, and the Java validator does the same arithmetic. The rule takes an unset retryPeriod
// as 2s, the default when v1beta1 was released (the released schema's rules may not change); the default is 500ms
// now, so only a renewDeadline of 2.4s or less with retryPeriod unset is refused here where the operator would accept
// it.
@ValidationRule(
        value = LeaderElectionSpec.FIVE_RENEWS + " >= " + LeaderElectionSpec.SIX_RETRIES,
        message =
                "leaderElection.renewDeadline must be more than 1.2 x retryPeriod (an unset renewDeadline is taken as "
                        + Defaults.RENEW_DEADLINE + ", an unset retryPeriod as " + LeaderElectionSpec.RETRY_AT_ADMISSION
                        + "; set retryPeriod with a short renewDeadline): kube-scheduler's leader election refuses to start"
                        + " otherwise",
        fieldPath = ".retryPeriod")
public class LeaderElectionSpec {
    static final String LEASE =
            "(has(self.leaseDuration) ? duration(self.leaseDuration) : duration('" + Defaults.LEASE_DURATION + "'))";
    static final String RENEW =
            "(has(self.renewDeadline) ? duration(self.renewDeadline) : duration('" + Defaults.RENEW_DEADLINE + "'))";
    /** What the admission rule takes an unset retryPeriod as: the default of the released v1beta1 schema. */
    static final String RETRY_AT_ADMISSION = "2s";

    static final String RETRY =
            "(has(self.retryPeriod) ? duration(self.retryPeriod) : duration('" + RETRY_AT_ADMISSION + "'))";
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

    @JsonPropertyDescription("How long candidates wait between tries (and the leader between renewals), a Go duration."
            + " Defaults to 500ms (kube-scheduler's own default is 2s): a standby takes over within about 2.2 x"
            + " retryPeriod of the leader giving its lease back, and the leader renews every retryPeriod (one Lease write"
            + " each time).")
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
