package dev.schedulerops.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * An informer cache that keeps less of each object than the API server sends: never {@code managedFields} (server-side
 * apply's bookkeeping, which the operator does not read, and which as nested maps was the largest part of the
 * operator's heap: about a third of it with 200 profiles), and of a Node not its status (images, conditions, volumes:
 * the operator reads only node labels, and nodes are the most numerous objects it watches).
 *
 * <p>The object is trimmed as it is stored, before the informer hands it to event handlers, so every reader sees the
 * same trimmed object.
 */
final class LeanItemStore<R extends HasMetadata> extends BasicItemStore<R> {
    LeanItemStore() {
        super(Cache::metaNamespaceKeyFunc);
    }

    @Override
    public R put(String key, R object) {
        object.getMetadata().setManagedFields(null);
        if (object instanceof Node node) {
            node.setStatus(null);
        }
        return super.put(key, object);
    }
}
