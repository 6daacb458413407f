package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import org.junit.jupiter.api.Test;

class DeploymentReadinessTest {

    @Test
    void aRolledOutDeploymentIsAvailable() {
        Deployment deployment = Deployments.available("x");

        assertThat(DeploymentReadiness.isAvailableAtCurrentGeneration(deployment))
                .isTrue();
        assertThat(DeploymentReadiness.describe(deployment)).isEqualTo("available");
    }

    @Test
    void aMissingDeploymentIsNotAvailable() {
        assertThat(DeploymentReadiness.isAvailableAtCurrentGeneration(null)).isFalse();
        assertThat(DeploymentReadiness.describe(null)).contains("does not exist");
    }

    @Test
    void aSpecChangeTheControllerHasNotObservedIsNotAvailableEvenWithFullReplicaCounts() {
        Deployment deployment = new DeploymentBuilder(Deployments.available("x"))
                .editMetadata()
                .withGeneration(4L)
                .endMetadata()
                .build();

        assertThat(DeploymentReadiness.isAvailableAtCurrentGeneration(deployment))
                .isFalse();
        assertThat(DeploymentReadiness.describe(deployment)).contains("generation 4");
    }

    @Test
    void notAllReplicasUpdatedIsNotAvailable() {
        Deployment deployment = new DeploymentBuilder(Deployments.available("x"))
                .editStatus()
                .withUpdatedReplicas(1)
                .endStatus()
                .build();

        assertThat(DeploymentReadiness.isAvailableAtCurrentGeneration(deployment))
                .isFalse();
        assertThat(DeploymentReadiness.describe(deployment)).isEqualTo("1 of 2 replicas updated");
    }

    @Test
    void oldReplicasStillRunningIsNotAvailable() {
        Deployment deployment = new DeploymentBuilder(Deployments.available("x"))
                .editStatus()
                .withReplicas(3)
                .endStatus()
                .build();

        assertThat(DeploymentReadiness.isAvailableAtCurrentGeneration(deployment))
                .isFalse();
        assertThat(DeploymentReadiness.describe(deployment)).contains("old replicas");
    }

    @Test
    void tooFewAvailableReplicasIsNotAvailable() {
        Deployment deployment = new DeploymentBuilder(Deployments.available("x"))
                .editStatus()
                .withAvailableReplicas(1)
                .endStatus()
                .build();

        assertThat(DeploymentReadiness.isAvailableAtCurrentGeneration(deployment))
                .isFalse();
        assertThat(DeploymentReadiness.describe(deployment)).isEqualTo("1 of 2 replicas available");
    }

    @Test
    void availableConditionFalseIsNotAvailable() {
        Deployment deployment = new DeploymentBuilder(Deployments.available("x"))
                .editStatus()
                .withConditions(new DeploymentConditionBuilder()
                        .withType("Available")
                        .withStatus("False")
                        .build())
                .endStatus()
                .build();

        assertThat(DeploymentReadiness.isAvailableAtCurrentGeneration(deployment))
                .isFalse();
    }

    @Test
    void aStuckRolloutSaysSo() {
        Deployment deployment = new DeploymentBuilder(Deployments.available("x"))
                .editStatus()
                .withUpdatedReplicas(0)
                .addNewCondition()
                .withType("Progressing")
                .withStatus("False")
                .withReason("ProgressDeadlineExceeded")
                .withMessage("ReplicaSet x-1 has timed out progressing.")
                .endCondition()
                .endStatus()
                .build();
        // The builder appended a second Progressing condition; keep only the stuck one.
        deployment.getStatus().getConditions().removeIf(c -> "NewReplicaSetAvailable".equals(c.getReason()));

        assertThat(DeploymentReadiness.describe(deployment)).startsWith("rollout stuck: ReplicaSet x-1");
    }

    @Test
    void aDeploymentBeingDeletedIsNotAvailable() {
        Deployment deployment = new DeploymentBuilder(Deployments.available("x"))
                .editMetadata()
                .withDeletionTimestamp("2024-01-01T00:00:00Z")
                .endMetadata()
                .build();

        assertThat(DeploymentReadiness.isAvailableAtCurrentGeneration(deployment))
                .isFalse();
    }
}
