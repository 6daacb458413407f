package dev.schedulerops.operator.reconcile;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.List;

/**
 * An informer cache that keeps less of each object than the API server sends: never {@code managedFields} (server-side
 * apply's bookkeeping, which the operator does not read, and which as nested maps was the largest part of the
 * operator's heap: about a third of it with 200 profiles), and of a Node not its status (images, conditions, volumes:
 * the operator reads only node labels, and nodes are the most numerous objects it watches), and of a Pod's spec only
 * its node and its containers' names, images, resources and restart policies (what {@link PodTrouble} reads;
 * volumes, environment, probes and security contexts were most of a pod's share of the heap). In what it keeps, every
 * empty map or list is the one shared empty map or list ({@link SharedEmptyCollections}).
 *
 * <p>Every informer of the operator stores through it: the owned kinds', the SchedulerProfiles' (whose server-side apply
 * bookkeeping from kubectl, GitOps tools and the operator's status writes was 3 entries a profile) and the scheduler
 * pods' of the lease hand-over.
 *
 * <p>The object is trimmed as it is stored, before the informer hands it to event handlers, so every reader sees the
 * same trimmed object.
 */
public final class LeanItemStore<R extends HasMetadata> extends BasicItemStore<R> {
    public LeanItemStore() {
        super(Cache::metaNamespaceKeyFunc);
    }

    @Override
    public R put(String key, R object) {
        object.getMetadata().setManagedFields(null);
        if (object instanceof Node node) {
            node.setStatus(null);
        }
        if (object instanceof Pod pod && pod.getSpec() != null) {
            pod.setSpec(lean(pod.getSpec()));
        }
        SharedEmptyCollections.share(object);
        return super.put(key, object);
    }

    static PodSpec lean(PodSpec spec) {
        PodSpec lean = new PodSpec();
        lean.setNodeName(spec.getNodeName());
        lean.setContainers(lean(spec.getContainers()));
        lean.setInitContainers(lean(spec.getInitContainers()));
        return lean;
    }

    private static List<Container> lean(List<Container> containers) {
        return containers == null
                ? null
                : containers.stream()
                        .map(c -> new ContainerBuilder()
                                .withName(c.getName())
                                .withImage(c.getImage())
                                .withResources(c.getResources())
                                .withRestartPolicy(c.getRestartPolicy())
                                .build())
                        .toList();
    }
}
