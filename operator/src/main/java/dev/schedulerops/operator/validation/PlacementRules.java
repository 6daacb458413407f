package dev.schedulerops.operator.validation;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.PodPlacementSpec;
import dev.schedulerops.operator.model.Labels;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The placement fields of {@code extender} and {@code scheduler}: the CRD's CEL rules again (for `render`), and the
 * label and annotation syntax the API server would check only when the operator applies the Deployment, so that a bad
 * key is reported on the profile instead of as a failed apply. Null list items were refused before (ProfileValidator's
 * noNullItems).
 */
final class PlacementRules {
    /** What the API server allows for all annotations of one object together (apimachinery TotalAnnotationSizeLimitB). */
    static final int MAX_ANNOTATION_BYTES = 256 * 1024;

    static final Set<String> RESERVED_LABELS =
            Set.of(Labels.NAME, Labels.INSTANCE, Labels.COMPONENT, Labels.PART_OF, Labels.MANAGED_BY);

    private static final Set<String> OPERATORS = Set.of("Exists", "Equal");
    private static final Set<String> EFFECTS = Set.of("", "NoSchedule", "PreferNoSchedule", "NoExecute");
    private static final Set<String> WHEN_UNSATISFIABLE = Set.of("DoNotSchedule", "ScheduleAnyway");

    private PlacementRules() {}

    static void validate(String path, PodPlacementSpec spec, List<String> errors) {
        if (spec == null) {
            return;
        }
        labels(path + ".nodeSelector", spec.getNodeSelector(), errors);
        labels(path + ".podLabels", spec.getPodLabels(), errors);
        if (spec.getPodLabels() != null) {
            spec.getPodLabels().keySet().stream()
                    .filter(k -> RESERVED_LABELS.contains(k) || k.startsWith(PodPlacementSpec.RESERVED_PREFIX))
                    .forEach(k -> errors.add(path + ".podLabels: Forbidden: " + GoValues.shown(k)
                            + " is set by the operator (it selects the component's pods); choose another key"));
        }
        annotations(path + ".podAnnotations", spec.getPodAnnotations(), errors);
        size(path + ".nodeSelector", spec.getNodeSelector(), errors);
        size(path + ".podLabels", spec.getPodLabels(), errors);
        size(path + ".podAnnotations", spec.getPodAnnotations(), errors);
        tolerations(path + ".tolerations", spec.getTolerations(), errors);
        spread(path + ".topologySpreadConstraints", spec.getTopologySpreadConstraints(), errors);
        if (spec.getPriorityClassName() != null) {
            for (String message : LabelSyntax.dns1123SubdomainErrors(spec.getPriorityClassName())) {
                errors.add(path + ".priorityClassName: Invalid value: " + GoValues.shown(spec.getPriorityClassName())
                        + ": " + message);
            }
        }
        List<LocalObjectReference> pullSecrets = spec.getImagePullSecrets();
        if (pullSecrets != null) {
            for (int i = 0; i < pullSecrets.size(); i++) {
                LocalObjectReference ref = pullSecrets.get(i);
                if (ref.getName() == null || ref.getName().isEmpty()) {
                    errors.add(path + ".imagePullSecrets[" + i + "].name: Required value: the name of a Secret in the"
                            + " operator's workload namespace");
                }
            }
        }
    }

    private static void labels(String path, Map<String, String> labels, List<String> errors) {
        if (labels == null) {
            return;
        }
        labels.forEach((key, value) -> {
            for (String message : LabelSyntax.qualifiedNameErrors(key)) {
                errors.add(path + ": Invalid value: " + GoValues.shown(key) + ": " + message);
            }
            for (String message : LabelSyntax.labelValueErrors(value == null ? "" : value)) {
                errors.add(path + "[" + GoValues.shown(key) + "]: Invalid value: " + GoValues.shown(value) + ": "
                        + message);
            }
        });
    }

    private static void annotations(String path, Map<String, String> annotations, List<String> errors) {
        if (annotations == null) {
            return;
        }
        long bytes = 0;
        for (var e : annotations.entrySet()) {
            for (String message : LabelSyntax.qualifiedNameErrors(e.getKey())) {
                errors.add(path + ": Invalid value: " + GoValues.shown(e.getKey()) + ": " + message);
            }
            if (e.getKey().startsWith(PodPlacementSpec.RESERVED_PREFIX)) {
                errors.add(path + ": Forbidden: " + GoValues.shown(e.getKey()) + ": keys under "
                        + PodPlacementSpec.RESERVED_PREFIX
                        + " are the operator's own (its config and certificate hashes)");
            }
            bytes += e.getKey().getBytes(StandardCharsets.UTF_8).length;
            bytes += e.getValue() == null ? 0 : e.getValue().getBytes(StandardCharsets.UTF_8).length;
        }
        if (bytes > MAX_ANNOTATION_BYTES) {
            errors.add(path + ": Too long: may not be more than " + MAX_ANNOTATION_BYTES + " bytes in all");
        }
    }

    private static void size(String path, Map<String, String> map, List<String> errors) {
        if (map != null && map.size() > Defaults.MAX_PLACEMENT_ENTRIES) {
            errors.add(GoValues.tooMany(path, map.size(), Defaults.MAX_PLACEMENT_ENTRIES, "entries"));
        }
    }

    private static void tolerations(String path, List<Toleration> tolerations, List<String> errors) {
        if (tolerations == null) {
            return;
        }
        for (int i = 0; i < tolerations.size(); i++) {
            String at = path + "[" + i + "]";
            Toleration t = tolerations.get(i);
            boolean exists = "Exists".equals(t.getOperator());
            if (t.getOperator() != null && !OPERATORS.contains(t.getOperator())) {
                errors.add(at + ".operator: Unsupported value: " + GoValues.shown(t.getOperator())
                        + ": supported values: \"Equal\", \"Exists\"");
            }
            if (t.getEffect() != null && !EFFECTS.contains(t.getEffect())) {
                errors.add(at + ".effect: Unsupported value: " + GoValues.shown(t.getEffect())
                        + ": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\" or empty");
            }
            if ((t.getKey() == null || t.getKey().isEmpty()) && !exists) {
                errors.add(at + ".operator: Invalid value: " + GoValues.shown(t.getOperator())
                        + ": a toleration without a key must have operator Exists (it then tolerates every taint)");
            }
            if (t.getKey() != null && !t.getKey().isEmpty()) {
                for (String message : LabelSyntax.qualifiedNameErrors(t.getKey())) {
                    errors.add(at + ".key: Invalid value: " + GoValues.shown(t.getKey()) + ": " + message);
                }
            }
            if (exists && t.getValue() != null && !t.getValue().isEmpty()) {
                errors.add(at + ".value: Invalid value: " + GoValues.shown(t.getValue())
                        + ": a toleration with operator Exists must have no value");
            }
            if (t.getTolerationSeconds() != null && !"NoExecute".equals(t.getEffect())) {
                errors.add(at + ".tolerationSeconds: Invalid value: " + t.getTolerationSeconds()
                        + ": tolerationSeconds needs effect NoExecute");
            }
        }
    }

    private static void spread(String path, List<TopologySpreadConstraint> constraints, List<String> errors) {
        if (constraints == null) {
            return;
        }
        for (int i = 0; i < constraints.size(); i++) {
            String at = path + "[" + i + "]";
            TopologySpreadConstraint c = constraints.get(i);
            if (c.getTopologyKey() == null || c.getTopologyKey().isEmpty()) {
                errors.add(at + ".topologyKey: Required value: e.g. kubernetes.io/hostname");
            } else {
                for (String message : LabelSyntax.qualifiedNameErrors(c.getTopologyKey())) {
                    errors.add(
                            at + ".topologyKey: Invalid value: " + GoValues.shown(c.getTopologyKey()) + ": " + message);
                }
            }
            if (c.getMaxSkew() == null || c.getMaxSkew() < 1) {
                errors.add(at + ".maxSkew: Invalid value: " + c.getMaxSkew() + ": must be at least 1");
            }
            if (c.getWhenUnsatisfiable() == null || !WHEN_UNSATISFIABLE.contains(c.getWhenUnsatisfiable())) {
                errors.add(at + ".whenUnsatisfiable: Unsupported value: " + GoValues.format(c.getWhenUnsatisfiable())
                        + ": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
            }
        }
    }
}
