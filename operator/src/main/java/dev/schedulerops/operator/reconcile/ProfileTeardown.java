package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what a profile became, in the reverse of the rollout order: the scheduler (ConfigMap and Deployment), then
 * the extender and the namespaced RBAC, then the cluster-scoped RBAC and the RoleBinding in kube-system (which no
 * owner reference can reach). Each step starts only once the previous step's objects are gone; Deployments are
 * deleted in the foreground, so "gone" includes their pods. Objects are found by the profile labels, so teardown works
 * even when the profile no longer renders. Lists and deletes one by one: the ClusterRole grants no deletecollection.
 */
public final class ProfileTeardown {
    private static final Logger LOG = LoggerFactory.getLogger(ProfileTeardown.class);

    private static final List<Class<? extends HasMetadata>> EXTENDER_STEP = List.of(
            Deployment.class,
            PodDisruptionBudget.class,
            Service.class,
            ConfigMap.class,
            RoleBinding.class,
            Role.class,
            ServiceAccount.class);

    private final KubernetesClient client;

    public ProfileTeardown(KubernetesClient client) {
        this.client = client;
    }

    /** One step further; true once nothing is left. Call again (later) while it returns false. */
    public boolean advance(SchedulerProfile profile) {
        String namespace = profile.getMetadata().getNamespace();
        Map<String, String> labels =
                Map.of(Labels.PROFILE, profile.getMetadata().getName(), Labels.PROFILE_NAMESPACE, namespace);

        List<HasMetadata> scheduler = new ArrayList<>();
        scheduler.addAll(list(Deployment.class, namespace, labels, Labels.COMPONENT_SCHEDULER));
        scheduler.addAll(list(ConfigMap.class, namespace, labels, Labels.COMPONENT_SCHEDULER));
        if (!scheduler.isEmpty()) {
            deleteAll(scheduler);
            return false;
        }
        List<HasMetadata> extender = new ArrayList<>();
        for (Class<? extends HasMetadata> type : EXTENDER_STEP) {
            extender.addAll(list(type, namespace, labels, null));
        }
        if (!extender.isEmpty()) {
            deleteAll(extender);
            return false;
        }
        List<HasMetadata> clusterScoped = new ArrayList<>();
        clusterScoped.addAll(list(ClusterRoleBinding.class, null, labels, null));
        clusterScoped.addAll(list(ClusterRole.class, null, labels, null));
        if (!Names.KUBE_SYSTEM.equals(namespace)) {
            clusterScoped.addAll(list(RoleBinding.class, Names.KUBE_SYSTEM, labels, null));
            clusterScoped.addAll(list(Role.class, Names.KUBE_SYSTEM, labels, null));
        }
        if (!clusterScoped.isEmpty()) {
            deleteAll(clusterScoped);
            return false;
        }
        return true;
    }

    private <T extends HasMetadata> List<T> list(
            Class<T> type, String namespace, Map<String, String> labels, String component) {
        NonNamespaceOperation<T, KubernetesResourceList<T>, Resource<T>> scoped = namespace == null
                ? client.resources(type)
                : client.resources(type).inNamespace(namespace);
        FilterWatchListDeletable<T, KubernetesResourceList<T>, Resource<T>> selected = scoped.withLabels(labels);
        if (component != null) {
            selected = selected.withLabel(Labels.COMPONENT, component);
        }
        return selected.list().getItems();
    }

    private void deleteAll(List<HasMetadata> objects) {
        for (HasMetadata object : objects) {
            if (object.getMetadata().getDeletionTimestamp() != null) {
                continue; // already going; wait for it
            }
            LOG.info("deleting {} {}", object.getKind(), ResourceApplier.qualifiedName(object));
            client.resource(object)
                    .withPropagationPolicy(DeletionPropagation.FOREGROUND)
                    .delete();
        }
    }
}
