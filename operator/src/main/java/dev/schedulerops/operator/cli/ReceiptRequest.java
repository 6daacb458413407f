package dev.schedulerops.operator.cli;

import dev.schedulerops.operator.api.PreviewSpec;
import dev.schedulerops.operator.api.PreviewStatus;
import dev.schedulerops.operator.api.SchedulerProfilePreview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A receipt for one pod, asked of the operator the way the kubectl plugin asks it: a SchedulerProfilePreview with
 * {@code spec.explain}, its answer read from the status, the request deleted whatever happens. The answer is text for
 * people: the receipt, or why there is none (previews off, no right to ask, refused, failed, no answer in time).
 */
final class ReceiptRequest {
    /** How long the operator may take to notice the request before we say previews are off. */
    static final Duration PICKUP = Duration.ofSeconds(30);

    private ReceiptRequest() {}

    static String ask(KubernetesClient client, String namespace, String pod, String profile, Duration timeout) {
        return ask(client, namespace, pod, profile, timeout, PICKUP);
    }

    /** @param pickup how long the operator may take to notice the request */
    static String ask(
            KubernetesClient client, String namespace, String pod, String profile, Duration timeout, Duration pickup) {
        SchedulerProfilePreview request = new SchedulerProfilePreview();
        request.getMetadata().setGenerateName("explain-");
        PreviewSpec spec = new PreviewSpec();
        PreviewSpec.ExplainTarget target = new PreviewSpec.ExplainTarget();
        target.setNamespace(namespace);
        target.setName(pod);
        target.setProfile(profile);
        spec.setExplain(target);
        spec.setTimeoutSeconds((int) timeout.toSeconds());
        request.setSpec(spec);
        SchedulerProfilePreview created;
        try {
            created = client.resources(SchedulerProfilePreview.class)
                    .resource(request)
                    .create();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return "none: previews are not installed in this cluster (deploy/previews)";
            }
            if (e.getCode() == 403) {
                return "none: you may not ask for one (" + e.getStatus().getMessage() + "); it needs the ClusterRole"
                        + " schedulerops:previewer and the right to list pods and nodes cluster-wide";
            }
            return "none: the request was refused: " + e.getMessage();
        }
        var resource = client.resources(SchedulerProfilePreview.class)
                .withName(created.getMetadata().getName());
        try {
            try {
                resource.waitUntilCondition(
                        p -> p != null && p.getStatus() != null && p.getStatus().getPhase() != null,
                        pickup.toMillis(),
                        TimeUnit.MILLISECONDS);
            } catch (KubernetesClientTimeoutException e) {
                return "none: no operator answered within " + pickup.toSeconds() + " s: are previews turned on"
                        + " (deploy/previews)?";
            }
            SchedulerProfilePreview done;
            try {
                done = resource.waitUntilCondition(
                        p -> p != null && p.getStatus() != null && p.getStatus().over(),
                        timeout.toSeconds() + 60,
                        TimeUnit.SECONDS);
            } catch (KubernetesClientTimeoutException e) {
                return "none: no answer within " + (timeout.toSeconds() + 60) + " s";
            }
            PreviewStatus status = done.getStatus();
            return switch (status.getPhase()) {
                case PreviewStatus.SUCCEEDED -> status.getReport();
                case PreviewStatus.REFUSED -> "none: refused: " + status.getMessage();
                default -> "none: the sandbox failed: " + status.getMessage();
            };
        } finally {
            try {
                resource.delete();
            } catch (KubernetesClientException e) {
                // already gone
            }
        }
    }
}
