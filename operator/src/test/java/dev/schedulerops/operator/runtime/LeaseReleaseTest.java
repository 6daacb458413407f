package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class LeaseReleaseTest {
    static final ZonedDateTime NOW = ZonedDateTime.of(2026, 11, 26, 5, 0, 0, 0, ZoneOffset.UTC);

    static Lease heldBy(String holder) {
        return new LeaseBuilder()
                .withNewMetadata()
                .withName("schedulerops-operator")
                .withNamespace("schedulerops-system")
                .withResourceVersion("42")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(15)
                .withLeaseTransitions(3)
                .withAcquireTime(NOW.minusMinutes(10))
                .withRenewTime(NOW.minusSeconds(1))
                .endSpec()
                .build();
    }

    @Test
    void aLeaseThisInstanceHoldsIsReleasedAsClientGoReleasesOne() {
        Lease released = LeaseRelease.released(heldBy("operator-a-1234"), "operator-a-1234", NOW)
                .orElseThrow();

        assertThat(released.getSpec().getHolderIdentity()).isNull();
        assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
        assertThat(released.getSpec().getRenewTime()).isEqualTo(NOW);
        assertThat(released.getSpec().getLeaseTransitions())
                .as("the count of transitions is the next holder's to raise")
                .isEqualTo(3);
        assertThat(released.getMetadata().getResourceVersion())
                .as("the update is conditional on the lease read")
                .isEqualTo("42");
    }

    @Test
    void aLeaseAnotherInstanceHoldsOrNoLeaseIsLeftAlone() {
        assertThat(LeaseRelease.released(heldBy("operator-b-5678"), "operator-a-1234", NOW))
                .isEmpty();
        assertThat(LeaseRelease.released(heldBy(null), "operator-a-1234", NOW)).isEmpty();
        assertThat(LeaseRelease.released(null, "operator-a-1234", NOW)).isEmpty();
    }
}
