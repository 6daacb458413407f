package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.render.RenderResult;
import java.io.IOException;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProtectedNamespacesTest {

    private static SchedulerProfile profileIn(String namespace) throws IOException {
        return ProfileYaml.readOne(
                """
                apiVersion: schedulerops.dev/v1alpha1
                kind: SchedulerProfile
                metadata:
                  name: p
                  namespace: %s
                spec:
                  labelKey: example.com/rank
                """
                        .formatted(namespace));
    }

    @Test
    void theControlPlaneNamespacesAreProtectedByDefault() {
        ProtectedNamespaces defaults = ProtectedNamespaces.defaults();
        assertThat(defaults.refusal("kube-system")).hasValueSatisfying(m -> assertThat(m)
                .contains("namespace 'kube-system' is protected")
                .contains("kube-node-lease, kube-public, kube-system")
                .contains("SCHEDULEROPS_PROTECTED_NAMESPACES"));
        assertThat(defaults.refusal("kube-public")).isPresent();
        assertThat(defaults.refusal("kube-node-lease")).isPresent();
        assertThat(defaults.refusal("team-a")).isEmpty();
        assertThat(defaults.refusal(null)).isEmpty();
    }

    @Test
    void aConfiguredListReplacesTheDefault() {
        ProtectedNamespaces configured = new ProtectedNamespaces(Set.of("payments"));
        assertThat(configured.refusal("payments")).isPresent();
        assertThat(configured.refusal("kube-system")).isEmpty();
    }

    @Test
    void theReconcilerRendersNothingForAProfileInAProtectedNamespace() throws IOException {
        SchedulerProfileReconciler reconciler = new SchedulerProfileReconciler(
                ClusterFacts.forVersion("1.33.13"),
                null,
                new ProtectedNamespaces(Set.of("kube-system", "payments")),
                new RolloutSlots(1));

        assertThat(reconciler.render(profileIn("kube-system")))
                .isInstanceOfSatisfying(RenderResult.Invalid.class, invalid -> assertThat(invalid.errors())
                        .singleElement()
                        .asString()
                        .contains("'kube-system' is protected"));
        assertThat(reconciler.render(profileIn("payments"))).isInstanceOf(RenderResult.Invalid.class);
        assertThat(reconciler.render(profileIn("team-a"))).isInstanceOf(RenderResult.Valid.class);
    }

    @Test
    void aProtectedNamespaceIsItsOwnReason() throws IOException {
        SchedulerProfileReconciler reconciler = new SchedulerProfileReconciler(
                ClusterFacts.forVersion("1.33.13"), null, ProtectedNamespaces.defaults(), new RolloutSlots(1));

        assertThat(reconciler.render(profileIn("kube-system")))
                .isInstanceOfSatisfying(RenderResult.Invalid.class, invalid -> assertThat(invalid.refusal())
                        .isEqualTo(RenderResult.Refusal.PROTECTED_NAMESPACE));
    }

    @Test
    void aControlPlaneUpgradeIsRenderedWithTheNewVersionWithoutARestart() throws IOException {
        SchedulerProfileReconciler reconciler = new SchedulerProfileReconciler(
                ClusterFacts.forVersion("1.33.13"), null, ProtectedNamespaces.defaults(), new RolloutSlots(1));
        assertThat(schedulerImage(reconciler.render(profileIn("team-a"))))
                .isEqualTo("registry.k8s.io/kube-scheduler:v1.33.13");

        reconciler.clusterVersionChanged("1.34.2");
        assertThat(schedulerImage(reconciler.render(profileIn("team-a"))))
                .isEqualTo("registry.k8s.io/kube-scheduler:v1.34.2");

        reconciler.clusterVersionChanged("1.40.1");
        assertThat(reconciler.render(profileIn("team-a")))
                .isInstanceOfSatisfying(RenderResult.Invalid.class, invalid -> {
                    assertThat(invalid.refusal()).isEqualTo(RenderResult.Refusal.UNSUPPORTED_KUBERNETES_VERSION);
                    assertThat(invalid.errors()).singleElement().asString().contains("Kubernetes 1.40");
                });
    }

    private static String schedulerImage(RenderResult result) {
        return ((RenderResult.Valid) result).state().schedulerImage();
    }
}
