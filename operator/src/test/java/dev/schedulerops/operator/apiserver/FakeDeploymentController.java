package dev.schedulerops.operator.apiserver;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for kube-controller-manager's Deployment controller, which the bare API server lacks: it writes each
 * Deployment's status, Available at its current generation or not as the test says (not, until told).
 */
final class FakeDeploymentController implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FakeDeploymentController.class);

    private final KubernetesClient client;
    private final Map<String, Boolean> available = new ConcurrentHashMap<>();
    private final SharedIndexInformer<Deployment> informer;

    FakeDeploymentController(KubernetesClient client) {
        this.client = client;
        this.informer = client.apps().deployments().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Deployment deployment) {
                handle(deployment);
            }

            @Override
            public void onUpdate(Deployment before, Deployment after) {
                handle(after);
            }

            @Override
            public void onDelete(Deployment deployment, boolean finalStateUnknown) {}
        });
    }

    /** From now on the Deployment is (or is not) Available at whatever generation it has. */
    void setAvailable(String namespace, String name, boolean isAvailable) {
        available.put(namespace + "/" + name, isAvailable);
        Deployment current = client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(name)
                .get();
        if (current != null) {
            handle(current);
        }
    }

    private synchronized void handle(Deployment deployment) {
        String namespace = deployment.getMetadata().getNamespace();
        String name = deployment.getMetadata().getName();
        try {
            if (deployment.getMetadata().getDeletionTimestamp() != null) {
                return; // FakeGarbageCollector's
            }
            DeploymentStatus desired = status(deployment, available.getOrDefault(namespace + "/" + name, false));
            if (!Objects.equals(desired, deployment.getStatus())) {
                client.apps()
                        .deployments()
                        .inNamespace(namespace)
                        .withName(name)
                        .editStatus(d -> {
                            d.setStatus(desired);
                            return d;
                        });
            }
        } catch (RuntimeException e) {
            // The next event for this Deployment (or a later setAvailable) tries again.
            LOG.warn("fake Deployment controller: could not update {}/{}: {}", namespace, name, e.getMessage());
        }
    }

    /** What the Deployment controller reports once every replica runs the current template (or none is available). */
    static DeploymentStatus status(Deployment deployment, boolean isAvailable) {
        int replicas = deployment.getSpec().getReplicas() == null
                ? 1
                : deployment.getSpec().getReplicas();
        return new DeploymentStatusBuilder()
                .withObservedGeneration(deployment.getMetadata().getGeneration())
                .withReplicas(replicas)
                .withUpdatedReplicas(replicas)
                .withReadyReplicas(isAvailable ? replicas : null)
                .withAvailableReplicas(isAvailable ? replicas : null)
                .withUnavailableReplicas(isAvailable ? null : replicas)
                .withConditions(new DeploymentConditionBuilder()
                        .withType("Available")
                        .withStatus(isAvailable ? "True" : "False")
                        .withReason(isAvailable ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable")
                        .withMessage(
                                isAvailable
                                        ? "Deployment has minimum availability."
                                        : "Deployment does not have minimum availability.")
                        .build())
                .build();
    }

    @Override
    public void close() {
        informer.close();
    }
}
