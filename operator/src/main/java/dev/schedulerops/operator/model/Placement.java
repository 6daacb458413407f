package dev.schedulerops.operator.model;

import dev.schedulerops.operator.api.PodPlacementSpec;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A component's placement and pod extras as the user wrote them (nothing to default: every field is optional and
 * unset means what Kubernetes does without it). Maps keep the user's order, which the rendered YAML keeps too.
 */
public record Placement(
        Map<String, String> nodeSelector,
        List<Toleration> tolerations,
        Optional<Affinity> affinity,
        List<TopologySpreadConstraint> topologySpreadConstraints,
        Optional<String> priorityClassName,
        Map<String, String> podLabels,
        Map<String, String> podAnnotations,
        List<LocalObjectReference> imagePullSecrets) {

    public static Placement of(PodPlacementSpec spec) {
        if (spec == null) {
            return new Placement(
                    Map.of(), List.of(), Optional.empty(), List.of(), Optional.empty(), Map.of(), Map.of(), List.of());
        }
        return new Placement(
                orEmpty(spec.getNodeSelector()),
                orEmpty(spec.getTolerations()),
                Optional.ofNullable(spec.getAffinity()),
                orEmpty(spec.getTopologySpreadConstraints()),
                Optional.ofNullable(spec.getPriorityClassName()),
                orEmpty(spec.getPodLabels()),
                orEmpty(spec.getPodAnnotations()),
                orEmpty(spec.getImagePullSecrets()));
    }

    private static <K, V> Map<K, V> orEmpty(Map<K, V> map) {
        return map == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : List.copyOf(list);
    }
}
