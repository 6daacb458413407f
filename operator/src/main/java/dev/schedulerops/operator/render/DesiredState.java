package dev.schedulerops.operator.render;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything one valid profile becomes, split into the two rollout stages.
 *
 * @param names the names of the profile's objects, and the workload namespace they live in
 * @param extenderStage ServiceAccounts, RBAC, the extender Deployment, its Service and PodDisruptionBudget: applied
 *     first
 * @param schedulerStage the scheduler ConfigMap and Deployment: applied only once the extender Deployment is
 *     Available at its current generation
 * @param schedulerConfigYaml the KubeSchedulerConfiguration held by the ConfigMap
 * @param configHash hash of schedulerConfigYaml, also on the scheduler pod template
 * @param extenderImage the bundled extender's image, null for a plugins-only profile
 * @param tlsMode how the scheduler and the extender talk (the status warns unless Mutual)
 * @param bundledExtender whether the bundled extender runs (false: plugins only, no extender stage to wait for)
 * @param labelKey the node label the extender places pods by (the status warns when kubelets may set it); null for a
 *     plugins-only profile
 */
public record DesiredState(
        Names names,
        List<HasMetadata> extenderStage,
        List<HasMetadata> schedulerStage,
        String schedulerConfigYaml,
        String configHash,
        String schedulerImage,
        String extenderImage,
        TlsMode tlsMode,
        boolean bundledExtender,
        String labelKey) {

    public DesiredState {
        extenderStage = List.copyOf(extenderStage);
        schedulerStage = List.copyOf(schedulerStage);
    }

    /** With the default TLS mode. */
    public DesiredState(
            Names names,
            List<HasMetadata> extenderStage,
            List<HasMetadata> schedulerStage,
            String schedulerConfigYaml,
            String configHash,
            String schedulerImage,
            String extenderImage) {
        this(
                names,
                extenderStage,
                schedulerStage,
                schedulerConfigYaml,
                configHash,
                schedulerImage,
                extenderImage,
                Defaults.TLS_MODE,
                true,
                null);
    }

    /** Every object, in the order `render` prints them and the operator creates them. */
    public List<HasMetadata> all() {
        List<HasMetadata> all = new ArrayList<>(extenderStage);
        all.addAll(schedulerStage);
        return all;
    }

    /** The bundled extender's Deployment; fails for a plugins-only profile, see {@link #bundledExtender}. */
    public Deployment extenderDeployment() {
        return find(extenderStage, Deployment.class, Labels.COMPONENT_EXTENDER);
    }

    public Deployment schedulerDeployment() {
        return find(schedulerStage, Deployment.class, Labels.COMPONENT_SCHEDULER);
    }

    public ConfigMap schedulerConfigMap() {
        return find(schedulerStage, ConfigMap.class, Labels.COMPONENT_SCHEDULER);
    }

    private static <T extends HasMetadata> T find(List<HasMetadata> objects, Class<T> type, String component) {
        return objects.stream()
                .filter(type::isInstance)
                .filter(o -> component.equals(o.getMetadata().getLabels().get(Labels.COMPONENT)))
                .map(type::cast)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + type.getSimpleName() + " for " + component));
    }
}
