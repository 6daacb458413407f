package dev.schedulerops.operator.model;

import dev.schedulerops.operator.api.Defaults;

/**
 * Names of everything rendered for one profile, in one place. Namespaced objects are named after the profile;
 * cluster-scoped ones (and the RoleBinding in kube-system) also carry the profile's namespace, so that profiles of
 * the same name in different namespaces never collide.
 */
public record Names(String profile, String namespace) {

    public static final String KUBE_SYSTEM = "kube-system";
    public static final String KUBE_SCHEDULER_CLUSTER_ROLE = "system:kube-scheduler";
    public static final String VOLUME_SCHEDULER_CLUSTER_ROLE = "system:volume-scheduler";
    public static final String AUTH_READER_ROLE = "extension-apiserver-authentication-reader";
    public static final String CONFIG_FILE = "config.yaml";
    public static final String CONFIG_MOUNT_PATH = "/etc/kubernetes/scheduler";
    public static final int EXTENDER_PORT = 8080;
    public static final int SCHEDULER_SECURE_PORT = 10259;

    /** The cluster's main scheduler: it places the operator's own pods and no profile may take its name. */
    public static final String DEFAULT_SCHEDULER = Defaults.DEFAULT_SCHEDULER;

    /** Appended to the profile name for the extender's objects (its Service name is limited to 63 characters). */
    public static final String EXTENDER_SUFFIX = "-extender";

    public String extender() {
        return profile + EXTENDER_SUFFIX;
    }

    public String scheduler() {
        return profile + "-scheduler";
    }

    public String schedulerConfig() {
        return profile + "-scheduler-config";
    }

    /** The scheduler's own leader-election lease (and the Role granting it). */
    public String schedulerLease() {
        return profile + "-scheduler";
    }

    public String clusterScoped(String suffix) {
        return "schedulerops:" + namespace + ":" + profile + ":" + suffix;
    }

    public String kubeSchedulerBinding() {
        return clusterScoped("kube-scheduler");
    }

    public String volumeSchedulerBinding() {
        return clusterScoped("volume-scheduler");
    }

    public String extenderClusterRole() {
        return clusterScoped("extender");
    }

    public String authReaderBinding() {
        return clusterScoped("auth-reader");
    }

    /** The URL kube-scheduler calls: the extender Service's cluster DNS name. */
    public String extenderUrl() {
        return "http://" + extender() + "." + namespace + ".svc:" + EXTENDER_PORT;
    }
}
