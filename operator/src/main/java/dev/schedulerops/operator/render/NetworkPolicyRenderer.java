package dev.schedulerops.operator.render;

import dev.schedulerops.operator.model.ApiServerEndpoint;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.ArrayList;
import java.util.List;

/**
 * The NetworkPolicy around the extender pods. Ingress: the verb port admits only this profile's scheduler pods; the
 * health/metrics port admits the peers of spec.extender.metricsFrom, and no pod when it is unset (the kubelet's
 * probes come from the node, which network plugins admit whatever the policy says). Egress: the API server only (its
 * EndpointSlice's addresses and port), which is all the extender talks to, and only when it needs the API at all (a
 * node cache or Bind; otherwise it has no token either, and no egress); it resolves no name, so not even DNS. Where
 * the API server's address is not known (render without it), the egress of an extender that needs it is left open.
 */
final class NetworkPolicyRenderer {
    private NetworkPolicyRenderer() {}

    static NetworkPolicy extender(ResolvedProfile p, ClusterFacts facts) {
        List<NetworkPolicyIngressRule> ingress = new ArrayList<>();
        ingress.add(new NetworkPolicyIngressRuleBuilder()
                .addNewFrom()
                .withNewPodSelector()
                .withMatchLabels(Labels.selector(p.names().profile(), Labels.COMPONENT_SCHEDULER))
                .endPodSelector()
                .endFrom()
                .addNewPort()
                .withProtocol("TCP")
                .withPort(new IntOrString(p.extenderPort()))
                .endPort()
                .build());
        List<NetworkPolicyPeer> metricsFrom = p.extender().metricsFrom().orElse(List.of());
        if (!metricsFrom.isEmpty()) {
            ingress.add(new NetworkPolicyIngressRuleBuilder()
                    .withFrom(metricsFrom)
                    .addNewPort()
                    .withProtocol("TCP")
                    .withPort(new IntOrString(Names.EXTENDER_HEALTH_PORT))
                    .endPort()
                    .build());
        }
        List<String> types = new ArrayList<>(List.of("Ingress"));
        List<NetworkPolicyEgressRule> egress = new ArrayList<>();
        if (!p.extenderNeedsApi()) {
            types.add("Egress");
        } else if (!facts.apiServer().isEmpty()) {
            types.add("Egress");
            for (ApiServerEndpoint endpoint : facts.apiServer()) {
                egress.add(new NetworkPolicyEgressRuleBuilder()
                        .addNewTo()
                        .withNewIpBlock()
                        .withCidr(endpoint.cidr())
                        .endIpBlock()
                        .endTo()
                        .addNewPort()
                        .withProtocol("TCP")
                        .withPort(new IntOrString(endpoint.port()))
                        .endPort()
                        .build());
            }
        }
        return new NetworkPolicyBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extenderNetworkPolicy(), Labels.COMPONENT_EXTENDER))
                .withNewSpec()
                .withNewPodSelector()
                .withMatchLabels(Labels.selector(p.names().profile(), Labels.COMPONENT_EXTENDER))
                .endPodSelector()
                .withPolicyTypes(types)
                .withIngress(ingress)
                .withEgress(egress.isEmpty() ? null : egress)
                .endSpec()
                .build();
    }
}
