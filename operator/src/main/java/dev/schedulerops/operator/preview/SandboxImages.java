package dev.schedulerops.operator.preview;

/**
 * The images of a sandbox pod beyond each run's own (the profile's kube-scheduler and extender images, which the
 * plan carries): the control plane of the cluster's version and the operator's image, which runs the sandbox's steps.
 * All come from settings of the installation, checked against its allowed image repositories.
 *
 * @param operator the operator's own image (prepare, load, drive)
 * @param apiServer kube-apiserver of the cluster's version
 * @param etcd etcd
 */
public record SandboxImages(String operator, String apiServer, String etcd) {}
