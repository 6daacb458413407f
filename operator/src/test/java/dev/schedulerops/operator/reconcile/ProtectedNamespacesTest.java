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

    private static SchedulerProfile profile() throws IOException {
        return ProfileYaml.readOne(
                """
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata:
                  name: p
                spec:
                  labelKey: example.com/rank
                """);
    }

    /** A reconciler whose installation puts the workloads into {@code workloadNamespace}. */
    private static SchedulerProfileReconciler reconcilerWith(String workloadNamespace, ProtectedNamespaces protect) {
        return new SchedulerProfileReconciler(
                ClusterFacts.forVersion("1.33.13").withWorkloadNamespace(workloadNamespace),
                null,
                protect,
                new RolloutSlots(1));
    }

    @Test
    void theControlPlaneNamespacesAreProtectedByDefault() {
        ProtectedNamespaces defaults = ProtectedNamespaces.defaults();
        assertThat(defaults.refusal("kube-system")).hasValueSatisfying(m -> assertThat(m)
                .contains("workload namespace 'kube-system' is protected")
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
    void theReconcilerRendersNothingWhenItsWorkloadNamespaceIsProtected() throws IOException {
        ProtectedNamespaces protect = new ProtectedNamespaces(Set.of("kube-system", "payments"));

        assertThat(reconcilerWith("kube-system", protect).render(profile()))
                .isInstanceOfSatisfying(RenderResult.Invalid.class, invalid -> assertThat(invalid.errors())
                        .singleElement()
                        .asString()
                        .contains("'kube-system' is protected"));
        assertThat(reconcilerWith("payments", protect).render(profile())).isInstanceOf(RenderResult.Invalid.class);
        assertThat(reconcilerWith("schedulerops-system", protect).render(profile()))
                .isInstanceOf(RenderResult.Valid.class);
    }

    @Test
    void aProtectedNamespaceIsItsOwnReason() throws IOException {
        assertThat(reconcilerWith("kube-system", ProtectedNamespaces.defaults()).render(profile()))
                .isInstanceOfSatisfying(RenderResult.Invalid.class, invalid -> assertThat(invalid.refusal())
                        .isEqualTo(RenderResult.Refusal.PROTECTED_NAMESPACE));
    }

    @Test
    void aControlPlaneUpgradeIsRenderedWithTheNewVersionWithoutARestart() throws IOException {
        SchedulerProfileReconciler reconciler = new SchedulerProfileReconciler(
                ClusterFacts.forVersion("1.33.13"), null, ProtectedNamespaces.defaults(), new RolloutSlots(1));
        assertThat(schedulerImage(reconciler.render(profile()))).isEqualTo("registry.k8s.io/kube-scheduler:v1.33.13");

        reconciler.clusterVersionChanged("1.34.2");
        assertThat(schedulerImage(reconciler.render(profile()))).isEqualTo("registry.k8s.io/kube-scheduler:v1.34.2");

        reconciler.clusterVersionChanged("1.40.1");
        assertThat(reconciler.render(profile())).isInstanceOfSatisfying(RenderResult.Invalid.class, invalid -> {
            assertThat(invalid.refusal()).isEqualTo(RenderResult.Refusal.UNSUPPORTED_KUBERNETES_VERSION);
            assertThat(invalid.errors()).singleElement().asString().contains("Kubernetes 1.40");
        });
    }

    private static String schedulerImage(RenderResult result) {
        return ((RenderResult.Valid) result).state().schedulerImage();
    }
}
