package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.render.Samples;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * spec.scheduler.featureGates and extraArgs against the 1.33 catalogue (generated from kube-scheduler v1.33.13 --help).
 * The e2e module's SchedulerFlagsAgreementTest asks every supported real binary the same questions.
 */
class SchedulerArgsRulesTest {

    private static List<String> errors(String spec) {
        return ProfileValidator.validate(Samples.profile(spec), Samples.FACTS);
    }

    @Test
    void knownGatesAndCheckableFlagsPassAndRenderSortedAfterTheOperatorsFlags() {
        String spec =
                """
                labelKey: k
                scheduler:
                  featureGates: {SchedulerQueueingHints: false, AllAlpha: false, DynamicResourceAllocation: true}
                  extraArgs: {tls-min-version: VersionTLS13, log-flush-frequency: 10s, disable-http2-serving: "true"}
                """;
        assertThat(errors(spec)).isEmpty();
        assertThat(ResolvedProfile.of(Samples.profile(spec)).scheduler().extraFlags())
                .containsExactly(
                        "--feature-gates=AllAlpha=false,DynamicResourceAllocation=true,SchedulerQueueingHints=false",
                        "--disable-http2-serving=true",
                        "--log-flush-frequency=10s",
                        "--tls-min-version=VersionTLS13");
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of(
                        "featureGates: {SchedulerQueueingHint: true}",
                        "spec.scheduler.featureGates.SchedulerQueueingHint: Unsupported value: kube-scheduler 1.33 has"
                                + " no alpha or beta feature gate \"SchedulerQueueingHint\""),
                Arguments.of("featureGates: {schedulerqueueinghints: true}", "did you mean SchedulerQueueingHints?"),
                Arguments.of("featureGates: {\"Bad-Gate\": true}", "a feature gate name has only letters and digits"),
                Arguments.of(
                        "extraArgs: {schedule-harder: \"true\"}",
                        "spec.scheduler.extraArgs.schedule-harder: Unsupported value: kube-scheduler 1.33 has no flag"
                                + " --schedule-harder"),
                Arguments.of("extraArgs: {\"--v\": \"4\"}", "write a flag's name without its leading dashes"),
                Arguments.of("extraArgs: {v: \"4\"}", "use spec.scheduler.logVerbosity"),
                Arguments.of("extraArgs: {feature-gates: \"A=true\"}", "use spec.scheduler.featureGates"),
                Arguments.of("extraArgs: {leader-elect: \"false\"}", "use spec.scheduler.leaderElection"),
                Arguments.of("extraArgs: {config: /etc/x}", "the operator passes the KubeSchedulerConfiguration"),
                Arguments.of("extraArgs: {tls-cert-file: /x.pem}", "names a file in the container"),
                Arguments.of("extraArgs: {kube-api-qps: \"100\"}", "ignores --kube-api-qps when it is given --config"),
                Arguments.of(
                        "extraArgs: {emulated-version: \"1.32\"}",
                        "the operator cannot check a value of --emulated-version"),
                Arguments.of("extraArgs: {disable-http2-serving: \"yes\"}", "takes true or false"),
                Arguments.of(
                        "extraArgs: {http2-max-streams-per-connection: \"1.5\"}", "takes an integer in decimal digits"),
                Arguments.of("extraArgs: {log-flush-frequency: \"10\"}", "takes a duration such as 10s"),
                Arguments.of("extraArgs: {tls-min-version: VersionTLS14}", "one of VersionTLS10"),
                Arguments.of("extraArgs: {logging-format: yaml}", "text or json"),
                Arguments.of("extraArgs: {vmodule: \"x\"}", "pattern=N pairs"),
                Arguments.of("extraArgs: {disabled-metrics: \"a\\nb\"}", "control characters"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusedWithAMessageThatSaysWhy(String scheduler, String message) {
        assertThat(errors("labelKey: k\nscheduler: {" + scheduler.replaceFirst("^", "") + "}"))
                .anySatisfy(e -> assertThat(e).contains(message));
    }

    @Test
    void aVersionWithoutACatalogueRefusesGatesAndFlagsButNotAPlainProfile() {
        ClusterFacts old = ClusterFacts.forVersion("1.27.3");
        assertThat(ProfileValidator.validate(Samples.profile("labelKey: k"), old))
                .noneMatch(e -> e.contains("featureGates"));
        assertThat(ProfileValidator.validate(
                        Samples.profile("labelKey: k\nscheduler: {featureGates: {AllAlpha: true}}"), old))
                .anySatisfy(e -> assertThat(e).contains("this operator has no catalogue of them (it knows 1.30.."));
    }

    @Test
    void aCustomImageSkipsTheCatalogueButNotTheOperatorsOwnFlags() {
        assertThat(errors("labelKey: k\nscheduler: {image: my/scheduler:1, featureGates: {MyGate: true},"
                        + " extraArgs: {my-flag: x}}"))
                .isEmpty();
        assertThat(errors("labelKey: k\nscheduler: {image: my/scheduler:1, extraArgs: {v: \"3\"}}"))
                .anySatisfy(e -> assertThat(e).contains("use spec.scheduler.logVerbosity"));
    }

    @Test
    void everyCatalogueParsesAndKnowsTheFlagsTheOperatorPasses() {
        // The README promises 1.30 to 1.37: each has a catalogue, none is skipped.
        for (int minor = 30; minor <= 37; minor++) {
            var catalog = SchedulerFlagCatalog.forVersion(new KubernetesVersion(1, minor));
            assertThat(catalog).as("the catalogue of 1.%d", minor).isPresent();
            assertThat(catalog.get().generatedFrom()).startsWith("v1." + minor + ".");
            assertThat(catalog.get().flags()).containsKeys("config", "v", "feature-gates");
            assertThat(catalog.get().gates()).containsKeys("AllAlpha", "AllBeta");
        }
        assertThat(SchedulerFlagCatalog.forVersion(new KubernetesVersion(1, 33)))
                .isPresent();
    }
}
