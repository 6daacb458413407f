package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.model.Labels;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;

/** Deployments in the states the Deployment controller reports. */
final class Deployments {
    private Deployments() {}

    static DeploymentBuilder rolledOut(String name, int replicas) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ns")
                .withGeneration(3L)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewTemplate()
                .withNewMetadata()
                .endMetadata()
                .endTemplate()
                .endSpec()
                .withNewStatus()
                .withObservedGeneration(3L)
                .withReplicas(replicas)
                .withUpdatedReplicas(replicas)
                .withReadyReplicas(replicas)
                .withAvailableReplicas(replicas)
                .addNewCondition()
                .withType("Available")
                .withStatus("True")
                .endCondition()
                .addNewCondition()
                .withType("Progressing")
                .withStatus("True")
                .withReason("NewReplicaSetAvailable")
                .endCondition()
                .endStatus();
    }

    static Deployment available(String name) {
        return rolledOut(name, 2).build();
    }

    static Deployment schedulerWithHash(String hash, boolean available) {
        DeploymentBuilder builder = rolledOut("p-scheduler", 1)
                .editSpec()
                .editTemplate()
                .editMetadata()
                .addToAnnotations(Labels.CONFIG_HASH, hash)
                .endMetadata()
                .endTemplate()
                .endSpec();
        if (!available) {
            builder.editStatus().withObservedGeneration(2L).endStatus();
        }
        return builder.build();
    }
}
