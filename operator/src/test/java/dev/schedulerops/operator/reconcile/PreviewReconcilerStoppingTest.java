package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.operator.api.SchedulerProfilePreview;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.preview.PreviewSettings;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * A stopping operator starts no preview reconcile, as {@link SchedulerProfileReconciler#stopping} does for profiles:
 * JOSDK empties the caches as it stops, and a reconcile on them would count no running preview.
 */
class PreviewReconcilerStoppingTest {

    @Test
    void onceStoppingNoReconcileTouchesTheCluster() {
        PreviewReconciler reconciler = new PreviewReconciler(
                () -> ClusterFacts.forVersion("1.33.13"), PreviewSettings.off(), Clock.systemUTC());
        SchedulerProfilePreview preview = new SchedulerProfilePreview();
        preview.setMetadata(new ObjectMetaBuilder().withName("p").build());
        // Without a context (no client, no caches) a reconcile that ran would fail on its first look at the cluster.
        assertThatThrownBy(() -> reconciler.reconcile(preview, null)).isInstanceOf(NullPointerException.class);

        reconciler.stopping();
        assertThat(reconciler.reconcile(preview, null).isNoUpdate()).isTrue();
    }
}
