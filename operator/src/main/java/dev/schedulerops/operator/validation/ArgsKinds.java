package dev.schedulerops.operator.validation;

import static dev.schedulerops.operator.validation.ArgsShape.Scalar.BOOL;
import static dev.schedulerops.operator.validation.ArgsShape.Scalar.DURATION;
import static dev.schedulerops.operator.validation.ArgsShape.Scalar.INT32;
import static dev.schedulerops.operator.validation.ArgsShape.Scalar.INT64;
import static dev.schedulerops.operator.validation.ArgsShape.Scalar.STRING;
import static dev.schedulerops.operator.validation.ArgsShape.argsKind;
import static dev.schedulerops.operator.validation.ArgsShape.listOf;
import static dev.schedulerops.operator.validation.ArgsShape.object;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The JSON shapes of the in-tree args kinds ({@code k8s.io/kube-scheduler/config/v1/types_pluginargs.go}) and the
 * core/v1 types they embed, with their JSON field names.
 */
final class ArgsKinds {

    private static final ArgsShape RESOURCE_SPEC = object("ResourceSpec", "name", STRING, "weight", INT64);
    private static final ArgsShape SHAPE_POINT = object("UtilizationShapePoint", "utilization", INT32, "score", INT32);

    private static final ArgsShape LABEL_SELECTOR = object(
            "LabelSelector",
            "matchLabels",
            new ArgsShape.StringMap(),
            "matchExpressions",
            listOf(object("LabelSelectorRequirement", "key", STRING, "operator", STRING, "values", listOf(STRING))));
    private static final ArgsShape TOPOLOGY_SPREAD_CONSTRAINT = object(
            "TopologySpreadConstraint",
            "maxSkew",
            INT32,
            "topologyKey",
            STRING,
            "whenUnsatisfiable",
            STRING,
            "labelSelector",
            LABEL_SELECTOR,
            "minDomains",
            INT32,
            "nodeAffinityPolicy",
            STRING,
            "nodeTaintsPolicy",
            STRING,
            "matchLabelKeys",
            listOf(STRING));

    private static final ArgsShape NODE_SELECTOR_REQUIREMENT =
            object("NodeSelectorRequirement", "key", STRING, "operator", STRING, "values", listOf(STRING));
    private static final ArgsShape NODE_SELECTOR_TERM = object(
            "NodeSelectorTerm",
            "matchExpressions",
            listOf(NODE_SELECTOR_REQUIREMENT),
            "matchFields",
            listOf(NODE_SELECTOR_REQUIREMENT));
    private static final ArgsShape NODE_AFFINITY = object(
            "NodeAffinity",
            "requiredDuringSchedulingIgnoredDuringExecution",
            object("NodeSelector", "nodeSelectorTerms", listOf(NODE_SELECTOR_TERM)),
            "preferredDuringSchedulingIgnoredDuringExecution",
            listOf(object("PreferredSchedulingTerm", "weight", INT32, "preference", NODE_SELECTOR_TERM)));

    /**
     * Every in-tree plugin with typed args, in one place: the plugin, the minor version since which it has args, the
     * JSON shape of its args kind and the rules kube-scheduler's validation applies to them. {@link PluginCatalog}
     * reads which plugins have args from here, {@link StrictDecoder} the shapes and {@link ArgsRules} the rules.
     */
    static final List<PluginArgs> ALL = List.of(
            new PluginArgs(
                    "DefaultPreemption",
                    argsKind(
                            "DefaultPreemptionArgs",
                            "minCandidateNodesPercentage",
                            INT32,
                            "minCandidateNodesAbsolute",
                            INT32),
                    (rules, args, path, enabled) -> rules.defaultPreemption(args, path)),
            new PluginArgs(
                    "InterPodAffinity",
                    argsKind(
                            "InterPodAffinityArgs",
                            "hardPodAffinityWeight",
                            INT32,
                            "ignorePreferredTermsOfExistingPods",
                            BOOL),
                    (rules, args, path, enabled) -> rules.interPodAffinity(args, path)),
            new PluginArgs(
                    "NodeAffinity",
                    argsKind("NodeAffinityArgs", "addedAffinity", NODE_AFFINITY),
                    (rules, args, path, enabled) -> rules.nodeAffinity(args, path)),
            new PluginArgs(
                    "NodeResourcesBalancedAllocation",
                    argsKind("NodeResourcesBalancedAllocationArgs", "resources", listOf(RESOURCE_SPEC)),
                    (rules, args, path, enabled) -> rules.balancedAllocation(args, path)),
            new PluginArgs(
                    "NodeResourcesFit",
                    argsKind(
                            "NodeResourcesFitArgs",
                            "ignoredResources",
                            listOf(STRING),
                            "ignoredResourceGroups",
                            listOf(STRING),
                            "scoringStrategy",
                            object(
                                    "ScoringStrategy",
                                    "type",
                                    STRING,
                                    "resources",
                                    listOf(RESOURCE_SPEC),
                                    "requestedToCapacityRatio",
                                    object("RequestedToCapacityRatioParam", "shape", listOf(SHAPE_POINT)))),
                    (rules, args, path, enabled) -> {
                        // Only the plugin's constructor checks these: validation.go registers the validator under
                        // the wrong name.
                        if (enabled) {
                            rules.nodeResourcesFit(args, path);
                        }
                    }),
            new PluginArgs(
                    "PodTopologySpread",
                    argsKind(
                            "PodTopologySpreadArgs",
                            "defaultConstraints",
                            listOf(TOPOLOGY_SPREAD_CONSTRAINT),
                            "defaultingType",
                            STRING),
                    (rules, args, path, enabled) -> rules.podTopologySpread(args, path)),
            new PluginArgs(
                    "VolumeBinding",
                    argsKind("VolumeBindingArgs", "bindTimeoutSeconds", INT64, "shape", listOf(SHAPE_POINT)),
                    (rules, args, path, enabled) -> rules.volumeBinding(args, path)),
            new PluginArgs(
                    "DynamicResources",
                    argsKind("DynamicResourcesArgs", "filterTimeout", DURATION, "bindingTimeout", DURATION),
                    (rules, args, path, enabled) -> rules.dynamicResources(args, path)));

    /** One plugin's args: the union of its fields over the supported versions (each catalogue says which it has). */
    record PluginArgs(String plugin, ArgsShape.ObjectOf shape, Rules rules) {
        PluginArgs {
            if (!shape.goType().equals(plugin + "Args")) {
                throw new IllegalArgumentException(
                        plugin + "'s args kind is " + plugin + "Args, not " + shape.goType());
            }
        }

        String kind() {
            return plugin + "Args";
        }
    }

    /** The checks of one args kind, beyond its shape. */
    @FunctionalInterface
    interface Rules {
        /** @param pluginEnabled whether the resulting profile enables the plugin */
        void check(ArgsRules rules, Map<String, Object> args, String path, boolean pluginEnabled);
    }

    private ArgsKinds() {}

    static Optional<PluginArgs> ofKind(String kind) {
        return ALL.stream().filter(a -> a.kind().equals(kind)).findFirst();
    }

    static Optional<ArgsShape.ObjectOf> shapeOf(String kind) {
        return ofKind(kind).map(PluginArgs::shape);
    }

    /**
     * The shape of an args kind as the catalogue's version decodes it: the fields that version's args type has (plus
     * the inline TypeMeta), so a field added in a later version is an unknown field for an earlier one.
     */
    static ArgsShape.ObjectOf shapeIn(PluginCatalog catalog, String kind) {
        ArgsShape.ObjectOf all = shapeOf(kind)
                .orElseThrow(() -> new IllegalStateException("no JSON shape for " + kind + " of Kubernetes "
                        + catalog.version() + ": add it to ArgsKinds.ALL"));
        List<String> fields = catalog.argsKinds().getOrDefault(kind, List.of());
        Map<String, ArgsShape> kept = new java.util.LinkedHashMap<>();
        all.fields().forEach((field, shape) -> {
            if (fields.contains(field) || field.equals("apiVersion") || field.equals("kind")) {
                kept.put(field, shape);
            }
        });
        return new ArgsShape.ObjectOf(all.goType(), kept);
    }
}
