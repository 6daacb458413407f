package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Every change the API server makes to the watched objects, in the order received: each write that changed an object
 * is one watch event (a no-op write, such as a server-side apply that changes nothing, is none). Entries carry the
 * object's resourceVersion, which on one etcd is its global modification revision, so entries of different kinds can
 * be put in the order the API server wrote them.
 */
public final class Timeline implements AutoCloseable {

    /** One watch event. */
    public record Entry(
            long seq, Instant at, String action, String kind, String name, long resourceVersion, JsonNode object) {
        public boolean is(String kind, String name) {
            return this.kind.equals(kind) && this.name.equals(name);
        }

        /** The status of condition {@code type}, or "" when there is none. */
        public String condition(String type) {
            for (JsonNode condition : object.at("/status/conditions")) {
                if (type.equals(condition.path("type").asText())) {
                    return condition.path("status").asText();
                }
            }
            return "";
        }

        public long generation() {
            return object.at("/metadata/generation").asLong();
        }

        public boolean deleting() {
            return !object.at("/metadata/deletionTimestamp").asText().isEmpty();
        }

        @Override
        public String toString() {
            return "#" + seq + " rv " + resourceVersion + " " + action + " " + kind + "/" + name;
        }
    }

    private final KubernetesClient client;
    private final List<Entry> entries = new CopyOnWriteArrayList<>();
    private final List<Watch> watches = new ArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicLong seq = new AtomicLong();

    public Timeline(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Watches {@code kind} objects: in {@code namespace} (null: cluster-scoped), carrying {@code label} (with
     * {@code value}, or any value when null). The watch starts with an ADDED entry for each existing object.
     */
    public Timeline watch(String apiVersion, String kind, String namespace, String label, String value) {
        MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
                resources = client.genericKubernetesResources(apiVersion, kind);
        NonNamespaceOperation<
                        GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
                scoped = namespace == null ? resources : resources.inNamespace(namespace);
        FilterWatchListDeletable<
                        GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
                selected = label == null
                        ? scoped
                        : value == null ? scoped.withLabel(label) : scoped.withLabel(label, value);
        watches.add(selected.watch(new Watcher<GenericKubernetesResource>() {
            @Override
            public void eventReceived(Action action, GenericKubernetesResource resource) {
                entries.add(new Entry(
                        seq.incrementAndGet(),
                        Instant.now(),
                        action.name(),
                        resource.getKind(),
                        resource.getMetadata().getName(),
                        Long.parseLong(resource.getMetadata().getResourceVersion()),
                        Commands.json(Serialization.asJson(resource))));
            }

            @Override
            public void onClose(WatcherException cause) {
                failures.add(kind + ": " + cause);
            }
        }));
        return this;
    }

    /** The sequence number of the last entry so far: entries after it are {@code since(mark)}. */
    public long mark() {
        return seq.get();
    }

    public List<Entry> entries() {
        return List.copyOf(entries);
    }

    public List<Entry> since(long mark) {
        return entries.stream().filter(e -> e.seq() > mark).toList();
    }

    public List<Entry> matching(Predicate<Entry> filter) {
        return entries.stream().filter(filter).toList();
    }

    /** Watches that ended with an error (their later events are missing). */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    @Override
    public void close() {
        watches.forEach(Watch::close);
    }
}
