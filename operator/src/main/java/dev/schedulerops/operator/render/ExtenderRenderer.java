package dev.schedulerops.operator.render;

import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The extender's ServiceAccount, Deployment, Service and (with more than one replica) PodDisruptionBudget. */
final class ExtenderRenderer {
    private static final IntOrString HTTP_PORT = new IntOrString("http");

    private ExtenderRenderer() {}

    static List<HasMetadata> render(ResolvedProfile p, ClusterFacts facts) {
        Map<String, String> selector = Labels.selector(p.names().profile(), Labels.COMPONENT_EXTENDER);
        List<HasMetadata> objects = new ArrayList<>();
        objects.add(serviceAccount(p));
        objects.add(deployment(p, facts, selector));
        objects.add(service(p, selector));
        if (p.extender().replicas() > 1) {
            objects.add(podDisruptionBudget(p, selector));
        }
        return objects;
    }

    private static HasMetadata serviceAccount(ResolvedProfile p) {
        return new ServiceAccountBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extender(), Labels.COMPONENT_EXTENDER))
                .withAutomountServiceAccountToken(p.extenderNeedsApi())
                .build();
    }

    private static Deployment deployment(ResolvedProfile p, ClusterFacts facts, Map<String, String> selector) {
        return new DeploymentBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extender(), Labels.COMPONENT_EXTENDER))
                .withNewSpec()
                .withReplicas(p.extender().replicas())
                .withRevisionHistoryLimit(3)
                .withNewSelector()
                .withMatchLabels(selector)
                .endSelector()
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(0))
                .withMaxSurge(new IntOrString(1))
                .endRollingUpdate()
                .endStrategy()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(Labels.component(p.names().profile(), p.names().namespace(), Labels.COMPONENT_EXTENDER))
                .endMetadata()
                .withNewSpec()
                // The extender's own pods must never wait for the scheduler that depends on them.
                .withSchedulerName(Names.DEFAULT_SCHEDULER)
                .withServiceAccountName(p.names().extender())
                .withAutomountServiceAccountToken(p.extenderNeedsApi())
                .withEnableServiceLinks(false)
                .withTerminationGracePeriodSeconds(30L)
                .withSecurityContext(PodSecurity.pod())
                .withTopologySpreadConstraints(
                        spread("kubernetes.io/hostname", selector), spread("topology.kubernetes.io/zone", selector))
                .addNewContainer()
                .withName("extender")
                .withImage(p.extenderImage(facts))
                .withImagePullPolicy("IfNotPresent")
                .withEnv(env(p))
                .addNewPort()
                .withName("http")
                .withContainerPort(Names.EXTENDER_PORT)
                .withProtocol("TCP")
                .endPort()
                .withLivenessProbe(PodParts.probe("HTTP", HTTP_PORT, "/healthz", 3))
                .withReadinessProbe(PodParts.probe("HTTP", HTTP_PORT, "/readyz", 1))
                .withStartupProbe(PodParts.startupProbe("HTTP", HTTP_PORT, "/healthz"))
                .withResources(p.extender().resources())
                .withSecurityContext(PodSecurity.container())
                .addToVolumeMounts(PodParts.tmpMount())
                .endContainer()
                .addToVolumes(PodParts.tmpVolume())
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private static List<EnvVar> env(ResolvedProfile p) {
        return List.of(
                new EnvVar("SCHEDULEROPS_LABEL_KEY", p.labelKey(), null),
                new EnvVar("SCHEDULEROPS_PORT", Integer.toString(Names.EXTENDER_PORT), null),
                new EnvVar("SCHEDULEROPS_NODE_CACHE", Boolean.toString(p.extenderNeedsNodeCache()), null),
                new EnvVar("SCHEDULEROPS_LOG_FORMAT", "json", null),
                new EnvVar("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75", null));
    }

    private static TopologySpreadConstraint spread(String topologyKey, Map<String, String> selector) {
        return new TopologySpreadConstraintBuilder()
                .withMaxSkew(1)
                .withTopologyKey(topologyKey)
                .withWhenUnsatisfiable("ScheduleAnyway")
                .withNewLabelSelector()
                .withMatchLabels(selector)
                .endLabelSelector()
                .build();
    }

    private static HasMetadata service(ResolvedProfile p, Map<String, String> selector) {
        return new ServiceBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extender(), Labels.COMPONENT_EXTENDER))
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(selector)
                .addNewPort()
                .withName("http")
                .withPort(Names.EXTENDER_PORT)
                .withTargetPort(HTTP_PORT)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build();
    }

    private static HasMetadata podDisruptionBudget(ResolvedProfile p, Map<String, String> selector) {
        return new PodDisruptionBudgetBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extender(), Labels.COMPONENT_EXTENDER))
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector()
                .withMatchLabels(selector)
                .endSelector()
                .endSpec()
                .build();
    }
}
