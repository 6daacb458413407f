package dev.schedulerops.operator.model;

/**
 * What rendering needs to know about a profile's TLS material, which the reconciler (not the renderer) writes into
 * Secrets: hashes of the data of the Secret each pod mounts, stamped on the pod templates so that new material
 * restarts the pods in rollout order. Null hashes (rendering offline, or mode Disabled) leave the annotation out.
 *
 * @param extenderMaterialHash hash of the extender's serving Secret data, or null
 * @param schedulerMaterialHash hash of the scheduler's extender-client Secret data, or null
 */
public record TlsFacts(String extenderMaterialHash, String schedulerMaterialHash) {
    /** No material known: `render` without a cluster. */
    public static final TlsFacts NONE = new TlsFacts(null, null);
}
