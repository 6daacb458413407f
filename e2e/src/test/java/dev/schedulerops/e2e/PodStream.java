package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.RestrictedPods;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Pods arriving while something is upgraded: one pod a second, each for the next of {@code profiles} in turn, created
 * from a thread of its own until {@link #stop()}. A pod the API server refuses (it may be away) is skipped; the next
 * one is tried a second later.
 */
final class PodStream {
    /** The pod that waited longest for its binding, and how long. */
    record Longest(String pod, Duration waited) {}

    private final KubernetesClient client;
    private final String namespace;
    private final List<Pod> created = new CopyOnWriteArrayList<>();
    private final AtomicBoolean streaming = new AtomicBoolean(true);
    private final Thread creator;

    private PodStream(KubernetesClient client, String namespace, List<String> profiles) {
        this.client = client;
        this.namespace = namespace;
        this.creator = new Thread(() -> {
            for (int i = 0; streaming.get(); i++) {
                try {
                    created.add(client.resource(RestrictedPods.forScheduler(
                                    namespace, "pod-" + i, profiles.get(i % profiles.size())))
                            .create());
                } catch (RuntimeException e) {
                    // The API server is away for a moment: that pod is not created, the next one will be.
                }
                Await.sleep(1_000);
            }
        });
        creator.setDaemon(true);
    }

    static PodStream start(KubernetesClient client, String namespace, List<String> profiles) {
        PodStream stream = new PodStream(client, namespace, profiles);
        stream.creator.start();
        return stream;
    }

    /** Stops creating pods (again: nothing more); returns those created. */
    List<Pod> stop() throws InterruptedException {
        streaming.set(false);
        creator.join(30_000);
        return List.copyOf(created);
    }

    /**
     * Waits until every created pod is bound, asserts each is on {@code node} (its profile's extender kept only that
     * one), and returns the longest wait from creation to the PodScheduled condition (one-second resolution, as the API
     * stores both).
     */
    Longest awaitEveryPodBoundTo(String node, Duration timeout) {
        Longest longest = new Longest("", Duration.ZERO);
        for (Pod pod : created) {
            Pod bound = client.pods()
                    .inNamespace(namespace)
                    .withName(pod.getMetadata().getName())
                    .waitUntilCondition(
                            p -> p != null && p.getSpec().getNodeName() != null, timeout.toSeconds(), TimeUnit.SECONDS);
            assertThat(bound.getSpec().getNodeName())
                    .as("pod " + bound.getMetadata().getName() + " went through its profile's extender")
                    .isEqualTo(node);
            Duration wait = Duration.between(
                    ZonedDateTime.parse(bound.getMetadata().getCreationTimestamp())
                            .toInstant(),
                    scheduledAt(bound));
            if (wait.compareTo(longest.waited()) > 0) {
                longest = new Longest(bound.getMetadata().getName(), wait);
            }
        }
        return longest;
    }

    private static Instant scheduledAt(Pod pod) {
        return pod.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType()) && "True".equals(c.getStatus()))
                .map(c -> ZonedDateTime.parse(c.getLastTransitionTime()).toInstant())
                .findFirst()
                .orElseThrow(() -> new AssertionError("pod " + pod.getMetadata().getName() + " has no PodScheduled"));
    }
}
