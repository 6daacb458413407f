package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what a profile became, in the reverse of the rollout order: the scheduler (its stage's objects), then the
 * extender and the namespaced RBAC, then the cluster-scoped RBAC and the RoleBinding in kube-system (all owned by the
 * profile too, so garbage collection would remove them, but in no particular order). The steps are derived from {@link OwnedKind}. Each step starts only once the previous step's
 * objects are gone; Deployments are deleted in the foreground, so "gone" includes their pods. Objects are found by the
 * profile labels, so teardown works even when the profile no longer renders. Lists and deletes one by one: the
 * ClusterRole grants no deletecollection.
 */
public final class ProfileTeardown {
    private static final Logger LOG = LoggerFactory.getLogger(ProfileTeardown.class);

    /**
     * Which objects one teardown step lists.
     *
     * @param namespace the namespace to list in, or null for cluster-scoped kinds
     * @param component the {@link Labels#COMPONENT} the objects must carry, or null for any
     */
    public record Selector(OwnedKind kind, String namespace, String component) {

        /** Whether this selector lists {@code object} (which already carries the profile's labels). */
        public boolean selects(HasMetadata object) {
            return kind.type().equals(object.getClass())
                    && Objects.equals(namespace, object.getMetadata().getNamespace())
                    && (component == null
                            || component.equals(object.getMetadata().getLabels().get(Labels.COMPONENT)));
        }
    }

    private final KubernetesClient client;
    private final String namespace;

    /** @param namespace the workload namespace */
    public ProfileTeardown(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /**
     * The steps for the profiles of the workload namespace {@code namespace}: the scheduler stage's kinds of the
     * scheduler component, then every namespaced kind in the workload namespace, then the cluster-scoped kinds and the
     * kinds that may live in kube-system.
     */
    public static List<List<Selector>> steps(String namespace) {
        List<Selector> scheduler = new ArrayList<>();
        List<Selector> extender = new ArrayList<>();
        List<Selector> outsideNamespace = new ArrayList<>();
        for (OwnedKind kind : OwnedKind.values()) {
            if (kind.stages().contains(OwnedKind.Stage.SCHEDULER)) {
                scheduler.add(new Selector(kind, namespace, Labels.COMPONENT_SCHEDULER));
            }
            if (kind.scope() == OwnedKind.Scope.CLUSTER) {
                outsideNamespace.add(new Selector(kind, null, null));
                continue;
            }
            extender.add(new Selector(kind, namespace, null));
            if (kind.alsoInKubeSystem() && !Names.KUBE_SYSTEM.equals(namespace)) {
                outsideNamespace.add(new Selector(kind, Names.KUBE_SYSTEM, null));
            }
        }
        return List.of(List.copyOf(scheduler), List.copyOf(extender), List.copyOf(outsideNamespace));
    }

    /** One step further; true once nothing is left. Call again (later) while it returns false. */
    public boolean advance(SchedulerProfile profile) {
        Map<String, String> labels =
                Map.of(Labels.PROFILE, profile.getMetadata().getName());
        for (List<Selector> step : steps(namespace)) {
            List<HasMetadata> found = new ArrayList<>();
            for (Selector selector : step) {
                found.addAll(list(selector, labels));
            }
            if (!found.isEmpty()) {
                deleteAll(found);
                return false;
            }
        }
        return true;
    }

    private List<? extends HasMetadata> list(Selector selector, Map<String, String> labels) {
        return list(selector.kind().type(), selector.namespace(), labels, selector.component());
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
