package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ClusterFacts;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import org.junit.jupiter.api.Test;

class ResourceApplierTest {

    static ConfigMap at(String resourceVersion) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName("c")
                .withNamespace("ns")
                .withResourceVersion(resourceVersion)
                .endMetadata()
                .build();
    }

    @Test
    void appliedTellsCreatedChangedAndUnchangedApart() {
        ResourceApplier.Applied created = new ResourceApplier.Applied(at("1"), null);
        assertThat(created.created()).isTrue();
        assertThat(created.changed()).isFalse();

        ResourceApplier.Applied changed = new ResourceApplier.Applied(at("2"), at("1"));
        assertThat(changed.created()).isFalse();
        assertThat(changed.changed()).isTrue();

        ResourceApplier.Applied unchanged = new ResourceApplier.Applied(at("1"), at("1"));
        assertThat(unchanged.created()).isFalse();
        assertThat(unchanged.changed()).isFalse();
    }

    /**
     * Once the operator stops, JOSDK empties the informers' caches; what a reconcile decides on them (a missing CA
     * Secret: a new CA no running pod trusts) must not be written. No client and no informers here: any request or
     * cache read would fail with a NullPointerException instead of the refusal.
     */
    @Test
    void aStoppingOperatorWritesNothing() {
        ResourceApplier applier = new ResourceApplier(null, null, () -> true);
        assertThatThrownBy(() -> applier.apply(new SchedulerProfile(), at("1")))
                .isInstanceOf(ResourceApplier.Stopping.class)
                .hasMessage("ConfigMap ns/c");
    }

    @Test
    void aStoppingReconcilerNeitherReconcilesNorTearsDown() {
        // Event sources never prepared: a reconcile that looked at anything would fail.
        SchedulerProfileReconciler reconciler = new SchedulerProfileReconciler(
                ClusterFacts.forVersion("1.33.13"), null, ProtectedNamespaces.defaults(), new RolloutSlots(1));
        SchedulerProfile profile = new SchedulerProfile();
        profile.setMetadata(new ObjectMetaBuilder().withName("p").build());
        assertThatThrownBy(() -> reconciler.reconcile(profile, null)).isInstanceOf(NullPointerException.class);

        reconciler.stopping();
        assertThat(reconciler.reconcile(profile, null).isNoUpdate()).isTrue();
        DeleteControl delete = reconciler.cleanup(profile, null);
        assertThat(delete.isRemoveFinalizer()).isFalse();
    }
}
