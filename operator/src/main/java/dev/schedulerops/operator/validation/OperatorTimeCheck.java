package dev.schedulerops.operator.validation;

import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The checks the Java validator makes that the CRD's schema and CEL rules cannot make at admission, and why. Every
 * other refusal of the validator is also a CEL or schema refusal, with the same message (OperatorTimeChecksTest on
 * the real API server holds both to this). The README's "Checked by the operator, not at admission" table lists these
 * entries; {@code ReadmeListsOperatorTimeChecksTest} keeps it in step.
 */
public enum OperatorTimeCheck {
    PLUGIN_SETS(
            "`plugins`: plugin names, the extension points each implements, removed plugins, one queue sort, at least"
                    + " one bind plugin, duplicates, score weights",
            "the rules depend on the cluster's Kubernetes version, which the CRD does not know",
            "^spec\\.plugins\\b"),
    PLUGIN_ARGS(
            "`pluginConfig`: which plugins take args, the args kinds' fields and kube-scheduler's validation of each",
            "the args kinds and fields differ per version; their rules (node selectors, shapes, durations) are beyond"
                    + " CEL's cost budget",
            "^spec\\.pluginConfig\\[\\d+\\]"),
    SCHEDULER_FLAGS(
            "`scheduler.featureGates` and `scheduler.extraArgs`: known gates and flags, value types, gate dependencies",
            "the flags and gates are those of the cluster's kube-scheduler version",
            "^spec\\.scheduler\\.(featureGates|extraArgs)\\b"),
    LEASE_AT_JITTER_BOUNDARY(
            "`scheduler.leaderElection`: renewDeadline exactly `1.2 x` retryPeriod (e.g. `6s` and `5s`), which"
                    + " client-go's leader elector refuses after its float arithmetic",
            "CEL cannot multiply a duration by 1.2; the admission rule compares `5 x` renewDeadline with `6 x`"
                    + " retryPeriod and lets the exact boundary through",
            "^spec\\.scheduler\\.leaderElection\\.renewDeadline: .*1\\.2 x retryPeriod"),
    POD_METADATA_SYNTAX(
            "`podLabels`, `podAnnotations` and `nodeSelector`: label and annotation key and value syntax, the"
                    + " `256 KiB` annotation total",
            "a regular expression over every map key exceeds CEL's cost budget",
            "^spec\\.(extender|scheduler)\\.(podLabels|podAnnotations|nodeSelector)\\b");

    private final String what;
    private final String whyNotAtAdmission;
    private final Pattern errorPath;

    OperatorTimeCheck(String what, String whyNotAtAdmission, String errorPath) {
        this.what = what;
        this.whyNotAtAdmission = whyNotAtAdmission;
        this.errorPath = Pattern.compile(errorPath);
    }

    public String what() {
        return what;
    }

    public String whyNotAtAdmission() {
        return whyNotAtAdmission;
    }

    /** The check a validator error belongs to, by the field path it starts with; empty for a CEL-backed rule. */
    public static Optional<OperatorTimeCheck> of(String error) {
        return Arrays.stream(values())
                .filter(check -> check.errorPath.matcher(error).find())
                .findFirst();
    }
}
