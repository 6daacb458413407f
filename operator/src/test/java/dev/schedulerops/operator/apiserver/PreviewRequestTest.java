package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.operator.api.PreviewStatus;
import dev.schedulerops.operator.api.SchedulerProfilePreview;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.preview.PreviewSettings;
import dev.schedulerops.operator.reconcile.PreviewReconciler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.Operator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SchedulerProfilePreviews against a real API server, answered by the real {@link PreviewReconciler} in this JVM: the
 * generated CRD is accepted (its CEL rules compile) and refuses what it must; a proposal the operator refuses starts
 * nothing; a valid one gets its sandbox pod, which is removed when it is gone, when the preview runs out of time (a
 * clock the test moves), and a finished preview goes after its time to live. No sandbox runs here (no kubelet): the
 * real node's PreviewInClusterTest runs them.
 */
@ExtendWith(ApiServerTier.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreviewRequestTest {
    static final String PROFILE_SPEC = "labelKey: example.com/rank\nweight: 2\n";

    private final MovableClock clock = new MovableClock();
    private Operator operator;

    /** A clock the test moves forward (the reconciler's timeouts and time to live read it). */
    static final class MovableClock extends Clock {
        private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

        void advance(Duration by) {
            offset.updateAndGet(o -> o.plus(by));
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(offset.get());
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    /** The reconciler, started by the first test (the tier's client comes with a test). */
    private synchronized void startThePreviewReconciler(Tier tier) {
        if (operator != null) {
            return;
        }
        KubernetesClient client = tier.client();
        installCrd(client, Path.of("..", "crds", "schedulerprofilepreviews.schedulerops.dev-v1.yml"));
        String version = client.getKubernetesVersion().getGitVersion().replaceAll("[+].*$", "");
        ClusterFacts facts = ClusterFacts.forVersion(version).withWorkloadNamespace(tier.namespace());
        PreviewSettings settings = new PreviewSettings(
                true,
                "ghcr.io/schedulerops/schedulerops-operator:t",
                PreviewSettings.DEFAULT_API_SERVER_IMAGE_REPOSITORY,
                PreviewSettings.DEFAULT_ETCD_IMAGE,
                PreviewSettings.DEFAULT_SANDBOX_SERVICE_ACCOUNT,
                5,
                600);
        client.serviceAccounts()
                .inNamespace(tier.namespace())
                .resource(new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName(PreviewSettings.DEFAULT_SANDBOX_SERVICE_ACCOUNT)
                        .endMetadata()
                        .build())
                .serverSideApply();
        operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false));
        operator.register(new PreviewReconciler(() -> facts, settings, clock));
        operator.start();
    }

    @AfterAll
    void stop() {
        if (operator != null) {
            operator.stop();
        }
    }

    static void installCrd(KubernetesClient client, Path file) {
        HasMetadata crd;
        try (InputStream in = Files.newInputStream(file)) {
            crd = client.load(in).items().get(0);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the generated CRD " + file.toAbsolutePath(), e);
        }
        client.resource(crd).serverSideApply();
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(crd.getMetadata().getName())
                .waitUntilCondition(
                        c -> c != null
                                && c.getStatus() != null
                                && c.getStatus().getConditions() != null
                                && c.getStatus().getConditions().stream()
                                        .anyMatch(cond -> "Established".equals(cond.getType())
                                                && "True".equals(cond.getStatus())),
                        30,
                        TimeUnit.SECONDS);
    }

    static SchedulerProfilePreview preview(String name, String spec) {
        return Serialization.unmarshal(
                "apiVersion: schedulerops.dev/v1alpha1\nkind: SchedulerProfilePreview\nmetadata:\n  name: " + name
                        + "\nspec:\n" + spec.indent(2),
                SchedulerProfilePreview.class);
    }

    static String proposal(String profile, String spec) {
        return "proposal:\n  name: " + profile + "\n  spec:\n" + spec.indent(4);
    }

    private static SchedulerProfilePreview awaitPhase(Tier tier, String name, String phase) {
        return tier.client()
                .resources(SchedulerProfilePreview.class)
                .withName(name)
                .waitUntilCondition(
                        p -> p != null
                                && p.getStatus() != null
                                && phase.equals(p.getStatus().getPhase()),
                        60,
                        TimeUnit.SECONDS);
    }

    private static List<Pod> sandboxPods(Tier tier) {
        return tier.client()
                .pods()
                .inNamespace(tier.namespace())
                .withLabel(Labels.COMPONENT, Labels.COMPONENT_PREVIEW_SANDBOX)
                .list()
                .getItems();
    }

    @Test
    void theCrdRefusesWhatAProfileWouldAndRequestsOfNeitherKind(Tier tier) {
        startThePreviewReconciler(tier);
        var previews = tier.client().resources(SchedulerProfilePreview.class);
        assertThatThrownBy(() -> previews.resource(preview(
                                "weight-zero-" + tier.id(), proposal("p", "labelKey: example.com/rank\nweight: 0")))
                        .create())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("spec.proposal.spec.weight")
                .hasMessageContaining("greater than or equal to 1");
        assertThatThrownBy(() -> previews.resource(preview("neither-" + tier.id(), "timeoutSeconds: 60"))
                        .create())
                .hasMessageContaining("give either proposal");
        assertThatThrownBy(() -> previews.resource(preview("x".repeat(50) + tier.id(), proposal("p", PROFILE_SPEC)))
                        .create())
                .hasMessageContaining("at most 55 characters");
    }

    @Test
    void aProposalTheOperatorRefusesIsRefusedWithItsMessageAndStartsNothing(Tier tier) {
        startThePreviewReconciler(tier);
        String name = "refused-" + tier.id();
        tier.client()
                .resources(SchedulerProfilePreview.class)
                .resource(preview(
                        name,
                        proposal(
                                "p-" + tier.id(),
                                "labelKey: example.com/rank\nplugins:\n  score:\n    enabled: [{name: NoSuchPlugin}]")))
                .create();
        SchedulerProfilePreview refused = awaitPhase(tier, name, PreviewStatus.REFUSED);
        assertThat(refused.getStatus().getMessage())
                .startsWith("InvalidConfig: ")
                .contains("NoSuchPlugin");
        assertThat(refused.getStatus().getConditions()).singleElement().satisfies(c -> {
            assertThat(c.getType()).isEqualTo(PreviewStatus.DONE);
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getReason()).isEqualTo(PreviewStatus.REFUSED);
        });
        assertThat(sandboxPods(tier))
                .noneMatch(p -> name.equals(p.getMetadata().getLabels().get(Labels.PREVIEW)));
    }

    @Test
    void aValidProposalGetsOneSandboxPodOwnedByTheRequestRemovedWhenItRunsOutOfTime(Tier tier) {
        startThePreviewReconciler(tier);
        String name = "timeout-" + tier.id();
        SchedulerProfilePreview created = tier.client()
                .resources(SchedulerProfilePreview.class)
                .resource(preview(name, proposal("p-" + tier.id(), PROFILE_SPEC) + "timeoutSeconds: 60"))
                .create();
        SchedulerProfilePreview running = awaitPhase(tier, name, PreviewStatus.RUNNING);
        Pod pod = tier.client()
                .pods()
                .inNamespace(tier.namespace())
                .withName(running.getStatus().getSandboxPod())
                .get();
        assertThat(pod.getMetadata().getLabels()).containsEntry(Labels.PREVIEW, name);
        assertThat(pod.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getUid())
                .isEqualTo(created.getMetadata().getUid()));
        assertThat(pod.getSpec().getServiceAccountName()).isEqualTo(PreviewSettings.DEFAULT_SANDBOX_SERVICE_ACCOUNT);
        assertThat(pod.getSpec().getContainers().get(0).getImage())
                .isEqualTo("ghcr.io/schedulerops/schedulerops-operator:t");
        assertThat(pod.getSpec().getInitContainers())
                .anySatisfy(c -> assertThat(c.getImage()).startsWith("registry.k8s.io/kube-scheduler:v"));

        clock.advance(Duration.ofSeconds(61));
        SchedulerProfilePreview failed = awaitPhase(tier, name, PreviewStatus.FAILED);
        assertThat(failed.getStatus().getMessage())
                .startsWith("timed out after 60 s")
                .endsWith("the sandbox was removed");
        assertThat(tier.client()
                        .pods()
                        .inNamespace(tier.namespace())
                        .withName(pod.getMetadata().getName())
                        .get())
                .as("the sandbox pod is deleted")
                .satisfiesAnyOf(
                        p -> assertThat(p).isNull(),
                        p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNotNull());
    }

    @Test
    void aSandboxPodTheApiServerRefusesFailsThePreviewWithItsMessage(Tier tier) {
        startThePreviewReconciler(tier);
        var account = tier.client()
                .serviceAccounts()
                .inNamespace(tier.namespace())
                .withName(PreviewSettings.DEFAULT_SANDBOX_SERVICE_ACCOUNT);
        var kept = account.get();
        account.delete();
        try {
            String name = "refusedpod-" + tier.id();
            tier.client()
                    .resources(SchedulerProfilePreview.class)
                    .resource(preview(name, proposal("p-" + tier.id(), PROFILE_SPEC)))
                    .create();
            assertThat(awaitPhase(tier, name, PreviewStatus.FAILED).getStatus().getMessage())
                    .startsWith("the API server refused the sandbox pod: ")
                    .contains("service account");
        } finally {
            kept.getMetadata().setResourceVersion(null);
            kept.getMetadata().setUid(null);
            tier.client().resource(kept).serverSideApply();
        }
    }

    @Test
    void aSandboxPodThatIsGoneFailsThePreviewAndAFinishedPreviewGoesAfterItsTimeToLive(Tier tier) {
        startThePreviewReconciler(tier);
        String name = "gone-" + tier.id();
        tier.client()
                .resources(SchedulerProfilePreview.class)
                .resource(preview(name, proposal("p-" + tier.id(), PROFILE_SPEC)))
                .create();
        SchedulerProfilePreview running = awaitPhase(tier, name, PreviewStatus.RUNNING);
        tier.client()
                .pods()
                .inNamespace(tier.namespace())
                .withName(running.getStatus().getSandboxPod())
                .withGracePeriod(0)
                .delete();
        SchedulerProfilePreview failed = awaitPhase(tier, name, PreviewStatus.FAILED);
        assertThat(failed.getStatus().getMessage()).contains("is gone");

        clock.advance(Duration.ofSeconds(601));
        // The reconciler looks again at the end of the time to live (real time); a change of the request's spec
        // makes it look now, at the moved clock.
        // (The status write's own event may already have it reconciled at the moved clock, and deleted: then there is
        // nothing to edit.)
        try {
            tier.client()
                    .resources(SchedulerProfilePreview.class)
                    .withName(name)
                    .edit(p -> {
                        p.getSpec().setTimeoutSeconds(301);
                        return p;
                    });
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
        tier.client()
                .resources(SchedulerProfilePreview.class)
                .withName(name)
                .waitUntilCondition(java.util.Objects::isNull, 60, TimeUnit.SECONDS);
    }
}
