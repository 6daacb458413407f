package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.render.DesiredState;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.render.Samples;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import org.junit.jupiter.api.Test;

class PodRolloutsTest {
    static final String SPEC = "labelKey: example.com/tier\n";

    static DesiredState desired(String spec, String extenderImage) {
        RenderResult rendered =
                ProfileRenderer.render(Samples.profile(spec), Samples.FACTS.withExtenderImage(extenderImage));
        return ((RenderResult.Valid) rendered).state();
    }

    /** What the API server holds once {@code applied} has rolled out (or is still rolling). */
    static Deployment running(Deployment applied, boolean available) {
        DeploymentBuilder builder = new DeploymentBuilder(applied)
                .editMetadata()
                .withGeneration(4L)
                .endMetadata()
                .withNewStatus()
                .withObservedGeneration(available ? 4L : 3L)
                .withReplicas(applied.getSpec().getReplicas())
                .withUpdatedReplicas(applied.getSpec().getReplicas())
                .withAvailableReplicas(applied.getSpec().getReplicas())
                .addNewCondition()
                .withType("Available")
                .withStatus("True")
                .endCondition()
                .endStatus();
        return builder.build();
    }

    @Test
    void theRendererStampsEachDeploymentWithTheHashOfItsPodTemplate() {
        DesiredState state = desired(SPEC, "ext:1");

        assertThat(state.extenderDeployment().getMetadata().getAnnotations())
                .containsEntry(Labels.TEMPLATE_HASH, ProfileRenderer.templateHash(state.extenderDeployment()));
        assertThat(state.schedulerDeployment().getMetadata().getAnnotations()).containsKey(Labels.TEMPLATE_HASH);
        assertThat(state.schedulerDeployment()
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations())
                .as("on the Deployment, not its pods: the hash itself must not roll anything")
                .doesNotContainKey(Labels.TEMPLATE_HASH);
    }

    @Test
    void aNewExtenderImageRestartsRunningPodsButCreatingAProfileDoesNot() {
        DesiredState before = desired(SPEC, "ext:1");
        DesiredState after = desired(SPEC, "ext:2");
        Deployment extender = running(before.extenderDeployment(), true);
        Deployment scheduler = running(before.schedulerDeployment(), true);

        assertThat(PodRollouts.restartsRunningPods(before, extender, scheduler)).isFalse();
        assertThat(PodRollouts.restartsRunningPods(after, extender, scheduler)).isTrue();
        assertThat(PodRollouts.restartsRunningPods(after, null, null))
                .as("a new profile")
                .isFalse();
        assertThat(PodRollouts.finished(before, extender, scheduler)).isTrue();
        assertThat(PodRollouts.finished(after, extender, scheduler)).isFalse();
        assertThat(ProfileRenderer.templateHash(after.schedulerDeployment()))
                .as("the scheduler's pods do not run the extender image: they are not restarted for it")
                .isEqualTo(ProfileRenderer.templateHash(before.schedulerDeployment()));
    }

    @Test
    void aSpecChangeOfOneComponentRestartsOnlyThatComponent() {
        DesiredState before = desired(SPEC, "ext:1");
        DesiredState after = desired(SPEC + "scheduler:\n  podInitialBackoffSeconds: 2\n", "ext:1");

        assertThat(ProfileRenderer.templateHash(after.extenderDeployment()))
                .isEqualTo(ProfileRenderer.templateHash(before.extenderDeployment()));
        assertThat(ProfileRenderer.templateHash(after.schedulerDeployment()))
                .isNotEqualTo(ProfileRenderer.templateHash(before.schedulerDeployment()));
        assertThat(PodRollouts.restartsRunningPods(
                        after, running(before.extenderDeployment(), true), running(before.schedulerDeployment(), true)))
                .isTrue();
    }

    @Test
    void theRolloutIsOverOnlyOnceBothComponentsRunTheNewTemplateAvailable() {
        DesiredState before = desired(SPEC, "ext:1");
        DesiredState after = desired(SPEC + "scheduler:\n  podInitialBackoffSeconds: 2\n", "ext:2");

        assertThat(PodRollouts.finished(
                        after, running(after.extenderDeployment(), true), running(before.schedulerDeployment(), true)))
                .as("the scheduler still runs the old template")
                .isFalse();
        assertThat(PodRollouts.finished(
                        after, running(after.extenderDeployment(), true), running(after.schedulerDeployment(), false)))
                .as("the new scheduler is not available yet")
                .isFalse();
        assertThat(PodRollouts.restartsRunningPods(
                        after, running(after.extenderDeployment(), true), running(after.schedulerDeployment(), false)))
                .as("everything is applied: nothing more to restart")
                .isFalse();
        assertThat(PodRollouts.finished(
                        after, running(after.extenderDeployment(), true), running(after.schedulerDeployment(), true)))
                .isTrue();
    }

    @Test
    void aDeploymentWrittenByAnOlderOperatorWithoutTheHashCountsAsChanged() {
        DesiredState state = desired(SPEC, "ext:1");
        Deployment unstamped = running(state.extenderDeployment(), true);
        unstamped.getMetadata().getAnnotations().remove(Labels.TEMPLATE_HASH);

        assertThat(PodRollouts.restartsRunningPods(state, unstamped, running(state.schedulerDeployment(), true)))
                .isTrue();
    }

    @Test
    void aPluginsOnlyProfileHasOnlyItsScheduler() {
        DesiredState state = desired("plugins: {}\n", "ext:1");

        assertThat(state.bundledExtender()).isFalse();
        assertThat(PodRollouts.finished(state, null, running(state.schedulerDeployment(), true)))
                .isTrue();
    }
}
