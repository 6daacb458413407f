package dev.schedulerops.operator.reconcile;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warning events on pods that no scheduler will take ({@link UnscheduledPods}), in the pod's namespace, where {@code
 * kubectl describe pod} shows them. Each event's name is derived from the pod's UID and the cause, so the API server
 * itself keeps it to one per pod and cause: a second operator replica, or this one after a restart, gets 409 Conflict
 * for the same event and records nothing more.
 */
public final class PodEvents {
    static final String COMPONENT = "schedulerops-operator";

    private static final Logger LOG = LoggerFactory.getLogger(PodEvents.class);

    private final KubernetesClient client;
    private final String instance;

    public PodEvents(KubernetesClient client, String instance) {
        this.client = client;
        this.instance = instance;
    }

    /** The outcome of one attempt to record an event. */
    enum Outcome {
        RECORDED,
        ALREADY_RECORDED,
        FAILED
    }

    Outcome warn(Pod pod, UnscheduledPods.Diagnosis diagnosis) {
        Event event = event(pod, diagnosis, instance, Instant.now());
        try {
            client.v1()
                    .events()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .resource(event)
                    .create();
            LOG.info(
                    "event Warning {} on pod {}/{}: {}",
                    diagnosis.cause().reason(),
                    pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName(),
                    diagnosis.message());
            return Outcome.RECORDED;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                return Outcome.ALREADY_RECORDED;
            }
            LOG.warn(
                    "could not record event {} on pod {}/{}: {}",
                    diagnosis.cause().reason(),
                    pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName(),
                    e.getMessage());
            return Outcome.FAILED;
        }
    }

    static Event event(Pod pod, UnscheduledPods.Diagnosis diagnosis, String instance, Instant now) {
        String timestamp = now.truncatedTo(ChronoUnit.SECONDS).toString();
        return new EventBuilder()
                .withNewMetadata()
                .withName(name(pod, diagnosis.cause()))
                .withNamespace(pod.getMetadata().getNamespace())
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion("v1")
                .withKind("Pod")
                .withNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .endInvolvedObject()
                .withType("Warning")
                .withReason(diagnosis.cause().reason())
                .withMessage(truncate(diagnosis.message()))
                .withNewSource()
                .withComponent(COMPONENT)
                .endSource()
                .withReportingComponent(COMPONENT)
                .withReportingInstance(instance)
                .withFirstTimestamp(timestamp)
                .withLastTimestamp(timestamp)
                .withCount(1)
                .build();
    }

    /**
     * {@code <pod>.<16 hex digits of sha256(uid, cause)>}: unique per pod and cause, a valid name (the pod's name is
     * cut to leave room).
     */
    static String name(Pod pod, UnscheduledPods.Cause cause) {
        String podName = pod.getMetadata().getName();
        // Cut to leave room for the suffix, and never end on '-' or '.': "web-.hash" is no valid name.
        String prefix = (podName.length() > 200 ? podName.substring(0, 200) : podName).replaceAll("[^a-z0-9]+$", "");
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update((pod.getMetadata().getUid() + "\n" + cause.name()).getBytes(StandardCharsets.UTF_8));
            return prefix + "." + HexFormat.of().formatHex(sha256.digest()).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    private static String truncate(String message) {
        // The API server rejects event messages longer than 1 KiB.
        return message.length() <= 1024 ? message : message.substring(0, 1021) + "...";
    }
}
