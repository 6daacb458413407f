package dev.schedulerops.operator.model;

/** The KubeSchedulerConfiguration API the operator writes and validates plugin args against. */
public final class SchedulerConfigApi {
    /** kube-scheduler 1.29 and later accept only this version (facts.md). */
    public static final String API_VERSION = "kubescheduler.config.k8s.io/v1";

    public static final String KIND = "KubeSchedulerConfiguration";

    private SchedulerConfigApi() {}
}
