package dev.schedulerops.operator.render;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import java.util.List;

/**
 * The NetworkPolicy in front of the extender pods: the verb port admits only this profile's scheduler pods; the
 * health/metrics port admits the peers of spec.extender.metricsFrom, or anyone when it is unset. Every other ingress
 * to the extender pods is denied (by a cluster whose network plugin enforces NetworkPolicies).
 */
final class NetworkPolicyRenderer {
    private NetworkPolicyRenderer() {}

    static NetworkPolicy extender(ResolvedProfile p) {
        NetworkPolicyIngressRule verbs = new NetworkPolicyIngressRuleBuilder()
                .addNewFrom()
                .withNewPodSelector()
                .withMatchLabels(Labels.selector(p.names().profile(), Labels.COMPONENT_SCHEDULER))
                .endPodSelector()
                .endFrom()
                .addNewPort()
                .withProtocol("TCP")
                .withPort(new IntOrString(p.extenderPort()))
                .endPort()
                .build();
        NetworkPolicyIngressRule health = new NetworkPolicyIngressRuleBuilder()
                .withFrom(p.extender().metricsFrom().orElse(null))
                .addNewPort()
                .withProtocol("TCP")
                .withPort(new IntOrString(Names.EXTENDER_HEALTH_PORT))
                .endPort()
                .build();
        return new NetworkPolicyBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extenderNetworkPolicy(), Labels.COMPONENT_EXTENDER))
                .withNewSpec()
                .withNewPodSelector()
                .withMatchLabels(Labels.selector(p.names().profile(), Labels.COMPONENT_EXTENDER))
                .endPodSelector()
                .withPolicyTypes(List.of("Ingress"))
                .withIngress(verbs, health)
                .endSpec()
                .build();
    }
}
