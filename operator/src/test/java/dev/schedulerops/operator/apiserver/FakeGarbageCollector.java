package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.reconcile.OwnedKind;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for kube-controller-manager's garbage collector in the one way teardown needs: it finishes foreground
 * deletions of every {@link OwnedKind} (removes the {@code foregroundDeletion} finalizer; nothing here has dependents,
 * there being no ReplicaSet controller), unless the test holds an object's deletion to look at the order of teardown.
 */
final class FakeGarbageCollector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FakeGarbageCollector.class);
    private static final String FOREGROUND_DELETION = "foregroundDeletion";

    private final KubernetesClient client;
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();

    FakeGarbageCollector(KubernetesClient client) {
        this.client = client;
        for (OwnedKind kind : OwnedKind.values()) {
            informers.add(inform(kind.type()));
        }
    }

    private <T extends HasMetadata> SharedIndexInformer<T> inform(Class<T> type) {
        return client.resources(type).inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                handle(object);
            }

            @Override
            public void onUpdate(T before, T after) {
                handle(after);
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {}
        });
    }

    /** A foreground deletion of this object stays pending (deletionTimestamp set, object present) until released. */
    void hold(HasMetadata object) {
        held.add(key(object));
    }

    void release(HasMetadata object) {
        held.remove(key(object));
        HasMetadata current = client.resource(object).get();
        if (current != null) {
            handle(current);
        }
    }

    private void handle(HasMetadata object) {
        if (object.getMetadata().getDeletionTimestamp() == null
                || !object.getMetadata().getFinalizers().contains(FOREGROUND_DELETION)
                || held.contains(key(object))) {
            return;
        }
        try {
            client.resource(object).edit(o -> {
                o.getMetadata().getFinalizers().remove(FOREGROUND_DELETION);
                return o;
            });
        } catch (RuntimeException e) {
            LOG.warn("fake garbage collector: could not finish deleting {}: {}", key(object), e.getMessage());
        }
    }

    private static String key(HasMetadata object) {
        return object.getKind() + "/" + object.getMetadata().getNamespace() + "/"
                + object.getMetadata().getName();
    }

    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::close);
    }
}
