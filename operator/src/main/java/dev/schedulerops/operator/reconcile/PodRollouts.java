package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.render.DesiredState;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether applying a desired state restarts pods that run now, and whether such a rollout is over, from the
 * {@link Labels#TEMPLATE_HASH} on the Deployments. Pure; {@link RolloutSlots} acts on the answers.
 */
final class PodRollouts {
    private PodRollouts() {}

    /** True when a Deployment that exists now would get another pod template. */
    static boolean restartsRunningPods(DesiredState state, Deployment extender, Deployment scheduler) {
        return (state.bundledExtender() && changesTemplate(state.extenderDeployment(), extender))
                || changesTemplate(state.schedulerDeployment(), scheduler);
    }

    /** True when every Deployment of {@code state} runs its desired template, available at its current generation. */
    static boolean finished(DesiredState state, Deployment extender, Deployment scheduler) {
        return (!state.bundledExtender() || runsAvailable(state.extenderDeployment(), extender))
                && runsAvailable(state.schedulerDeployment(), scheduler);
    }

    private static boolean changesTemplate(Deployment desired, Deployment observed) {
        return observed != null
                && observed.getMetadata().getDeletionTimestamp() == null
                && !Objects.equals(templateHash(desired), templateHash(observed));
    }

    private static boolean runsAvailable(Deployment desired, Deployment observed) {
        return observed != null
                && Objects.equals(templateHash(desired), templateHash(observed))
                && DeploymentReadiness.isAvailableAtCurrentGeneration(observed);
    }

    /** The hash stamped by the renderer; empty on a Deployment an older operator wrote (which then rolls once). */
    static Optional<String> templateHash(Deployment deployment) {
        return Optional.ofNullable(deployment.getMetadata().getAnnotations())
                .map(annotations -> annotations.get(Labels.TEMPLATE_HASH));
    }
}
