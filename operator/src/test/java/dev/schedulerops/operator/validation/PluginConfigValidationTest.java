package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code pluginConfig} rules and the args of every in-tree args kind, with kube-scheduler's messages. */
class PluginConfigValidationTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final PluginCatalog V133 = PluginCatalog.forVersion("1.33.13");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yaml(String text) {
        try {
            return YAML.readValue(text, Map.class);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PluginConfigInput config(String name, String argsYaml) {
        return new PluginConfigInput(name, yaml(argsYaml));
    }

    private static ValidationResult validate(PluginConfigInput... entries) {
        return new PluginArgsValidator(V133, false).validate(Map.of(), List.of(entries));
    }

    private static List<String> errors(PluginConfigInput... entries) {
        return validate(entries).errors();
    }

    // --- pluginConfig entries -------------------------------------------------------------------------------------

    @Test
    void duplicatePluginConfigNamesAreRejected() {
        assertThat(errors(config("NodeAffinity", "{}"), config("NodeAffinity", "{}")))
                .containsExactly("spec.pluginConfig[1].name: Duplicate value: \"NodeAffinity\"");
    }

    @Test
    void pluginConfigOfARemovedPluginIsRejected() {
        assertThat(errors(config("AzureDiskLimits", "{}")))
                .containsExactly("spec.pluginConfig[0].name: plugin \"AzureDiskLimits\" was removed:"
                        + " kube-scheduler 1.33 refuses it; use NodeVolumeLimits instead");
    }

    @Test
    void pluginConfigOfAnUnknownPluginIsIgnoredByKubeSchedulerSoOnlyWarned() {
        ValidationResult result = validate(config("Coscheduling", "permitWaitingTimeSeconds: 10"));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings())
                .containsExactly("spec.pluginConfig[0].name: plugin \"Coscheduling\" is not a known in-tree plugin of"
                        + " Kubernetes 1.33; kube-scheduler ignores its args");
    }

    @Test
    void pluginConfigOfAnOutOfTreePluginIsNotCheckedWithACustomImage() {
        ValidationResult result = new PluginArgsValidator(V133, true)
                .validate(Map.of(), List.of(config("Coscheduling", "permitWaitingTimeSeconds: 10")));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
    }

    @Test
    void argsOfAPluginWithoutArgsTypeAreWarned() {
        ValidationResult result = validate(config("NodeName", "foo: bar"));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings())
                .containsExactly("spec.pluginConfig[0].args: plugin \"NodeName\" takes no args; kube-scheduler ignores"
                        + " them");
    }

    @Test
    void dynamicResourcesHasNoArgsTypeIn133() {
        assertThat(validate(config("DynamicResources", "filterTimeout: -1s")).warnings())
                .containsExactly("spec.pluginConfig[0].args: plugin \"DynamicResources\" takes no args;"
                        + " kube-scheduler ignores them");
    }

    @Test
    void argsOfADisabledPluginAreStillValidatedAndWarned() {
        ValidationResult result = new PluginArgsValidator(V133, false)
                .validate(
                        Map.of("multiPoint", new PluginSetInput(null, List.of(PluginRef.of("InterPodAffinity")))),
                        List.of(config("InterPodAffinity", "hardPodAffinityWeight: 101")));
        assertThat(result.errors())
                .containsExactly("spec.pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid"
                        + " range [0, 100]");
        assertThat(result.warnings())
                .containsExactly("spec.pluginConfig[0].args: plugin \"InterPodAffinity\" is not enabled in this"
                        + " profile; its args are validated but have no effect");
    }

    // --- strict decoding --------------------------------------------------------------------------------------------

    @Test
    void unknownFieldsAreRejectedAtAnyDepth() {
        assertThat(errors(config("NodeResourcesFit", "scoringStrategy: {type: MostAllocated, typo: 1}\nextra: true")))
                .containsExactly(
                        "spec.pluginConfig[0].args.scoringStrategy.typo: unknown field \"typo\" in ScoringStrategy"
                                + " (kube-scheduler decodes its config strictly)",
                        "spec.pluginConfig[0].args.extra: unknown field \"extra\" in NodeResourcesFitArgs"
                                + " (kube-scheduler decodes its config strictly)");
    }

    @Test
    void fieldNamesAreCaseSensitive() {
        assertThat(errors(config("InterPodAffinity", "HardPodAffinityWeight: 5")))
                .containsExactly("spec.pluginConfig[0].args.HardPodAffinityWeight: unknown field"
                        + " \"HardPodAffinityWeight\" in InterPodAffinityArgs (kube-scheduler decodes its config"
                        + " strictly)");
    }

    @Test
    void valuesOfTheWrongTypeAreRejected() {
        assertThat(errors(
                        config(
                                "InterPodAffinity",
                                "hardPodAffinityWeight: \"5\"\nignorePreferredTermsOfExistingPods: yes please"),
                        config("VolumeBinding", "bindTimeoutSeconds: 1.5"),
                        config("DefaultPreemption", "minCandidateNodesAbsolute: 3000000000")))
                .containsExactly(
                        "spec.pluginConfig[0].args.hardPodAffinityWeight: Invalid value: \"5\": must be a 32-bit"
                                + " integer",
                        "spec.pluginConfig[0].args.ignorePreferredTermsOfExistingPods: Invalid value: \"yes please\":"
                                + " must be a boolean",
                        "spec.pluginConfig[1].args.bindTimeoutSeconds: Invalid value: 1.5: must be a 64-bit integer",
                        "spec.pluginConfig[2].args.minCandidateNodesAbsolute: Invalid value: 3000000000: must be a"
                                + " 32-bit integer");
    }

    @Test
    void integralFloatsAndNullsAreAccepted() {
        assertThat(errors(config(
                        "InterPodAffinity", "hardPodAffinityWeight: 5.0\nignorePreferredTermsOfExistingPods: null")))
                .isEmpty();
    }

    @Test
    void typeMetaMustMatchThePlugin() {
        assertThat(errors(
                        config("NodeAffinity", "kind: InterPodAffinityArgs"),
                        config("InterPodAffinity", "apiVersion: kubescheduler.config.k8s.io/v1beta3"),
                        config("VolumeBinding", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: VolumeBindingArgs")))
                .containsExactly(
                        "spec.pluginConfig[0].args.kind: Invalid value: \"InterPodAffinityArgs\": args for plugin"
                                + " NodeAffinity must be of kind NodeAffinityArgs",
                        "spec.pluginConfig[1].args.apiVersion: Invalid value: \"kubescheduler.config.k8s.io/v1beta3\":"
                                + " args of plugin InterPodAffinity must be kubescheduler.config.k8s.io/v1");
    }

    // --- NodeResourcesFit -----------------------------------------------------------------------------------------

    @Test
    void scoringStrategyTypeMustBeSupported() {
        assertThat(errors(config("NodeResourcesFit", "scoringStrategy: {type: Most}")))
                .containsExactly("spec.pluginConfig[0].args.scoringStrategy.type: Unsupported value: \"Most\":"
                        + " supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"");
    }

    @Test
    void scoringStrategyWithoutTypeIsNotDefaulted() {
        assertThat(errors(config("NodeResourcesFit", "scoringStrategy: {resources: [{name: cpu, weight: 1}]}")))
                .containsExactly("spec.pluginConfig[0].args.scoringStrategy.type: Unsupported value: \"\":"
                        + " supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"");
    }

    @Test
    void scoringResourceWeightsAreOneToHundredAfterDefaulting() {
        String args =
                """
                scoringStrategy:
                  type: MostAllocated
                  resources:
                  - {name: cpu, weight: 101}
                  - {name: memory, weight: -1}
                  - {name: nvidia.com/gpu, weight: 0}
                """;
        assertThat(errors(config("NodeResourcesFit", args)))
                .containsExactly(
                        "spec.pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: resource"
                                + " weight of cpu not in valid range (0, 100]",
                        "spec.pluginConfig[0].args.scoringStrategy.resources[1].weight: Invalid value: -1: resource"
                                + " weight of memory not in valid range (0, 100]");
    }

    @Test
    void requestedToCapacityRatioNeedsItsShape() {
        assertThat(errors(config("NodeResourcesFit", "scoringStrategy: {type: RequestedToCapacityRatio}")))
                .containsExactly("spec.pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: Required value:"
                        + " the RequestedToCapacityRatio strategy needs its shape (kube-scheduler crashes without"
                        + " it)");
        assertThat(errors(config(
                        "NodeResourcesFit",
                        "scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {}}")))
                .containsExactly("spec.pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape: Required"
                        + " value: at least one point must be specified");
    }

    @Test
    void requestedToCapacityRatioShapeIsSortedAndInRange() {
        String args =
                """
                scoringStrategy:
                  type: RequestedToCapacityRatio
                  requestedToCapacityRatio:
                    shape:
                    - {utilization: 50, score: 11}
                    - {utilization: 50, score: 0}
                    - {utilization: 101, score: -1}
                """;
        assertThat(errors(config("NodeResourcesFit", args)))
                .containsExactly(
                        "spec.pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization:"
                                + " Invalid value: 50: utilization values must be sorted in increasing order",
                        "spec.pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid"
                                + " value: 11: not in valid range [0, 10]",
                        "spec.pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[2].utilization:"
                                + " Invalid value: 101: not in valid range [0, 100]",
                        "spec.pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[2].score: Invalid"
                                + " value: -1: not in valid range [0, 10]");
    }

    // apimachinery's RegexError really prints "'MyName',  or 'my.name'" (comma, two spaces).
    @Test
    void ignoredResourcesAreLabelNamesAndGroupsHaveNoSlash() {
        assertThat(errors(config(
                        "NodeResourcesFit", "ignoredResources: [example.com/gpu, -bad]\nignoredResourceGroups: [a/b]")))
                .containsExactly(
                        "spec.pluginConfig[0].args.ignoredResources[1]: Invalid value: \"-bad\": name part must consist"
                                + " of alphanumeric characters, '-', '_' or '.', and must start and end with an"
                                + " alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used"
                                + " for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                        "spec.pluginConfig[0].args.ignoredResourceGroups[0]: Invalid value: \"a/b\": resource group"
                                + " name can't contain '/'");
    }

    @Test
    void nodeResourcesFitArgsAreOnlyCheckedWhenThePluginIsEnabled() {
        ValidationResult result = new PluginArgsValidator(V133, false)
                .validate(
                        Map.of("multiPoint", new PluginSetInput(null, List.of(PluginRef.of("NodeResourcesFit")))),
                        List.of(config("NodeResourcesFit", "scoringStrategy: {type: Most}")));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).hasSize(1);
        assertThat(result.warnings())
                .containsExactly("spec.pluginConfig[0].args: plugin \"NodeResourcesFit\" is not enabled in this"
                        + " profile; its args are validated but have no effect");
    }

    @Test
    void validNodeResourcesFitArgsPass() {
        String args =
                """
                ignoredResourceGroups: [example.com]
                scoringStrategy:
                  type: RequestedToCapacityRatio
                  resources: [{name: cpu, weight: 3}, {name: memory}]
                  requestedToCapacityRatio:
                    shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
                """;
        assertThat(validate(config("NodeResourcesFit", args)).errors()).isEmpty();
    }

    // --- DefaultPreemption, InterPodAffinity, NodeResourcesBalancedAllocation -------------------------------------

    @Test
    void defaultPreemptionRanges() {
        assertThat(errors(
                        config("DefaultPreemption", "minCandidateNodesPercentage: 101\nminCandidateNodesAbsolute: -1")))
                .containsExactly(
                        "spec.pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not in valid range"
                                + " [0, 100]",
                        "spec.pluginConfig[0].args.minCandidateNodesAbsolute: Invalid value: -1: not in valid range"
                                + " [0, inf)");
    }

    @Test
    void defaultPreemptionCannotHaveBothMinimaZero() {
        assertThat(errors(config("DefaultPreemption", "minCandidateNodesPercentage: 0\nminCandidateNodesAbsolute: 0")))
                .containsExactly(
                        "spec.pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the"
                                + " same time as minCandidateNodesAbsolute",
                        "spec.pluginConfig[0].args.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the"
                                + " same time as minCandidateNodesPercentage");
        // The unset one defaults to non-zero (10 % / 100 nodes).
        assertThat(errors(config("DefaultPreemption", "minCandidateNodesPercentage: 0")))
                .isEmpty();
    }

    @Test
    void hardPodAffinityWeightRange() {
        assertThat(errors(config("InterPodAffinity", "hardPodAffinityWeight: -1")))
                .containsExactly("spec.pluginConfig[0].args.hardPodAffinityWeight: Invalid value: -1: not in valid"
                        + " range [0, 100]");
        assertThat(errors(config("InterPodAffinity", "hardPodAffinityWeight: 0")))
                .isEmpty();
    }

    @Test
    void balancedAllocationResourcesAreUniqueWithWeightOne() {
        assertThat(errors(config(
                        "NodeResourcesBalancedAllocation",
                        "resources: [{name: cpu}, {name: cpu, weight: 1}, {name: memory, weight: 2}]")))
                .containsExactly(
                        "spec.pluginConfig[0].args.resources[1].name: Duplicate value: \"cpu\"",
                        "spec.pluginConfig[0].args.resources[2].weight: Invalid value: 2: must be 1");
    }

    // --- PodTopologySpread ----------------------------------------------------------------------------------------

    @Test
    void defaultingTypeMustBeSystemOrList() {
        assertThat(errors(config("PodTopologySpread", "defaultingType: Custom")))
                .containsExactly("spec.pluginConfig[0].args.defaultingType: Unsupported value: \"Custom\": supported"
                        + " values: \"System\", \"List\"");
    }

    @Test
    void defaultConstraintsNeedDefaultingTypeList() {
        assertThat(errors(config(
                        "PodTopologySpread",
                        "defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]")))
                .containsExactly("spec.pluginConfig[0].args.defaultingType: Invalid value: \"System\": when"
                        + " .defaultConstraints are not empty");
    }

    @Test
    void defaultConstraintsAreChecked() {
        String args =
                """
                defaultingType: List
                defaultConstraints:
                - {maxSkew: 0, topologyKey: "", whenUnsatisfiable: Never, labelSelector: {matchLabels: {app: x}}}
                - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
                - {maxSkew: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
                """;
        assertThat(errors(config("PodTopologySpread", args)))
                .containsExactly(
                        "spec.pluginConfig[0].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range"
                                + " (0, inf)",
                        "spec.pluginConfig[0].args.defaultConstraints[0].topologyKey: Required value: can not be empty",
                        "spec.pluginConfig[0].args.defaultConstraints[0].whenUnsatisfiable: Unsupported value:"
                                + " \"Never\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
                        "spec.pluginConfig[0].args.defaultConstraints[0].labelSelector: Forbidden: constraint must not"
                                + " define a selector, as they deduced for each pod",
                        "spec.pluginConfig[0].args.defaultConstraints[2]: Duplicate value:"
                                + " \"{topology.kubernetes.io/zone, DoNotSchedule}\"");
    }

    @Test
    void validListDefaultingPasses() {
        String args =
                """
                defaultingType: List
                defaultConstraints:
                - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}
                """;
        assertThat(validate(config("PodTopologySpread", args)).errors()).isEmpty();
    }

    // --- VolumeBinding --------------------------------------------------------------------------------------------

    @Test
    void bindTimeoutMustNotBeNegative() {
        assertThat(errors(config("VolumeBinding", "bindTimeoutSeconds: -5")))
                .containsExactly("spec.pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -5: invalid"
                        + " BindTimeoutSeconds, should not be a negative value");
    }

    @Test
    void shapeIsRefusedWhileItsFeatureGateIsOff() {
        assertThat(errors(config("VolumeBinding", "shape: [{utilization: 0, score: 10}]")))
                .containsExactly("spec.pluginConfig[0].args.shape: Invalid value: [{\"utilization\":0,\"score\":10}]:"
                        + " unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring");
        assertThat(new PluginArgsValidator(PluginCatalog.forVersion("1.32"), false)
                        .validate(Map.of(), List.of(config("VolumeBinding", "shape: []")))
                        .errors())
                .containsExactly("spec.pluginConfig[0].args.shape: Invalid value: []: unexpected field `shape`,"
                        + " remove it or turn on the feature gate VolumeCapacityPriority");
    }

    // --- NodeAffinity ---------------------------------------------------------------------------------------------

    @Test
    void addedAffinityRequirementsAreParsedLikeKubeSchedulerDoes() {
        String args =
                """
                addedAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                    - matchExpressions:
                      - {key: disk, operator: Exists, values: [ssd]}
                      - {key: zone, operator: In}
                      - {key: zone, operator: Near, values: [a]}
                      - {key: cpus, operator: Gt, values: [many]}
                      matchFields:
                      - {key: metadata.name, operator: Exists}
                  preferredDuringSchedulingIgnoredDuringExecution:
                  - weight: 0
                    preference: {matchExpressions: [{key: ignored, operator: Bad}]}
                  - weight: 5
                    preference: {matchExpressions: [{key: "bad key", operator: DoesNotExist}]}
                """;
        String required = "spec.pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                + ".nodeSelectorTerms[0]";
        assertThat(errors(config("NodeAffinity", args)))
                .containsExactly(
                        required + ".matchExpressions[0].values: Invalid value: [\"ssd\"]: values set must be empty for"
                                + " exists and does not exist",
                        required + ".matchExpressions[1].values: Invalid value: []: for 'in', 'notin' operators, values"
                                + " set can't be empty",
                        required + ".matchExpressions[2].operator: Unsupported value: \"Near\": supported values:"
                                + " \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"",
                        required + ".matchExpressions[3].values[0]: Invalid value: \"many\": for 'Gt', 'Lt' operators,"
                                + " the value must be an integer",
                        required + ".matchFields[0].operator: Unsupported value: \"Exists\": supported values: \"In\","
                                + " \"NotIn\"",
                        "spec.pluginConfig[0].args.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[1]"
                                + ".preference.matchExpressions[0].key: Invalid value: \"bad key\": name part must"
                                + " consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
                                + " alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used"
                                + " for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    }

    @Test
    void validAddedAffinityPasses() {
        String args =
                """
                addedAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                    - matchExpressions: [{key: priority.lixueduan.com, operator: Exists}]
                  preferredDuringSchedulingIgnoredDuringExecution:
                  - {weight: 10, preference: {matchExpressions: [{key: cpus, operator: Gt, values: ["4"]}]}}
                """;
        assertThat(validate(config("NodeAffinity", args)).errors()).isEmpty();
    }

    // --- DynamicResources (1.34) ----------------------------------------------------------------------------------

    @Test
    void dynamicResourcesFilterTimeoutIn134() {
        PluginArgsValidator v134 = new PluginArgsValidator(PluginCatalog.forVersion("1.34.2"), false);
        assertThat(v134.validate(Map.of(), List.of(config("DynamicResources", "filterTimeout: -1s")))
                        .errors())
                .containsExactly(
                        "spec.pluginConfig[0].args.filterTimeout: Invalid value: \"-1s\": must be zero or positive");
        assertThat(v134.validate(Map.of(), List.of(config("DynamicResources", "filterTimeout: soon")))
                        .errors())
                .containsExactly("spec.pluginConfig[0].args.filterTimeout: Invalid value: \"soon\": must be a duration"
                        + " such as \"10s\" or \"1m30s\"");
        assertThat(v134.validate(Map.of(), List.of(config("DynamicResources", "filterTimeout: 1m30s")))
                        .errors())
                .isEmpty();
    }

    // --- a realistic profile --------------------------------------------------------------------------------------

    @Test
    void aTypicalCustomisedProfileValidatesClean() {
        Map<String, PluginSetInput> plugins = new LinkedHashMap<>();
        plugins.put("multiPoint", new PluginSetInput(null, List.of(PluginRef.of("ImageLocality"))));
        plugins.put(
                "score",
                new PluginSetInput(
                        List.of(new PluginRef("NodeResourcesFit", 5), new PluginRef("PodTopologySpread", 1)), null));
        ValidationResult result = new PluginArgsValidator(V133, false)
                .validate(
                        plugins,
                        List.of(
                                config("NodeResourcesFit", "scoringStrategy: {type: MostAllocated}"),
                                config("DefaultPreemption", "minCandidateNodesAbsolute: 50"),
                                config("PodTopologySpread", "defaultingType: System")));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
    }
}
