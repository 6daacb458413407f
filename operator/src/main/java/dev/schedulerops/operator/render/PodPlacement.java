package dev.schedulerops.operator.render;

import dev.schedulerops.operator.model.Placement;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A component's {@link Placement} on its pod template. The user's labels and annotations come first and the operator's
 * own are put over them (admission refuses the reserved keys anyway); topology spread constraints, when given, replace
 * the operator's defaults, and one without a labelSelector counts this component's pods.
 */
final class PodPlacement {
    private PodPlacement() {}

    /** Puts {@code placement} on the pod template of {@code deployment}, a Deployment just built by a renderer. */
    static Deployment applyTo(Deployment deployment, Placement placement, Map<String, String> selector) {
        deployment.getSpec().setTemplate(apply(deployment.getSpec().getTemplate(), placement, selector));
        return deployment;
    }

    static PodTemplateSpec apply(PodTemplateSpec template, Placement placement, Map<String, String> selector) {
        var meta = template.getMetadata();
        PodTemplateSpecBuilder b = new PodTemplateSpecBuilder(template)
                .editMetadata()
                .withLabels(under(placement.podLabels(), meta.getLabels()))
                .withAnnotations(emptyToNull(under(placement.podAnnotations(), meta.getAnnotations())))
                .endMetadata();
        var s = b.editSpec();
        if (!placement.nodeSelector().isEmpty()) {
            s.withNodeSelector(new LinkedHashMap<>(placement.nodeSelector()));
        }
        if (!placement.tolerations().isEmpty()) {
            s.withTolerations(placement.tolerations());
        }
        placement.affinity().ifPresent(s::withAffinity);
        if (!placement.topologySpreadConstraints().isEmpty()) {
            s.withTopologySpreadConstraints(placement.topologySpreadConstraints().stream()
                    .map(c -> withDefaultSelector(c, selector))
                    .toList());
        }
        placement.priorityClassName().ifPresent(s::withPriorityClassName);
        if (!placement.imagePullSecrets().isEmpty()) {
            s.withImagePullSecrets(placement.imagePullSecrets());
        }
        return s.endSpec().build();
    }

    private static Map<String, String> under(Map<String, String> user, Map<String, String> operator) {
        Map<String, String> merged = new LinkedHashMap<>(user);
        if (operator != null) {
            merged.putAll(operator);
        }
        return merged;
    }

    private static Map<String, String> emptyToNull(Map<String, String> map) {
        return map.isEmpty() ? null : map;
    }

    private static TopologySpreadConstraint withDefaultSelector(
            TopologySpreadConstraint c, Map<String, String> selector) {
        if (c.getLabelSelector() != null) {
            return c;
        }
        return new TopologySpreadConstraintBuilder(c)
                .withNewLabelSelector()
                .withMatchLabels(new LinkedHashMap<>(selector))
                .endLabelSelector()
                .build();
    }
}
