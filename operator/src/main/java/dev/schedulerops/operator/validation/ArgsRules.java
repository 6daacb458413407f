package dev.schedulerops.operator.validation;

import static dev.schedulerops.operator.model.SchedulerConfigApi.API_VERSION;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * kube-scheduler's semantic checks of the in-tree args ({@code validation_pluginargs.go}), applied after its defaults
 * ({@code apis/config/v1/defaults.go}). Runs only on args whose shape decoded cleanly.
 */
final class ArgsRules {

    private static final int MAX_CUSTOM_PRIORITY_SCORE = 10;
    private static final List<String> SCORING_STRATEGY_TYPES =
            List.of("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio");

    private final PluginCatalog catalog;
    private final Findings findings;
    private final Predicate<String> gateEnabled;

    ArgsRules(PluginCatalog catalog, Findings findings, Predicate<String> gateEnabled) {
        this.catalog = catalog;
        this.findings = findings;
        this.gateEnabled = gateEnabled;
    }

    /**
     * @param pluginEnabled whether the resulting profile enables the plugin: NodeResourcesFitArgs are only checked
     *     by the plugin's constructor, because validation.go registers its validator under the wrong name
     */
    void check(String plugin, String kind, Map<String, Object> args, String path, boolean pluginEnabled) {
        if (!checkTypeMeta(plugin, kind, args, path)) {
            return;
        }
        ArgsKinds.ofKind(kind)
                .orElseThrow(() -> new IllegalArgumentException("no rules for " + kind))
                .rules()
                .check(this, args, path, pluginEnabled);
    }

    private boolean checkTypeMeta(String plugin, String kind, Map<String, Object> args, String path) {
        Object apiVersion = args.get("apiVersion");
        if (apiVersion != null && !API_VERSION.equals(apiVersion)) {
            findings.invalid(path + ".apiVersion", apiVersion, "args of plugin " + plugin + " must be " + API_VERSION);
            return false;
        }
        Object declaredKind = args.get("kind");
        if (declaredKind != null && !kind.equals(declaredKind) && !"".equals(declaredKind)) {
            findings.invalid(path + ".kind", declaredKind, "args for plugin " + plugin + " must be of kind " + kind);
            return false;
        }
        return true;
    }

    void defaultPreemption(Map<String, Object> args, String path) {
        long percentage = integer(args.get("minCandidateNodesPercentage"), 10);
        long absolute = integer(args.get("minCandidateNodesAbsolute"), 100);
        String percentagePath = path + ".minCandidateNodesPercentage";
        String absolutePath = path + ".minCandidateNodesAbsolute";
        if (percentage < 0 || percentage > 100) {
            findings.invalid(percentagePath, percentage, "not in valid range [0, 100]");
        }
        if (absolute < 0) {
            findings.invalid(absolutePath, absolute, "not in valid range [0, inf)");
        }
        if (percentage == 0 && absolute == 0) {
            findings.invalid(percentagePath, 0L, "cannot be zero at the same time as minCandidateNodesAbsolute");
            findings.invalid(absolutePath, 0L, "cannot be zero at the same time as minCandidateNodesPercentage");
        }
    }

    void interPodAffinity(Map<String, Object> args, String path) {
        long weight = integer(args.get("hardPodAffinityWeight"), 1);
        if (weight < 0 || weight > 100) {
            findings.invalid(path + ".hardPodAffinityWeight", weight, "not in valid range [0, 100]");
        }
    }

    void balancedAllocation(Map<String, Object> args, String path) {
        List<Object> resources = list(args.get("resources"));
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < resources.size(); i++) {
            Map<String, Object> resource = object(resources.get(i));
            String name = string(resource.get("name"));
            String resourcePath = path + ".resources[" + i + "]";
            if (!seen.add(name)) {
                findings.duplicate(resourcePath + ".name", name);
            }
            long weight = integer(resource.get("weight"), 0);
            long defaulted = weight == 0 ? 1 : weight;
            if (defaulted != 1) {
                findings.invalid(resourcePath + ".weight", defaulted, "must be 1");
            }
        }
    }

    void nodeResourcesFit(Map<String, Object> args, String path) {
        List<Object> ignored = list(args.get("ignoredResources"));
        for (int i = 0; i < ignored.size(); i++) {
            String resource = string(ignored.get(i));
            for (String message : LabelSyntax.qualifiedNameErrors(resource)) {
                findings.invalid(path + ".ignoredResources[" + i + "]", resource, message);
            }
        }
        List<Object> groups = list(args.get("ignoredResourceGroups"));
        for (int i = 0; i < groups.size(); i++) {
            String group = string(groups.get(i));
            String groupPath = path + ".ignoredResourceGroups[" + i + "]";
            if (group.contains("/")) {
                findings.invalid(groupPath, group, "resource group name can't contain '/'");
            }
            for (String message : LabelSyntax.qualifiedNameErrors(group)) {
                findings.invalid(groupPath, group, message);
            }
        }
        Object strategyValue = args.get("scoringStrategy");
        if (strategyValue == null) {
            return; // defaulted to LeastAllocated on cpu and memory
        }
        Map<String, Object> strategy = object(strategyValue);
        String strategyPath = path + ".scoringStrategy";
        String type = string(strategy.get("type"));
        if (!SCORING_STRATEGY_TYPES.contains(type)) {
            findings.notSupported(strategyPath + ".type", type, SCORING_STRATEGY_TYPES);
        }
        List<Object> resources = list(strategy.get("resources"));
        for (int i = 0; i < resources.size(); i++) {
            Map<String, Object> resource = object(resources.get(i));
            long weight = integer(resource.get("weight"), 0);
            long defaulted = weight == 0 ? 1 : weight;
            if (defaulted <= 0 || defaulted > 100) {
                findings.invalid(
                        strategyPath + ".resources[" + i + "].weight",
                        defaulted,
                        "resource weight of " + string(resource.get("name")) + " not in valid range (0, 100]");
            }
        }
        Object ratio = strategy.get("requestedToCapacityRatio");
        if (ratio != null) {
            functionShape(list(object(ratio).get("shape")), strategyPath + ".requestedToCapacityRatio.shape");
        } else if ("RequestedToCapacityRatio".equals(type)) {
            // NewFit dereferences the missing parameters: kube-scheduler panics at start-up.
            findings.required(
                    strategyPath + ".requestedToCapacityRatio",
                    "the RequestedToCapacityRatio strategy needs its shape (kube-scheduler crashes without it)");
        }
    }

    private void functionShape(List<Object> shape, String path) {
        if (shape.isEmpty()) {
            findings.required(path, "at least one point must be specified");
            return;
        }
        for (int i = 1; i < shape.size(); i++) {
            long previous = integer(object(shape.get(i - 1)).get("utilization"), 0);
            long current = integer(object(shape.get(i)).get("utilization"), 0);
            if (previous >= current) {
                findings.invalid(
                        path + "[" + i + "].utilization",
                        current,
                        "utilization values must be sorted in increasing order");
                break;
            }
        }
        for (int i = 0; i < shape.size(); i++) {
            Map<String, Object> point = object(shape.get(i));
            long utilization = integer(point.get("utilization"), 0);
            long score = integer(point.get("score"), 0);
            if (utilization < 0 || utilization > 100) {
                findings.invalid(path + "[" + i + "].utilization", utilization, "not in valid range [0, 100]");
            }
            if (score < 0 || score > MAX_CUSTOM_PRIORITY_SCORE) {
                findings.invalid(
                        path + "[" + i + "].score", score, "not in valid range [0, " + MAX_CUSTOM_PRIORITY_SCORE + "]");
            }
        }
    }

    void podTopologySpread(Map<String, Object> args, String path) {
        String defaultingType = string(args.get("defaultingType"));
        if (defaultingType.isEmpty()) {
            defaultingType = "System";
        }
        List<Object> constraints = list(args.get("defaultConstraints"));
        String typePath = path + ".defaultingType";
        if (!defaultingType.equals("System") && !defaultingType.equals("List")) {
            findings.notSupported(typePath, defaultingType, List.of("System", "List"));
        } else if (defaultingType.equals("System") && !constraints.isEmpty()) {
            findings.invalid(typePath, defaultingType, "when .defaultConstraints are not empty");
        }
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < constraints.size(); i++) {
            Map<String, Object> constraint = object(constraints.get(i));
            String constraintPath = path + ".defaultConstraints[" + i + "]";
            long maxSkew = integer(constraint.get("maxSkew"), 0);
            if (maxSkew <= 0) {
                findings.invalid(constraintPath + ".maxSkew", maxSkew, "not in valid range (0, inf)");
            }
            String topologyKey = string(constraint.get("topologyKey"));
            if (topologyKey.isEmpty()) {
                findings.required(constraintPath + ".topologyKey", "can not be empty");
            } else {
                for (String message : LabelSyntax.qualifiedNameErrors(topologyKey)) {
                    findings.invalid(constraintPath + ".topologyKey", topologyKey, message);
                }
            }
            String action = string(constraint.get("whenUnsatisfiable"));
            if (action.isEmpty()) {
                findings.required(constraintPath + ".whenUnsatisfiable", "can not be empty");
            } else if (!action.equals("DoNotSchedule") && !action.equals("ScheduleAnyway")) {
                findings.notSupported(
                        constraintPath + ".whenUnsatisfiable", action, List.of("DoNotSchedule", "ScheduleAnyway"));
            }
            if (constraint.get("labelSelector") != null) {
                findings.forbidden(
                        constraintPath + ".labelSelector",
                        "constraint must not define a selector, as they deduced for each pod");
            }
            String key = "{" + topologyKey + ", " + action + "}";
            if (seen.contains(key)) {
                findings.duplicate(constraintPath, key);
            }
            seen.add(key);
        }
    }

    void volumeBinding(Map<String, Object> args, String path) {
        long timeout = integer(args.get("bindTimeoutSeconds"), 600);
        if (timeout < 0) {
            findings.invalid(
                    path + ".bindTimeoutSeconds",
                    timeout,
                    "invalid BindTimeoutSeconds, should not be a negative value");
        }
        Object shape = args.get("shape");
        if (shape != null && gateEnabled.test(catalog.volumeBindingShapeFeatureGate())) {
            functionShape(list(shape), path + ".shape");
        } else if (shape != null) {
            // kube-scheduler refuses the field while the gate is off (the default up to 1.36).
            findings.invalid(
                    path + ".shape",
                    shape,
                    "unexpected field `shape`, remove it or turn on the feature gate "
                            + catalog.volumeBindingShapeFeatureGate());
        }
    }

    void dynamicResources(Map<String, Object> args, String path) {
        Object filterTimeout = args.get("filterTimeout");
        if (filterTimeout != null) {
            if (!gateEnabled.test("DRASchedulerFilterTimeout")) {
                findings.forbidden(path + ".filterTimeout", "DRASchedulingFilterTimeout feature gate is disabled");
            } else if (GoDuration.parseNanos(string(filterTimeout)).orElse(0L) < 0) {
                findings.invalid(path + ".filterTimeout", filterTimeout, "must be zero or positive");
            }
        }
        Object bindingTimeout = args.get("bindingTimeout");
        if (bindingTimeout != null) {
            if (!gateEnabled.test("DRADeviceBindingConditions") || !gateEnabled.test("DRAResourceClaimDeviceStatus")) {
                findings.forbidden(
                        path + ".bindingTimeout",
                        "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled");
            } else if (GoDuration.parseNanos(string(bindingTimeout)).orElse(0L) < 1_000_000_000L) {
                findings.invalid(path + ".bindingTimeout", bindingTimeout, "must be at least 1 second");
            }
        }
    }

    void nodeAffinity(Map<String, Object> args, String path) {
        Object addedValue = args.get("addedAffinity");
        if (addedValue == null) {
            return;
        }
        Map<String, Object> added = object(addedValue);
        String addedPath = path + ".addedAffinity";
        Object required = added.get("requiredDuringSchedulingIgnoredDuringExecution");
        if (required != null) {
            String termsPath = addedPath + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
            List<Object> terms = list(object(required).get("nodeSelectorTerms"));
            for (int i = 0; i < terms.size(); i++) {
                nodeSelectorTerm(object(terms.get(i)), termsPath + "[" + i + "]");
            }
        }
        List<Object> preferred = list(added.get("preferredDuringSchedulingIgnoredDuringExecution"));
        for (int i = 0; i < preferred.size(); i++) {
            Map<String, Object> term = object(preferred.get(i));
            if (integer(term.get("weight"), 0) == 0) {
                continue; // skipped unparsed by NewPreferredSchedulingTerms
            }
            nodeSelectorTerm(
                    object(term.get("preference")),
                    addedPath + ".preferredDuringSchedulingIgnoredDuringExecution[" + i + "].preference");
        }
    }

    private void nodeSelectorTerm(Map<String, Object> term, String path) {
        List<Object> expressions = list(term.get("matchExpressions"));
        for (int j = 0; j < expressions.size(); j++) {
            labelRequirement(object(expressions.get(j)), path + ".matchExpressions[" + j + "]");
        }
        List<Object> fields = list(term.get("matchFields"));
        for (int j = 0; j < fields.size(); j++) {
            Map<String, Object> requirement = object(fields.get(j));
            String requirementPath = path + ".matchFields[" + j + "]";
            String operator = string(requirement.get("operator"));
            List<Object> values = list(requirement.get("values"));
            if (operator.equals("In") || operator.equals("NotIn")) {
                if (values.size() != 1) {
                    findings.invalid(requirementPath + ".values", values, "must have one element");
                }
            } else {
                findings.notSupported(requirementPath + ".operator", operator, List.of("In", "NotIn"));
            }
        }
    }

    /** component-helpers' nodeSelectorRequirementsAsSelector and apimachinery's labels.NewRequirement. */
    private void labelRequirement(Map<String, Object> requirement, String path) {
        String operator = string(requirement.get("operator"));
        String key = string(requirement.get("key"));
        List<Object> values = list(requirement.get("values"));
        List<String> operators = List.of("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt");
        if (!operators.contains(operator)) {
            findings.notSupported(path + ".operator", operator, operators);
            return;
        }
        List<String> keyErrors = LabelSyntax.qualifiedNameErrors(key);
        if (!keyErrors.isEmpty()) {
            findings.invalid(path + ".key", key, String.join("; ", keyErrors));
        }
        String valuesPath = path + ".values";
        switch (operator) {
            case "In", "NotIn" -> {
                if (values.isEmpty()) {
                    findings.invalid(valuesPath, values, "for 'in', 'notin' operators, values set can't be empty");
                }
            }
            case "Exists", "DoesNotExist" -> {
                if (!values.isEmpty()) {
                    findings.invalid(valuesPath, values, "values set must be empty for exists and does not exist");
                }
            }
            default -> {
                if (values.size() != 1) {
                    findings.invalid(valuesPath, values, "for 'Gt', 'Lt' operators, exactly one value is required");
                }
                for (int i = 0; i < values.size(); i++) {
                    if (!isInt64(string(values.get(i)))) {
                        findings.invalid(
                                valuesPath + "[" + i + "]",
                                values.get(i),
                                "for 'Gt', 'Lt' operators, the value must be an integer");
                    }
                }
            }
        }
        for (int i = 0; i < values.size(); i++) {
            String value = string(values.get(i));
            List<String> valueErrors = LabelSyntax.labelValueErrors(value);
            if (!valueErrors.isEmpty()) {
                findings.invalid(valuesPath + "[" + i + "][" + key + "]", value, String.join("; ", valueErrors));
            }
        }
    }

    private static boolean isInt64(String value) {
        try {
            Long.parseLong(value);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value) {
        return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        return value instanceof List<?> items ? (List<Object>) items : List.of();
    }

    private static String string(Object value) {
        return value instanceof String string ? string : "";
    }

    private static long integer(Object value, long ifUnset) {
        return value instanceof Number number ? number.longValue() : ifUnset;
    }
}
