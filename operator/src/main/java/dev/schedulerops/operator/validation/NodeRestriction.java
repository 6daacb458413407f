package dev.schedulerops.operator.validation;

import java.util.Set;

/**
 * Which Node label keys a node's kubelet may set on its own Node, under the NodeRestriction admission plugin (every
 * supported release, 1.30 to 1.37, has the same rule: plugin/pkg/admission/noderestriction and
 * k8s.io/kubelet/pkg/apis/well_known_labels.go). A kubelet may set any key outside the kubernetes.io and k8s.io
 * domains, and within them its own well-known labels; it may not set keys under {@value #PREFIX} nor other
 * kubernetes.io or k8s.io keys. Without NodeRestriction, a kubelet may set any label.
 */
public final class NodeRestriction {
    /** The prefix Kubernetes reserves for labels that only administrators set on Nodes (node isolation). */
    public static final String PREFIX = "node-restriction.kubernetes.io/";

    private static final String DOMAIN = "node-restriction.kubernetes.io";

    private static final Set<String> KUBELET_LABELS = Set.of(
            "kubernetes.io/hostname",
            "topology.kubernetes.io/zone",
            "topology.kubernetes.io/region",
            "failure-domain.beta.kubernetes.io/zone",
            "failure-domain.beta.kubernetes.io/region",
            "beta.kubernetes.io/instance-type",
            "node.kubernetes.io/instance-type",
            "kubernetes.io/os",
            "kubernetes.io/arch",
            "beta.kubernetes.io/os",
            "beta.kubernetes.io/arch");

    private static final Set<String> KUBELET_DOMAINS = Set.of("kubelet.kubernetes.io", "node.kubernetes.io");

    private NodeRestriction() {}

    /** Whether a kubelet may set (add, change or remove) {@code key} on its own Node, NodeRestriction on. */
    public static boolean kubeletMaySet(String key) {
        String domain = key.contains("/") ? key.substring(0, key.indexOf('/')) : "";
        if (within(domain, DOMAIN)) {
            return false;
        }
        boolean kubernetes = within(domain, "kubernetes.io") || within(domain, "k8s.io");
        return !kubernetes
                || KUBELET_LABELS.contains(key)
                || KUBELET_DOMAINS.stream().anyMatch(d -> within(domain, d));
    }

    private static boolean within(String domain, String parent) {
        return domain.equals(parent) || domain.endsWith("." + parent);
    }
}
