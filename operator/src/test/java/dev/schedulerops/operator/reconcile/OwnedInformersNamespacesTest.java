package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Namespaced informers list only in the workload namespace (plus kube-system where profiles put objects), so nothing a
 * team creates in its own namespace is ever cached, whatever it is labelled.
 */
class OwnedInformersNamespacesTest {

    @Test
    void namespacedKindsAreWatchedInTheWorkloadNamespaceOnly() {
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.DEPLOYMENT, "schedulerops-system"))
                .contains(Set.of("schedulerops-system"));
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.SECRET, "schedulerops-system"))
                .contains(Set.of("schedulerops-system"));
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.CONFIG_MAP, "schedulerops-system"))
                .contains(Set.of("schedulerops-system"));
        // The scheduler's RoleBinding to the authentication reader lives in kube-system.
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.ROLE_BINDING, "schedulerops-system"))
                .contains(Set.of("schedulerops-system", "kube-system"));
        // No Role is ever put into kube-system, so none is watched there.
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.ROLE, "schedulerops-system"))
                .contains(Set.of("schedulerops-system"));
        for (OwnedKind kind : OwnedKind.values()) {
            if (kind.scope() == OwnedKind.Scope.NAMESPACED) {
                assertThat(OwnedInformers.informerNamespaces(kind, "ops"))
                        .as(kind.name())
                        .hasValueSatisfying(ns -> assertThat(ns).contains("ops").isSubsetOf("ops", "kube-system"));
            }
        }
    }

    @Test
    void clusterScopedKindsHaveNoNamespaceToRestrictTo() {
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.CLUSTER_ROLE_BINDING, "schedulerops-system"))
                .isEmpty();
    }
}
