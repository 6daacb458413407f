package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** With watchNamespaces set, namespaced informers list only there (plus kube-system where profiles put objects). */
class OwnedInformersNamespacesTest {

    @Test
    void watchingAllNamespacesWatchesEveryKindClusterWide() {
        for (OwnedKind kind : OwnedKind.values()) {
            assertThat(OwnedInformers.informerNamespaces(kind, Optional.empty()))
                    .as(kind.name())
                    .isEmpty();
        }
    }

    @Test
    void watchedNamespacesRestrictTheNamespacedInformers() {
        Optional<Set<String>> watched = Optional.of(Set.of("team-a", "team-b"));

        assertThat(OwnedInformers.informerNamespaces(OwnedKind.DEPLOYMENT, watched))
                .contains(Set.of("team-a", "team-b"));
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.SERVICE_ACCOUNT, watched))
                .contains(Set.of("team-a", "team-b"));
        // The scheduler's RoleBinding to the authentication reader lives in kube-system.
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.ROLE_BINDING, watched))
                .contains(Set.of("team-a", "team-b", "kube-system"));
        // Cluster-scoped kinds have no namespace to restrict to.
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.CLUSTER_ROLE, watched))
                .isEmpty();
        assertThat(OwnedInformers.informerNamespaces(OwnedKind.CLUSTER_ROLE_BINDING, watched))
                .isEmpty();
        for (OwnedKind kind : OwnedKind.values()) {
            if (kind.scope() == OwnedKind.Scope.NAMESPACED) {
                assertThat(OwnedInformers.informerNamespaces(kind, watched))
                        .as(kind.name())
                        .hasValueSatisfying(ns -> assertThat(ns).contains("team-a", "team-b"));
            }
        }
    }
}
