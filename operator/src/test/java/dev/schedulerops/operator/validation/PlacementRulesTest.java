package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.PodPlacementSpec;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.render.Samples;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The placement fields of extender and scheduler: what the Java validator refuses, with which message. */
class PlacementRulesTest {

    private static List<String> errors(String spec) {
        return ProfileValidator.validate(Samples.profile(spec), Samples.FACTS);
    }

    @Test
    void everyPlacementFieldOfTheSampleIsValid() {
        assertThat(
                        errors(
                                """
                labelKey: k
                extender:
                  nodeSelector: {node-role.kubernetes.io/infra: ""}
                  tolerations: [{key: node-role.kubernetes.io/infra, operator: Exists, effect: NoSchedule}]
                  topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}]
                  imagePullSecrets: [{name: regcred}]
                  podLabels: {team: platform}
                  podAnnotations: {sidecar.istio.io/inject: "false"}
                scheduler:
                  priorityClassName: system-cluster-critical
                  tolerations: [{operator: Exists}]
                  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Exists}]}]}}}
                """))
                .isEmpty();
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of(
                        "extender: {tolerations: [{key: a, operator: In}]}",
                        "spec.extender.tolerations[0].operator: Unsupported value: \"In\""),
                Arguments.of(
                        "scheduler: {tolerations: [{key: a, effect: NoRun}]}",
                        "spec.scheduler.tolerations[0].effect: Unsupported value: \"NoRun\""),
                Arguments.of(
                        "extender: {tolerations: [{effect: NoSchedule}]}",
                        "a toleration without a key must have operator Exists"),
                Arguments.of(
                        "extender: {tolerations: [{key: a, operator: Exists, value: b}]}",
                        "a toleration with operator Exists must have no value"),
                Arguments.of(
                        "extender: {tolerations: [{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]}",
                        "tolerationSeconds needs effect NoExecute"),
                Arguments.of(
                        "extender: {topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]}",
                        "spec.extender.topologySpreadConstraints[0].topologyKey: Required value"),
                Arguments.of(
                        "scheduler: {topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}",
                        "spec.scheduler.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be at least 1"),
                Arguments.of(
                        "scheduler: {topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Never}]}",
                        "whenUnsatisfiable: Unsupported value: \"Never\""),
                Arguments.of(
                        "extender: {nodeSelector: {\"bad key!\": x}}",
                        "spec.extender.nodeSelector: Invalid value: \"bad key!\""),
                Arguments.of(
                        "extender: {nodeSelector: {ok: \"not a label value\"}}",
                        "spec.extender.nodeSelector[\"ok\"]: Invalid value: \"not a label value\""),
                Arguments.of(
                        "scheduler: {podLabels: {app.kubernetes.io/instance: other}}",
                        "spec.scheduler.podLabels: Forbidden: \"app.kubernetes.io/instance\" is set by the operator"),
                Arguments.of(
                        "extender: {podLabels: {schedulerops.dev/profile: other}}",
                        "spec.extender.podLabels: Forbidden: \"schedulerops.dev/profile\""),
                Arguments.of(
                        "scheduler: {podAnnotations: {schedulerops.dev/config-hash: x}}",
                        "spec.scheduler.podAnnotations: Forbidden: \"schedulerops.dev/config-hash\""),
                Arguments.of(
                        "extender: {podAnnotations: {\"-bad\": x}}",
                        "spec.extender.podAnnotations: Invalid value: \"-bad\""),
                Arguments.of(
                        "scheduler: {priorityClassName: Critical}",
                        "spec.scheduler.priorityClassName: Invalid value: \"Critical\""),
                Arguments.of(
                        "scheduler: {tolerations: [null], topologySpreadConstraints: [~]}",
                        "spec.scheduler.tolerations[0]: Required value: a list item may not be empty (null)"),
                Arguments.of(
                        "extender: {imagePullSecrets: [{}]}",
                        "spec.extender.imagePullSecrets[0].name: Required value"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void badPlacementIsRefusedWithAMessage(String field, String expected) {
        assertThat(errors("labelKey: k\n" + field)).as("errors of %s", field).anySatisfy(e -> assertThat(e)
                .contains(expected));
    }

    @Test
    void annotationsAboveTheApiServersTotalAreRefused() {
        String big = "x".repeat(PlacementRules.MAX_ANNOTATION_BYTES);
        assertThat(errors("labelKey: k\nextender: {podAnnotations: {a: " + big + "}}"))
                .anySatisfy(e -> assertThat(e).contains("spec.extender.podAnnotations: Too long"));
    }

    /**
     * The operator's own pod labels and annotation keys are exactly what the CRD's CEL rules and PlacementRules
     * refuse: a label added to {@link Labels} without updating the rule would let a user override a selector label.
     */
    @Test
    void everyKeyTheOperatorSetsOnItsPodsIsReserved() {
        for (String component : List.of(Labels.COMPONENT_EXTENDER, Labels.COMPONENT_SCHEDULER)) {
            for (String key : Labels.component("p", component).keySet()) {
                boolean reserved = PlacementRules.RESERVED_LABELS.contains(key)
                        || key.startsWith(PodPlacementSpec.RESERVED_PREFIX);
                assertThat(reserved)
                        .as("label %s is reserved in PlacementRules", key)
                        .isTrue();
                assertThat(PodPlacementSpec.POD_LABELS_RULE.contains("'" + key + "'")
                                || key.startsWith(PodPlacementSpec.RESERVED_PREFIX))
                        .as("label %s is refused by the CRD's CEL rule", key)
                        .isTrue();
            }
        }
        for (String annotation : List.of(Labels.CONFIG_HASH, Labels.EXTENDER_RULE_HASH, Labels.TLS_HASH)) {
            assertThat(annotation).startsWith(PodPlacementSpec.RESERVED_PREFIX);
        }
    }
}
