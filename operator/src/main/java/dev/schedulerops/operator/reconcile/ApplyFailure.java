package dev.schedulerops.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The API server refused to apply one object (RBAC Forbidden, a webhook's or a policy's denial, a quota): the
 * profile's status and a Warning event say which object and why.
 *
 * @param object "Kind namespace/name" of the refused object
 * @param code the HTTP status code, 0 when the request did not reach the server
 * @param reason the server's message
 */
public record ApplyFailure(String object, int code, String reason, KubernetesClientException cause) {

    static ApplyFailure of(HasMetadata object, KubernetesClientException e) {
        return of(object.getKind(), ResourceApplier.qualifiedName(object), e);
    }

    /** @param qualifiedName "namespace/name", or the name of a cluster-scoped object */
    static ApplyFailure of(String kind, String qualifiedName, KubernetesClientException e) {
        String reason = e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : e.getMessage();
        return new ApplyFailure(kind + " " + qualifiedName, e.getCode(), reason, e);
    }

    /** The refused object's kind ("Deployment"), the label of {@code schedulerops_apply_failures_total}. */
    public String kind() {
        int space = object.indexOf(' ');
        return space < 0 ? object : object.substring(0, space);
    }

    /** What the status condition and the event say. */
    public String message() {
        return "Could not apply " + object + (code > 0 ? " (HTTP " + code + ")" : "") + ": " + reason;
    }
}
