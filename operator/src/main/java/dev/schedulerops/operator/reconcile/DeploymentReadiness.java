package dev.schedulerops.operator.reconcile;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.util.Optional;

/**
 * Whether a Deployment has finished rolling out its current spec, by the rules `kubectl rollout status` uses: the
 * controller has observed the current generation, every replica runs the current template, no old replica is left
 * and enough are available. Replica counts alone are not enough: right after a spec change they still describe the
 * previous template.
 */
public final class DeploymentReadiness {
    private DeploymentReadiness() {}

    public static boolean isAvailableAtCurrentGeneration(Deployment deployment) {
        return blocker(deployment).isEmpty();
    }

    /** A sentence saying what the Deployment still waits for, or "available" when it waits for nothing. */
    public static String describe(Deployment deployment) {
        return blocker(deployment).orElse("available");
    }

    private static Optional<String> blocker(Deployment deployment) {
        if (deployment == null) {
            return Optional.of("does not exist yet");
        }
        if (deployment.getMetadata().getDeletionTimestamp() != null) {
            return Optional.of("is being deleted");
        }
        DeploymentStatus status = deployment.getStatus();
        Long generation = deployment.getMetadata().getGeneration();
        Long observed = status == null ? null : status.getObservedGeneration();
        if (generation == null || observed == null || observed < generation) {
            return Optional.of("the Deployment controller has not observed generation " + generation + " yet");
        }
        Optional<DeploymentCondition> progressing = condition(status, "Progressing");
        if (progressing.isPresent()
                && "ProgressDeadlineExceeded".equals(progressing.get().getReason())) {
            return Optional.of("rollout stuck: " + progressing.get().getMessage());
        }
        int desired = deployment.getSpec() == null || deployment.getSpec().getReplicas() == null
                ? 1
                : deployment.getSpec().getReplicas();
        int updated = orZero(status.getUpdatedReplicas());
        int total = orZero(status.getReplicas());
        int available = orZero(status.getAvailableReplicas());
        if (updated != desired) {
            return Optional.of(updated + " of " + desired + " replicas updated");
        }
        if (total > updated) {
            return Optional.of((total - updated) + " old replicas pending termination");
        }
        if (available < desired) {
            return Optional.of(available + " of " + desired + " replicas available");
        }
        boolean availableCondition = condition(status, "Available")
                .map(c -> "True".equals(c.getStatus()))
                .orElse(false);
        if (!availableCondition) {
            return Optional.of("condition Available is not True");
        }
        return Optional.empty();
    }

    private static Optional<DeploymentCondition> condition(DeploymentStatus status, String type) {
        if (status.getConditions() == null) {
            return Optional.empty();
        }
        return status.getConditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst();
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }
}
