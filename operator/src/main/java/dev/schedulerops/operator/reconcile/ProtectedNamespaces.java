package dev.schedulerops.operator.reconcile;

import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Namespaces the operator renders no workload into: when the installer chose one of them as the workload namespace,
 * every profile is refused (ConfigValid=False, Stalled, reason ProtectedNamespace) and nothing is created. The default
 * protects the control plane's namespaces; the operator's configuration (SCHEDULEROPS_PROTECTED_NAMESPACES, Helm value
 * {@code protectedNamespaces}) replaces the list.
 *
 * <p>The one object the operator itself puts into kube-system for any profile, the RoleBinding that lets the scheduler
 * read {@code extension-apiserver-authentication}, is not "rendering into" kube-system in this sense: it grants a read
 * to a ServiceAccount of the workload namespace.
 */
public record ProtectedNamespaces(Set<String> names) {
    public static final Set<String> DEFAULT = Set.of("kube-system", "kube-public", "kube-node-lease");

    public ProtectedNamespaces {
        names = Set.copyOf(names);
    }

    public static ProtectedNamespaces defaults() {
        return new ProtectedNamespaces(DEFAULT);
    }

    /**
     * Why profiles are refused when {@code workloadNamespace} is the workload namespace, or empty when it is not
     * protected.
     */
    public Optional<String> refusal(String workloadNamespace) {
        if (workloadNamespace == null || !names.contains(workloadNamespace)) {
            return Optional.empty();
        }
        return Optional.of(
                "the operator's workload namespace '" + workloadNamespace + "' is protected: the operator"
                        + " creates no scheduler in " + String.join(", ", new TreeSet<>(names))
                        + " (operator setting SCHEDULEROPS_PROTECTED_NAMESPACES, Helm value protectedNamespaces). An"
                        + " administrator must install the operator with another workload namespace"
                        + " (SCHEDULEROPS_WORKLOAD_NAMESPACE, Helm value workloadNamespace); the profile itself needs no change");
    }
}
