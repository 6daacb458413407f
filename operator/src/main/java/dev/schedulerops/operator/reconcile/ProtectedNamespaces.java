package dev.schedulerops.operator.reconcile;

import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Namespaces the operator renders nothing into: a profile there is refused (ConfigValid=False, Stalled) and no object
 * is created for it. The default protects the control plane's namespaces; the operator's configuration
 * (SCHEDULEROPS_PROTECTED_NAMESPACES, Helm value {@code protectedNamespaces}) replaces the list.
 *
 * <p>The one object the operator itself puts into kube-system for any profile, the RoleBinding that lets the scheduler
 * read {@code extension-apiserver-authentication}, is not "rendering into" kube-system in this sense: it belongs to a
 * profile that lives elsewhere.
 */
public record ProtectedNamespaces(Set<String> names) {
    public static final Set<String> DEFAULT = Set.of("kube-system", "kube-public", "kube-node-lease");

    public ProtectedNamespaces {
        names = Set.copyOf(names);
    }

    public static ProtectedNamespaces defaults() {
        return new ProtectedNamespaces(DEFAULT);
    }

    /** Why a profile in {@code namespace} is refused, or empty when the namespace is not protected. */
    public Optional<String> refusal(String namespace) {
        if (namespace == null || !names.contains(namespace)) {
            return Optional.empty();
        }
        return Optional.of("namespace '" + namespace + "' is protected: the operator creates nothing in "
                + String.join(", ", new TreeSet<>(names))
                + " (operator setting SCHEDULEROPS_PROTECTED_NAMESPACES, Helm value protectedNamespaces);"
                + " delete this SchedulerProfile and create it in an ordinary namespace");
    }
}
