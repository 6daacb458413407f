package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.render.Samples;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * spec.extenders: what the Java validator refuses. The e2e module's SchedulerConfigAcceptanceTest has the cases the
 * CRD admits, judged by the real kube-scheduler too (invalid-profiles/*external-extender*).
 */
class ExtenderRulesTest {

    private static List<String> errors(String spec) {
        return ProfileValidator.validate(Samples.profile(spec), Samples.FACTS);
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("extenders: [{filterVerb: filter}]", "spec.extenders[0].urlPrefix: Required value"),
                Arguments.of("extenders: [{urlPrefix: \"ftp://x\"}]", "must be an http:// or https:// URL"),
                Arguments.of("extenders: [{urlPrefix: \"http://x\", filterVerb: /filter}]", "without a leading slash"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"http://x\", prioritizeVerb: p}]",
                        "spec.extenders[0].weight: Required value"),
                Arguments.of("extenders: [{urlPrefix: \"http://x\", weight: 0}]", "must be at least 1"),
                Arguments.of(
                        "verbs: [Filter, Bind]\nextenders: [{urlPrefix: \"http://x\", bindVerb: bind}]",
                        "2 extenders bind: only one extender may bind"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"http://x\", bindVerb: b}, {urlPrefix: \"http://y\", bindVerb: b}]",
                        "2 extenders bind"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"https://x\", enableHTTPS: true}]",
                        "enableHTTPS needs tlsConfig.caData"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"https://x\", enableHTTPS: true, tlsConfig: {insecure: true,"
                                + " caData: aGVsbG8K}}]",
                        "insecure and caData exclude each other"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"https://x\", enableHTTPS: true, tlsConfig: {caData: \"%%%\"}}]",
                        "not base64"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"https://x\", enableHTTPS: true, tlsConfig: {caData: aGVsbG8K}}]",
                        "holds no PEM certificate"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"https://x\", enableHTTPS: true, tlsConfig: {caData: "
                                + "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCm5vdCBhIGNlcnQKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=}}]",
                        "does not parse"),
                Arguments.of("extenders: [{urlPrefix: \"http://x\", httpTimeout: 0s}]", "must be a positive duration"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"http://x\", managedResources: [{name: gpu}]}]",
                        "is an invalid extended resource name"),
                Arguments.of(
                        "extenders: [{urlPrefix: \"http://x\", managedResources: [{name: kubernetes.io/gpu}]}]",
                        "is an invalid extended resource name"),
                Arguments.of(
                        "extender: {managedResources: [{name: example.com/gpu}]}\n"
                                + "extenders: [{urlPrefix: \"http://x\", managedResources: [{name: example.com/gpu}]}]",
                        "spec.extenders[0].managedResources[0].name: Duplicate value: \"example.com/gpu\": an extender"
                                + " of this profile already manages it"),
                Arguments.of("extenders: [null]", "spec.extenders[0]: Required value"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusedWithAMessageThatSaysWhy(String extenders, String message) {
        assertThat(errors("labelKey: k\n" + extenders))
                .anySatisfy(e -> assertThat(e).contains(message));
    }

    static Stream<String> accepted() {
        return Stream.of(
                "extenders: [{urlPrefix: \"http://audit.audit-system.svc:8080\", filterVerb: audit/filter, ignorable:"
                        + " true}]",
                "extenders: [{urlPrefix: \"https://x:8443/s\", enableHTTPS: true, tlsConfig: {insecure: true}}]",
                "verbs: [Filter]\nextenders: [{urlPrefix: \"http://x\", bindVerb: bind, prioritizeVerb: p, weight: 3}]",
                "extenders: [{urlPrefix: \"http://x\", managedResources: [{name: example.com/gpu}]},"
                        + " {urlPrefix: \"http://y\", managedResources: [{name: example.com/fpga}]}]");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void accepted(String extenders) {
        assertThat(errors("labelKey: k\n" + extenders)).isEmpty();
    }
}
