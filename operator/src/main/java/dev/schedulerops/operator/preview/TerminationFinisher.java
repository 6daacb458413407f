package dev.schedulerops.operator.preview;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a kubelet does for a pod being deleted, done at once: the sandbox has no kubelets, so a pod preemption evicts
 * would stay Terminating forever and the preemptor would never bind. This finishes every graceful deletion in the
 * sandbox (a delete with grace period 0) and remembers which pods went, in order.
 */
final class TerminationFinisher implements AutoCloseable {
    private final KubernetesClient sandbox;
    private final List<String> finished = new ArrayList<>();
    /** Pods the sandbox deletes itself (a run's pods, probes): not evictions. */
    private final java.util.Set<String> ours = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Watch watch;

    TerminationFinisher(KubernetesClient sandbox) {
        this.sandbox = sandbox;
        this.watch = sandbox.pods().inAnyNamespace().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                String key = pod.getMetadata().getNamespace() + "/"
                        + pod.getMetadata().getName();
                if (action == Action.DELETED) {
                    ours.remove(key);
                } else if (pod.getMetadata().getDeletionTimestamp() != null && !ours.contains(key)) {
                    finish(pod);
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                // the sandbox is going away
            }
        });
    }

    private void finish(Pod pod) {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        // Remembered first: the scheduler may see the pod gone and bind the preemptor before delete() returns here.
        synchronized (finished) {
            finished.add(ns + "/" + name);
        }
        try {
            sandbox.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();
        } catch (KubernetesClientException gone) {
            // already deleted
        }
    }

    /** The sandbox is about to delete this pod itself: its deletion is not an eviction. */
    void ours(String namespace, String name) {
        ours.add(namespace + "/" + name);
    }

    /** How many terminations were finished so far: a mark for {@link #since}. */
    int mark() {
        synchronized (finished) {
            return finished.size();
        }
    }

    /** The pods whose termination was finished after the mark. */
    List<String> since(int mark) {
        synchronized (finished) {
            return finished.subList(mark, finished.size()).stream().distinct().toList();
        }
    }

    @Override
    public void close() {
        watch.close();
    }
}
