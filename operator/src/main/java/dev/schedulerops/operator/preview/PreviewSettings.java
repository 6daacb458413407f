package dev.schedulerops.operator.preview;

import dev.schedulerops.operator.model.ClusterFacts;

/**
 * How the operator runs previews, from its settings (off unless the installation turns them on: deploy/previews).
 *
 * @param enabled whether the operator answers SchedulerProfilePreviews (and holds the rights that needs)
 * @param operatorImage the operator's own image, which runs a sandbox's steps
 * @param apiServerImageRepository where kube-apiserver images come from; the tag is the cluster's version
 * @param etcdImage the etcd image of the sandbox
 * @param sandboxServiceAccount the sandbox's ServiceAccount in the workload namespace: it may only read
 * @param maxRunning how many sandboxes may run at once (each holds about a gigabyte while it runs)
 * @param ttlSeconds how long a finished preview is kept when nobody deletes it
 */
public record PreviewSettings(
        boolean enabled,
        String operatorImage,
        String apiServerImageRepository,
        String etcdImage,
        String sandboxServiceAccount,
        int maxRunning,
        int ttlSeconds) {
    public static final String DEFAULT_API_SERVER_IMAGE_REPOSITORY = "registry.k8s.io/kube-apiserver";
    /** kubeadm's etcd of Kubernetes 1.33; any etcd 3.5 serves every supported kube-apiserver. */
    public static final String DEFAULT_ETCD_IMAGE = "registry.k8s.io/etcd:3.5.21-0";

    public static final String DEFAULT_SANDBOX_SERVICE_ACCOUNT = "schedulerops-preview-sandbox";
    public static final int DEFAULT_MAX_RUNNING = 1;
    public static final int DEFAULT_TTL_SECONDS = 3600;

    public PreviewSettings {
        if (maxRunning < 1) {
            throw new IllegalArgumentException("at least one preview must be able to run, not " + maxRunning);
        }
        if (ttlSeconds < 60) {
            throw new IllegalArgumentException("a finished preview is kept at least 60 s, not " + ttlSeconds);
        }
    }

    public static PreviewSettings off() {
        return new PreviewSettings(
                false,
                ClusterFacts.BuildInfo.defaultOperatorImage(),
                DEFAULT_API_SERVER_IMAGE_REPOSITORY,
                DEFAULT_ETCD_IMAGE,
                DEFAULT_SANDBOX_SERVICE_ACCOUNT,
                DEFAULT_MAX_RUNNING,
                DEFAULT_TTL_SECONDS);
    }

    /** The images of a sandbox for a cluster of that version. */
    public SandboxImages images(ClusterFacts facts) {
        return new SandboxImages(operatorImage, facts.versionedImage(apiServerImageRepository), etcdImage);
    }
}
