package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
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
}
