package dev.schedulerops.operator.preview;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * One watch on every pod of the sandbox, for two jobs. It keeps each pod's latest state, so that the placer waits for
 * a verdict without a request of its own per pod. And it does what a kubelet does for a pod being deleted, at once:
 * the sandbox has no kubelets, so a pod that preemption evicts would stay Terminating forever and the preemptor would
 * never bind; every graceful deletion is finished (a delete with grace period 0) and remembered, in order.
 */
final class SandboxPodWatch implements AutoCloseable {
    private final KubernetesClient sandbox;
    private final List<String> finished = new ArrayList<>();
    /** Pods the sandbox deletes itself (a run's pods, probes): not evictions. */
    private final Set<String> ours = ConcurrentHashMap.newKeySet();

    private final Map<String, Pod> latest = new HashMap<>();
    private final Watch watch;

    SandboxPodWatch(KubernetesClient sandbox) {
        this.sandbox = sandbox;
        this.watch = sandbox.pods().inAnyNamespace().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                String key = pod.getMetadata().getNamespace() + "/"
                        + pod.getMetadata().getName();
                seen(key, action == Action.DELETED ? null : pod);
                if (action == Action.DELETED) {
                    ours.remove(key);
                } else if (pod.getMetadata().getDeletionTimestamp() != null && !ours.contains(key)) {
                    finish(pod, key);
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                // the sandbox is going away
            }
        });
    }

    private synchronized void seen(String key, Pod pod) {
        if (pod == null) {
            latest.remove(key);
        } else {
            latest.put(key, pod);
        }
        notifyAll();
    }

    /**
     * Waits until the pod's latest state satisfies {@code done}; returns it, or the state the API server holds then
     * when {@code timeout} passes first (null when there is none), for the caller to judge.
     */
    Pod await(String namespace, String name, Predicate<Pod> done, Duration timeout) throws InterruptedException {
        String key = namespace + "/" + name;
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (latest.get(key) == null || !done.test(latest.get(key))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                wait(Math.max(1, left / 1_000_000));
            }
            Pod pod = latest.get(key);
            if (pod != null && done.test(pod)) {
                return pod;
            }
        }
        return sandbox.pods().inNamespace(namespace).withName(name).get();
    }

    private void finish(Pod pod, String key) {
        // Remembered first: the scheduler may see the pod gone and bind the preemptor before delete() returns here.
        synchronized (finished) {
            finished.add(key);
        }
        try {
            sandbox.pods()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .withName(pod.getMetadata().getName())
                    .withGracePeriod(0)
                    .delete();
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
