package dev.schedulerops.operator.validation;

import static dev.schedulerops.operator.validation.ArgsShape.Scalar.BOOL;
import static dev.schedulerops.operator.validation.ArgsShape.Scalar.DURATION;
import static dev.schedulerops.operator.validation.ArgsShape.Scalar.INT32;
import static dev.schedulerops.operator.validation.ArgsShape.Scalar.INT64;
import static dev.schedulerops.operator.validation.ArgsShape.Scalar.STRING;
import static dev.schedulerops.operator.validation.ArgsShape.argsKind;
import static dev.schedulerops.operator.validation.ArgsShape.listOf;
import static dev.schedulerops.operator.validation.ArgsShape.object;

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

    private static final Map<String, ArgsShape.ObjectOf> KINDS = Map.of(
            "DefaultPreemptionArgs",
            argsKind("DefaultPreemptionArgs", "minCandidateNodesPercentage", INT32, "minCandidateNodesAbsolute", INT32),
            "InterPodAffinityArgs",
            argsKind(
                    "InterPodAffinityArgs", "hardPodAffinityWeight", INT32, "ignorePreferredTermsOfExistingPods", BOOL),
            "NodeAffinityArgs",
            argsKind("NodeAffinityArgs", "addedAffinity", NODE_AFFINITY),
            "NodeResourcesBalancedAllocationArgs",
            argsKind("NodeResourcesBalancedAllocationArgs", "resources", listOf(RESOURCE_SPEC)),
            "NodeResourcesFitArgs",
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
            "PodTopologySpreadArgs",
            argsKind(
                    "PodTopologySpreadArgs",
                    "defaultConstraints",
                    listOf(TOPOLOGY_SPREAD_CONSTRAINT),
                    "defaultingType",
                    STRING),
            "VolumeBindingArgs",
            argsKind("VolumeBindingArgs", "bindTimeoutSeconds", INT64, "shape", listOf(SHAPE_POINT)),
            "DynamicResourcesArgs",
            argsKind("DynamicResourcesArgs", "filterTimeout", DURATION));

    private ArgsKinds() {}

    static Optional<ArgsShape.ObjectOf> shapeOf(String kind) {
        return Optional.ofNullable(KINDS.get(kind));
    }
}
