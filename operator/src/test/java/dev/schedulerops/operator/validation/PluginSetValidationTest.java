package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code plugins} rules, each with the message kube-scheduler's behaviour maps to. */
class PluginSetValidationTest {

    private static final PluginCatalog V133 = PluginCatalog.forVersion("1.33.13");

    private static ValidationResult validate(Map<String, PluginSetInput> plugins) {
        return new PluginArgsValidator(V133, false).validate(plugins, List.of());
    }

    private static ValidationResult validateWithCustomImage(Map<String, PluginSetInput> plugins) {
        return new PluginArgsValidator(V133, true).validate(plugins, List.of());
    }

    private static List<PluginRef> refs(String... names) {
        return Arrays.stream(names).map(PluginRef::of).toList();
    }

    private static PluginSetInput enable(String... names) {
        return new PluginSetInput(refs(names), null);
    }

    private static PluginSetInput disable(String... names) {
        return new PluginSetInput(null, refs(names));
    }

    @Test
    void noPluginsMeansTheDefaultsAndIsValid() {
        ValidationResult result = validate(Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(result.isValid()).isTrue();
    }

    @Test
    void theDefaultPluginSetOf133WrittenOutExplicitlyValidatesClean() {
        List<PluginRef> defaults = V133.defaults().stream()
                .map(plugin -> new PluginRef(plugin.name(), plugin.weight()))
                .toList();
        ValidationResult result = validate(Map.of("multiPoint", new PluginSetInput(defaults, refs("*"))));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
    }

    @Test
    void unknownPluginIsRejected() {
        assertThat(validate(Map.of("filter", enable("NodeName", "Foo"))).errors())
                .containsExactly("spec.plugins.filter.enabled[1].name: plugin \"Foo\" is not a known in-tree plugin"
                        + " of Kubernetes 1.33 (out-of-tree plugins need a custom scheduler image)");
    }

    @Test
    void unknownPluginIsAcceptedWithACustomSchedulerImage() {
        ValidationResult result = validateWithCustomImage(Map.of("filter", enable("Foo"), "score", enable("Foo")));
        assertThat(result.errors()).isEmpty();
    }

    @Test
    void unknownPluginAtMultiPointIsRejected() {
        assertThat(validate(Map.of("multiPoint", enable("Coscheduling"))).errors())
                .containsExactly("spec.plugins.multiPoint.enabled[0].name: plugin \"Coscheduling\" is not a known"
                        + " in-tree plugin of Kubernetes 1.33 (out-of-tree plugins need a custom scheduler image)");
    }

    @Test
    void pluginAtAnExtensionPointItDoesNotImplementIsRejected() {
        assertThat(validate(Map.of("score", enable("NodeName"))).errors())
                .containsExactly("spec.plugins.score.enabled[0].name: plugin \"NodeName\" does not implement the"
                        + " score extension point; it implements: filter");
    }

    @Test
    void knownPluginAtAWrongPointIsRejectedEvenWithACustomImage() {
        assertThat(validateWithCustomImage(Map.of("bind", enable("ImageLocality")))
                        .errors())
                .containsExactly("spec.plugins.bind.enabled[0].name: plugin \"ImageLocality\" does not implement"
                        + " the bind extension point; it implements: score");
    }

    @Test
    void removedPluginIsRejectedWithItsReplacement() {
        assertThat(validate(Map.of("filter", enable("EBSLimits"))).errors())
                .containsExactly("spec.plugins.filter.enabled[0].name: plugin \"EBSLimits\" was removed:"
                        + " kube-scheduler 1.33 refuses it; use NodeVolumeLimits instead");
    }

    @Test
    void removedPluginIsRejectedEvenWithACustomImage() {
        assertThat(validateWithCustomImage(Map.of("multiPoint", enable("GCEPDLimits")))
                        .errors())
                .containsExactly("spec.plugins.multiPoint.enabled[0].name: plugin \"GCEPDLimits\" was removed:"
                        + " kube-scheduler 1.33 refuses it; use NodeVolumeLimits instead");
    }

    @Test
    void removedPluginIsAcceptedIn130AndRefusedFrom131WhereItIsStillRegistered() {
        assertThat(new PluginArgsValidator(PluginCatalog.forVersion("1.30.14"), false)
                        .validate(Map.of("filter", enable("EBSLimits")), List.of())
                        .errors())
                .isEmpty();
        assertThat(new PluginArgsValidator(PluginCatalog.forVersion("1.31.4"), false)
                        .validate(Map.of("filter", enable("EBSLimits")), List.of())
                        .errors())
                .containsExactly("spec.plugins.filter.enabled[0].name: plugin \"EBSLimits\" was removed:"
                        + " kube-scheduler 1.31 refuses it; use NodeVolumeLimits instead");
    }

    /** Found by ValidatorAgreementTest; invalid-profiles/removed-plugin-at-multipoint-1.31.yaml on the binary. */
    @Test
    void atMultiPointOnlyTheRegistryDecidesSo131TakesTheRemovedPluginsItStillRegisters() {
        assertThat(new PluginArgsValidator(PluginCatalog.forVersion("1.31.4"), false)
                        .validate(Map.of("multiPoint", enable("CinderLimits")), List.of())
                        .errors())
                .isEmpty();
        assertThat(new PluginArgsValidator(PluginCatalog.forVersion("1.32.5"), false)
                        .validate(Map.of("multiPoint", enable("CinderLimits")), List.of())
                        .errors())
                .containsExactly("spec.plugins.multiPoint.enabled[0].name: plugin \"CinderLimits\" was removed:"
                        + " kube-scheduler 1.32 refuses it; use NodeVolumeLimits instead");
    }

    @Test
    void duplicatePluginInOneEnabledListIsRejected() {
        assertThat(validate(Map.of("filter", enable("NodePorts", "NodeName", "NodePorts")))
                        .errors())
                .containsExactly("spec.plugins.filter.enabled[2].name: Duplicate value: \"NodePorts\": plugin"
                        + " already enabled at filter.enabled[0]");
    }

    @Test
    void duplicatePluginAtMultiPointIsRejected() {
        assertThat(validate(Map.of("multiPoint", enable("ImageLocality", "ImageLocality")))
                        .errors())
                .containsExactly("spec.plugins.multiPoint.enabled[1].name: Duplicate value: \"ImageLocality\":"
                        + " plugin already enabled at multiPoint.enabled[0] (kube-scheduler fails with \"already"
                        + " registered\" at score)");
    }

    @Test
    void duplicateAtMultiPointIsAcceptedWhereEveryPointItImplementsOverridesIt() {
        Map<String, PluginSetInput> plugins = new LinkedHashMap<>();
        plugins.put("multiPoint", enable("ImageLocality", "ImageLocality"));
        plugins.put("score", enable("ImageLocality"));
        assertThat(validate(plugins).errors()).isEmpty();
    }

    @Test
    void pluginBothAtMultiPointAndAtAPointIsAnOverrideNotADuplicate() {
        assertThat(validate(Map.of("filter", enable("NodeAffinity"), "score", enable("NodeAffinity")))
                        .errors())
                .isEmpty();
    }

    @Test
    void starIsAllowedInDisabledLists() {
        Map<String, PluginSetInput> plugins = new LinkedHashMap<>();
        plugins.put("score", new PluginSetInput(List.of(new PluginRef("NodeResourcesFit", 5)), refs("*")));
        plugins.put("filter", disable("*"));
        ValidationResult result = validate(plugins);
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
    }

    @Test
    void starIsRejectedInEnabledLists() {
        assertThat(validate(Map.of("filter", enable("*"))).errors())
                .containsExactly("spec.plugins.filter.enabled[0].name: Invalid value: \"*\": \"*\" is only allowed"
                        + " in disabled lists");
    }

    @Test
    void missingPluginNameIsRejected() {
        assertThat(validate(Map.of("filter", enable(""))).errors())
                .containsExactly("spec.plugins.filter.enabled[0].name: Required value: plugin name is required");
    }

    @Test
    void unknownExtensionPointIsRejected() {
        assertThat(validate(Map.of("filters", enable("NodeName"))).errors())
                .containsExactly("spec.plugins.filters: Unsupported value: \"filters\": supported values:"
                        + " \"preFilter\", \"filter\", \"postFilter\", \"reserve\", \"preScore\", \"score\","
                        + " \"preBind\", \"bind\", \"postBind\", \"permit\", \"preEnqueue\", \"queueSort\","
                        + " \"multiPoint\"");
    }

    @Test
    void moreThanOneExplicitQueueSortPluginIsRejected() {
        assertThat(validateWithCustomImage(Map.of("queueSort", enable("PrioritySort", "FifoSort")))
                        .errors())
                .containsExactly("spec.plugins.queueSort.enabled: Invalid value: 2: only one queue sort plugin can"
                        + " be enabled");
    }

    @Test
    void customQueueSortNextToTheDefaultOneIsRejected() {
        assertThat(validateWithCustomImage(Map.of("queueSort", enable("FifoSort")))
                        .errors())
                .containsExactly("spec.plugins.queueSort: only one queue sort plugin required, but got 2 (FifoSort,"
                        + " PrioritySort); disable the default one at queueSort when enabling another");
    }

    @Test
    void customQueueSortReplacingTheDefaultOneIsAccepted() {
        assertThat(validateWithCustomImage(
                                Map.of("queueSort", new PluginSetInput(refs("FifoSort"), refs("PrioritySort"))))
                        .errors())
                .isEmpty();
    }

    @Test
    void profileWithoutQueueSortIsRejected() {
        assertThat(validate(Map.of("queueSort", disable("*"))).errors())
                .containsExactly("spec.plugins.queueSort: only one queue sort plugin required, but got 0");
    }

    @Test
    void profileWithoutBindPluginIsRejected() {
        assertThat(validate(Map.of("multiPoint", disable("DefaultBinder"))).errors())
                .containsExactly("spec.plugins.bind: at least one bind plugin is needed");
    }

    @Test
    void disablingEverythingAtMultiPointLeavesNoQueueSortAndNoBinder() {
        assertThat(validate(Map.of("multiPoint", disable("*"), "filter", enable("NodeName")))
                        .errors())
                .containsExactly(
                        "spec.plugins.queueSort: only one queue sort plugin required, but got 0",
                        "spec.plugins.bind: at least one bind plugin is needed");
    }

    @Test
    void outOfTreeMultiPointPluginMayProvideTheBinder() {
        Map<String, PluginSetInput> plugins =
                Map.of("multiPoint", new PluginSetInput(refs("MyBinder"), refs("DefaultBinder")));
        assertThat(validateWithCustomImage(plugins).errors()).isEmpty();
    }

    @Test
    void weightAtANonScorePointIsAcceptedWithAWarning() {
        ValidationResult result =
                validate(Map.of("filter", new PluginSetInput(List.of(new PluginRef("NodeName", 5)), null)));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings())
                .containsExactly("spec.plugins.filter.enabled[0].weight: weight 5 is ignored: NodeName is not a score"
                        + " plugin at filter");
    }

    @Test
    void weightAtMultiPointOnANonScoringPluginIsAcceptedWithAWarning() {
        ValidationResult result =
                validate(Map.of("multiPoint", new PluginSetInput(List.of(new PluginRef("NodePorts", 2)), null)));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings())
                .containsExactly("spec.plugins.multiPoint.enabled[0].weight: weight 2 is ignored: NodePorts is not a"
                        + " score plugin at multiPoint");
    }

    @Test
    void negativeWeightFollowedByOtherScorePluginsIsRejected() {
        // kube-scheduler 1.33: "total score of Score plugins could overflow" (checked with the real binary).
        assertThat(validate(Map.of("score", new PluginSetInput(List.of(new PluginRef("ImageLocality", -3)), null)))
                        .errors())
                .containsExactly("spec.plugins.score.enabled[0].weight: Invalid value: -3: kube-scheduler refuses this"
                        + " negative weight because other score plugins are weighed after it (\"total score of Score"
                        + " plugins could overflow\")");
    }

    @Test
    void negativeWeightIsAcceptedWhereKubeSchedulerAcceptsItButWarned() {
        // ImageLocality is the last default score plugin, so the running total only turns negative at the end.
        ValidationResult lastAtMultiPoint =
                validate(Map.of("multiPoint", new PluginSetInput(List.of(new PluginRef("ImageLocality", -1)), null)));
        assertThat(lastAtMultiPoint.errors()).isEmpty();
        assertThat(lastAtMultiPoint.warnings())
                .containsExactly("spec.plugins.multiPoint.enabled[0].weight: negative weight -1 is accepted here and"
                        + " inverts ImageLocality's score");
        // A positive weight before it keeps the running total at zero.
        ValidationResult balanced = validate(Map.of(
                "score",
                new PluginSetInput(
                        List.of(new PluginRef("NodeAffinity", 1), new PluginRef("ImageLocality", -1)), null)));
        assertThat(balanced.errors()).isEmpty();
    }

    @Test
    void disablingAnUnknownPluginHasNoEffectAndIsWarned() {
        ValidationResult result = validate(Map.of("filter", disable("Foo")));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings())
                .containsExactly("spec.plugins.filter.disabled[0].name: plugin \"Foo\" is not a plugin of Kubernetes"
                        + " 1.33; disabling it has no effect");
    }

    @Test
    void disablingAPluginWhereItDoesNotRunIsWarned() {
        assertThat(validate(Map.of("filter", disable("ImageLocality"))).warnings())
                .containsExactly("spec.plugins.filter.disabled[0].name: plugin \"ImageLocality\" does not implement"
                        + " filter; disabling it there has no effect");
    }

    @Test
    void preEnqueueOfDefaultPreemptionIsVersionDependent() {
        Map<String, PluginSetInput> plugins = Map.of("preEnqueue", enable("DefaultPreemption"));
        assertThat(validate(plugins).errors()).isEmpty();
        assertThat(new PluginArgsValidator(PluginCatalog.forVersion("1.31"), false)
                        .validate(plugins, List.of())
                        .errors())
                .containsExactly("spec.plugins.preEnqueue.enabled[0].name: plugin \"DefaultPreemption\" does not"
                        + " implement the preEnqueue extension point; it implements: postFilter");
    }

    @Test
    void specPathIsConfigurable() {
        assertThat(new PluginArgsValidator(V133, false, "profiles[0]")
                        .validate(Map.of("filter", enable("Foo")), null)
                        .errors())
                .singleElement()
                .asString()
                .startsWith("profiles[0].plugins.filter.enabled[0].name: ");
    }
}
