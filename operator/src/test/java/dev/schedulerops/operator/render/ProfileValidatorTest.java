package dev.schedulerops.operator.render;

import static dev.schedulerops.operator.render.Samples.profile;
import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.validation.ProfileValidator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One test per spec-level rule, each asserting the message a user sees in status or from `render`. */
class ProfileValidatorTest {

    private static List<String> errors(SchedulerProfile profile) {
        return ProfileValidator.validate(profile, Samples.FACTS);
    }

    private static List<String> errors(String spec) {
        return errors(profile(spec));
    }

    @Test
    void minimalProfileIsValid() {
        assertThat(errors("labelKey: priority.lixueduan.com")).isEmpty();
    }

    @Test
    void labelKeyIsRequiredOnlyByTheBundledExtendersSettings() {
        assertThat(errors("weight: 3"))
                .as("plugins only: weight has a default and means nothing")
                .isEmpty();
        assertThat(errors("verbs: [Filter]"))
                .singleElement()
                .asString()
                .startsWith("spec.labelKey: Required value: verbs and extender configure the bundled extender");
        assertThat(errors("extender: {replicas: 3}"))
                .singleElement()
                .asString()
                .contains("remove them for a plugins-only profile");
    }

    @Test
    void labelKeyMustBeQualifiedName() {
        assertThat(errors("labelKey: -bad key"))
                .singleElement()
                .asString()
                .startsWith("spec.labelKey: Invalid value: \"-bad key\": must be a qualified label key");
    }

    @Test
    void labelKeyNameAbove63CharactersIsRejected() {
        assertThat(errors("labelKey: example.com/" + "a".repeat(64)))
                .singleElement()
                .asString()
                .contains("must be a qualified label key");
        assertThat(errors("labelKey: example.com/" + "a".repeat(63))).isEmpty();
    }

    @Test
    void labelKeyPrefixAbove253CharactersIsRejected() {
        String prefix = ("a".repeat(60) + ".").repeat(5); // 305 characters
        assertThat(errors("labelKey: " + prefix + "com/x"))
                .singleElement()
                .asString()
                .contains("qualified label key");
    }

    @Test
    void filterAndFilterOnlyOneExcludeEachOther() {
        assertThat(errors("labelKey: k\nverbs: [Filter, FilterOnlyOne]"))
                .containsExactly("spec.verbs: Invalid value: Filter and FilterOnlyOne exclude each other; keep one"
                        + " of them");
    }

    @Test
    void preemptNeedsAFilterVerb() {
        assertThat(errors("labelKey: k\nverbs: [Prioritize, Preempt]"))
                .containsExactly("spec.verbs: Invalid value: Preempt needs Filter or FilterOnlyOne, so that"
                        + " preemption agrees with the filter rule");
    }

    @Test
    void verbsMustNotRepeat() {
        assertThat(errors("labelKey: k\nverbs: [Filter, Filter]"))
                .containsExactly("spec.verbs: Duplicate value: each verb may appear only once");
    }

    @Test
    void verbsMustNotBeEmpty() {
        assertThat(errors("labelKey: k\nverbs: []"))
                .containsExactly(
                        "spec.verbs: Invalid value: []: at least one verb is needed, e.g. [Filter," + " Prioritize]");
    }

    @Test
    void unknownVerbIsRejectedWhenReading() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> profile("labelKey: k\nverbs: [Sort]"))
                .hasMessageContaining("spec.verbs[0]")
                .hasMessageContaining("Sort");
    }

    @Test
    void weightMustBePositive() {
        assertThat(errors("labelKey: k\nweight: 0"))
                .containsExactly("spec.weight: Invalid value: 0: must be at least 1 (kube-scheduler rejects an"
                        + " extender with prioritizeVerb and a non-positive weight)");
    }

    @Test
    void schedulerNameMustNotBeDefaultScheduler() {
        assertThat(errors("labelKey: k\nschedulerName: default-scheduler"))
                .containsExactly("spec.schedulerName: Invalid value: \"default-scheduler\": that is the cluster's"
                        + " main scheduler; choose another name");
    }

    @Test
    void schedulerNameMustBeDnsSubdomain() {
        assertThat(errors("labelKey: k\nschedulerName: My_Scheduler"))
                .containsExactly(
                        "spec.schedulerName: Invalid value: \"My_Scheduler\": must be a lowercase DNS" + " subdomain");
    }

    @Test
    void profileNameMustFitTheServiceName() {
        SchedulerProfile p = profile("labelKey: k");
        p.getMetadata().setName("a".repeat(55));
        assertThat(errors(p))
                .singleElement()
                .asString()
                .startsWith("metadata.name: Invalid value:")
                .contains("54");
        p.getMetadata().setName("1abc");
        assertThat(errors(p)).singleElement().asString().contains("must start with a lowercase letter");
    }

    @Test
    void aProfileIsClusterScopedAndNeedsNoNamespace() {
        SchedulerProfile p = profile("labelKey: k");
        p.getMetadata().setNamespace(null);
        assertThat(errors(p)).isEmpty();
    }

    @Test
    void extenderReplicasAreBounded() {
        assertThat(errors("labelKey: k\nextender:\n  replicas: 11"))
                .containsExactly("spec.extender.replicas: Invalid value: 11: must be between 1 and 10");
        assertThat(errors("labelKey: k\nextender:\n  replicas: 0"))
                .containsExactly("spec.extender.replicas: Invalid value: 0: must be between 1 and 10");
    }

    @Test
    void schedulerReplicasAreBounded() {
        assertThat(errors("labelKey: k\nscheduler:\n  replicas: 6"))
                .containsExactly("spec.scheduler.replicas: Invalid value: 6: must be between 1 and 5");
    }

    @Test
    void httpTimeoutMustBeAPositiveDuration() {
        assertThat(errors("labelKey: k\nextender:\n  httpTimeout: soon"))
                .containsExactly("spec.extender.httpTimeout: Invalid value: \"soon\": must be a positive duration"
                        + " such as 5s or 1500ms");
        assertThat(errors("labelKey: k\nextender:\n  httpTimeout: 0s")).hasSize(1);
        assertThat(errors("labelKey: k\nextender:\n  httpTimeout: 1m30s")).isEmpty();
    }

    @Test
    void managedResourcesMustBeUniqueQualifiedNames() {
        assertThat(errors("labelKey: k\nextender:\n  managedResources:\n  - name: example.com/gpu\n"
                        + "  - name: example.com/gpu"))
                .containsExactly("spec.extender.managedResources[1].name: Duplicate value: \"example.com/gpu\": an"
                        + " extender of this profile already manages it (kube-scheduler allows each name once)");
    }

    @Test
    void managedResourceNameWithAPrefixAbove253CharactersIsRejected() {
        String prefix = ("a".repeat(60) + ".").repeat(5) + "com"; // 308 characters, each label valid
        assertThat(errors("labelKey: k\nextender:\n  managedResources:\n  - name: " + prefix + "/gpu"))
                .singleElement()
                .asString()
                .startsWith("spec.extender.managedResources[0].name: Invalid value: \"" + prefix + "/gpu\": ")
                .contains("253");
        // kube-scheduler checks "requests." + name too (IsExtendedResourceName), so 244 is the longest prefix.
        assertThat(errors("labelKey: k\nextender:\n  managedResources:\n  - name: " + prefix.substring(55) + "/gpu"))
                .singleElement()
                .asString()
                .contains("\"requests.\" + name must be a qualified name");
        assertThat(errors("labelKey: k\nextender:\n  managedResources:\n  - name: " + prefix.substring(64) + "/gpu"))
                .isEmpty();
    }

    @Test
    void percentageOfNodesToScoreIsAPercentage() {
        assertThat(errors("labelKey: k\nscheduler:\n  percentageOfNodesToScore: 101"))
                .containsExactly(
                        "spec.scheduler.percentageOfNodesToScore: Invalid value: 101: must be between 0 and 100");
    }

    @Test
    void logVerbosityIsBounded() {
        assertThat(errors("labelKey: k\nscheduler:\n  logVerbosity: 11"))
                .containsExactly("spec.scheduler.logVerbosity: Invalid value: 11: must be between 0 and 10");
    }

    @Test
    void severalSchedulerReplicasNeedLeaderElection() {
        assertThat(errors("labelKey: k\nscheduler:\n  replicas: 2\n  leaderElection:\n    leaderElect: false"))
                .containsExactly("spec.scheduler.replicas: Invalid value: 2: more than one replica needs"
                        + " leaderElection.leaderElect: true, or the replicas would bind pods concurrently");
    }

    @Test
    void leaseDurationMustExceedRenewDeadline() {
        assertThat(errors("labelKey: k\nscheduler:\n  leaderElection:\n    leaseDuration: 10s\n"
                        + "    renewDeadline: 10s"))
                .containsExactly("spec.scheduler.leaderElection.leaseDuration: Invalid value: \"10s\": must be"
                        + " greater than renewDeadline");
    }

    @Test
    void renewDeadlineMustExceedTheJitteredRetryPeriod() {
        assertThat(errors("labelKey: k\nscheduler:\n  leaderElection:\n    renewDeadline: 2s\n    retryPeriod: 2s"))
                .containsExactly("spec.scheduler.leaderElection.renewDeadline: Invalid value: \"2s\": must be more"
                        + " than 1.2 x retryPeriod (2s): kube-scheduler's leader election refuses to start otherwise");
        // Only retryPeriod given: the default renewDeadline (10s) is not above 1.2 x 9s.
        assertThat(errors("labelKey: k\nscheduler:\n  leaderElection:\n    retryPeriod: 9s"))
                .singleElement()
                .asString()
                .startsWith("spec.scheduler.leaderElection.renewDeadline: Invalid value: \"10s\"");
        // No leader election, no elector to refuse it.
        assertThat(errors("labelKey: k\nscheduler:\n  leaderElection:\n    leaderElect: false\n    retryPeriod: 9s"))
                .isEmpty();
    }

    /** client-go: renew <= time.Duration(1.2 * float64(retry)); LeaderElectionAtStartTest runs each on the real one. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "6s, 5s, false", // 1.2 x 5s is exactly 6s in float64
        "6.000000001s, 5s, true",
        "12s, 10s, false",
        "12.000000001s, 10s, true",
        "11.9s, 10s, false",
        "2.4s, 2s, false",
        "2.400000001s, 2s, true",
        "10s, 2s, true"
    })
    void theJitterBoundaryFallsWhereGoPutsIt(String renew, String retry, boolean accepted) {
        assertThat(errors("labelKey: k\nscheduler:\n  leaderElection:\n    leaseDuration: 60s\n    renewDeadline: "
                        + renew + "\n    retryPeriod: " + retry))
                .as("errors for renewDeadline %s, retryPeriod %s", renew, retry)
                .hasSize(accepted ? 0 : 1);
    }

    @Test
    void leaderElectionDurationsMustParse() {
        assertThat(errors("labelKey: k\nscheduler:\n  leaderElection:\n    retryPeriod: often"))
                .containsExactly("spec.scheduler.leaderElection.retryPeriod: Invalid value: \"often\": must be a"
                        + " positive duration such as 15s");
    }

    @Test
    void anInvalidProfileRendersNoObjects() {
        RenderResult result = ProfileRenderer.render(profile("labelKey: k\nweight: 0"), Samples.FACTS);
        assertThat(result).isInstanceOf(RenderResult.Invalid.class);
        assertThat(((RenderResult.Invalid) result).errors()).hasSize(1);
    }

    @Test
    void pluginRulesOfTheTargetVersionApply() {
        assertThat(errors("labelKey: k\nplugins:\n  filter:\n    enabled:\n    - name: NoSuchPlugin"))
                .singleElement()
                .asString()
                .startsWith("spec.plugins.filter.enabled[0].name")
                .contains("NoSuchPlugin");
    }

    @Test
    void removedPluginsAreRejectedForNewerClusters() {
        String spec = "labelKey: k\nplugins:\n  filter:\n    enabled:\n    - name: GCEPDLimits";
        assertThat(errors(spec))
                .singleElement()
                .asString()
                .contains("GCEPDLimits")
                .contains("was removed");
    }

    @Test
    void aCustomSchedulerImageMayBringItsOwnPlugins() {
        assertThat(errors("labelKey: k\nscheduler:\n  image: example.com/custom:v1\nplugins:\n  filter:\n"
                        + "    enabled:\n    - name: MyOwnPlugin"))
                .isEmpty();
    }

    @Test
    void pluginArgsAreCheckedAgainstTheirType() {
        String spec = "labelKey: k\npluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n"
                + "      type: Most";
        assertThat(errors(spec)).singleElement().asString().contains("Unsupported value: \"Most\"");
    }

    @Test
    void backoffMaximumMustNotBeBelowTheInitialBackoffCountingDefaults() {
        assertThat(errors("labelKey: k\nscheduler: {podInitialBackoffSeconds: 20}"))
                .containsExactly("spec.scheduler.podMaxBackoffSeconds: Invalid value: 10: must be at least"
                        + " podInitialBackoffSeconds (20; defaults: initial 1, max 10); kube-scheduler refuses to start"
                        + " otherwise");
        assertThat(errors("labelKey: k\nscheduler: {podInitialBackoffSeconds: 20, podMaxBackoffSeconds: 20}"))
                .isEmpty();
        assertThat(errors("labelKey: k\nscheduler: {podMaxBackoffSeconds: 1}")).isEmpty();
    }

    @Test
    void queueKnobsAreBounded() {
        assertThat(errors("labelKey: k\nscheduler: {parallelism: 0}"))
                .containsExactly("spec.scheduler.parallelism: Invalid value: 0: must be between 1 and 1024");
        assertThat(errors("labelKey: k\nscheduler: {podInitialBackoffSeconds: 0}"))
                .containsExactly(
                        "spec.scheduler.podInitialBackoffSeconds: Invalid value: 0: must be between 1 and 3600");
    }
}
