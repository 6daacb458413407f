package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Labels;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient
class LeaseReleaseTest {
    static final String PATH =
            "/apis/coordination.k8s.io/v1/namespaces/schedulerops-system/leases/schedulerops-operator";

    KubernetesMockServer server;
    KubernetesClient client;
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
        assertThat(released.getMetadata().getAnnotations())
                .as("who gave it back, for whoever reads the lease next")
                .containsEntry(Labels.LEASE_RELEASED_BY, "operator on stop: operator-a-1234");
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

    /** The next {@code times} updates of the lease are refused: somebody wrote it since it was read. */
    private void conflicts(int times) {
        server.expect()
                .put()
                .withPath(PATH)
                .andReturn(
                        409,
                        new StatusBuilder().withCode(409).withReason("Conflict").build())
                .times(times);
    }

    private boolean release() {
        return LeaseRelease.release(client, "schedulerops-system", "schedulerops-operator", "operator-a-1234");
    }

    @Test
    void aWriteThatCameBetweenTheReadAndTheReleaseIsReadAgainNotGivenUpOn() throws Exception {
        server.expect()
                .get()
                .withPath(PATH)
                .andReturn(200, heldBy("operator-a-1234"))
                .times(2);
        conflicts(1);
        server.expect().put().withPath(PATH).andReturn(200, heldBy(null)).once();

        assertThat(release()).isTrue();
        assertThat(server.getRequestCount()).as("read, conflict, read, release").isEqualTo(4);
    }

    @Test
    void aLeaseThatKeepsChangingIsGivenUpOnAfterAFewTries() {
        server.expect()
                .get()
                .withPath(PATH)
                .andReturn(200, heldBy("operator-a-1234"))
                .times(LeaseRelease.ATTEMPTS);
        conflicts(LeaseRelease.ATTEMPTS);

        assertThat(release()).isFalse();
        assertThat(server.getRequestCount()).isEqualTo(2 * LeaseRelease.ATTEMPTS);
    }

    @Test
    void aLeaseAnotherInstanceTookIsNotWritten() {
        server.expect()
                .get()
                .withPath(PATH)
                .andReturn(200, heldBy("operator-b-5678"))
                .once();

        assertThat(release()).isFalse();
        assertThat(server.getRequestCount()).isEqualTo(1);
    }
}
