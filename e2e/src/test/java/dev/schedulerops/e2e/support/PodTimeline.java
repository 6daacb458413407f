package dev.schedulerops.e2e.support;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Every change of every pod, in the order the API server made them: a watch's events carry increasing resource
 * versions, so "A happened before B" is decided by their order, not by timestamps of one-second resolution (two
 * things in the same second would pass an "or equal" comparison either way round).
 */
public final class PodTimeline implements AutoCloseable {
    /** One state of one pod, as the watch delivered it, and when ({@link System#nanoTime}) it arrived here. */
    public record Change(Watcher.Action action, Pod pod, long nanos) {
        public boolean ready() {
            return pod.getStatus() != null
                    && pod.getStatus().getConditions() != null
                    && pod.getStatus().getConditions().stream()
                            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        }

        public boolean bound() {
            return pod.getSpec().getNodeName() != null;
        }

        public String name() {
            return pod.getMetadata().getName();
        }
    }

    private final List<Change> changes = new ArrayList<>();
    private final Watch watch;
    private final Instant started = Instant.now();
    private final long startedNanos = System.nanoTime();

    private PodTimeline(KubernetesClient client) {
        watch = client.pods().inAnyNamespace().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                synchronized (changes) {
                    changes.add(new Change(action, pod, System.nanoTime()));
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                // the test reads what was recorded; a closed watch shows as a missing change
            }
        });
    }

    /** Starts recording now (existing pods arrive first, as ADDED). */
    public static PodTimeline start(KubernetesClient client) {
        return new PodTimeline(client);
    }

    /** The position of the first recorded change that matches, or -1. */
    public int first(Predicate<Change> which) {
        synchronized (changes) {
            for (int i = 0; i < changes.size(); i++) {
                if (which.test(changes.get(i))) {
                    return i;
                }
            }
        }
        return -1;
    }

    public List<Change> changes() {
        synchronized (changes) {
            return List.copyOf(changes);
        }
    }

    /**
     * What a failure message needs to be read without the cluster: one line per change of a matching pod's IP,
     * readiness or deletion, with the wall-clock time the watch delivered it (to set beside events' timestamps).
     */
    public List<String> story(Predicate<Pod> which) {
        Map<String, String> last = new HashMap<>();
        List<String> lines = new ArrayList<>();
        for (Change change : changes()) {
            if (!which.test(change.pod())) {
                continue;
            }
            Pod pod = change.pod();
            String state = (pod.getStatus() == null ? null : pod.getStatus().getPodIP())
                    + (change.ready() ? " ready" : " not ready")
                    + (pod.getMetadata().getDeletionTimestamp() == null ? "" : " deleting")
                    + (change.action() == Watcher.Action.DELETED ? " deleted" : "");
            if (!state.equals(last.put(change.name(), state))) {
                lines.add(started.plusNanos(change.nanos() - startedNanos) + " " + change.name() + " " + state);
            }
        }
        return lines;
    }

    @Override
    public void close() {
        watch.close();
    }
}
