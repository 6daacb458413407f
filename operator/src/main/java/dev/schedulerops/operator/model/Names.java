package dev.schedulerops.operator.model;

import dev.schedulerops.operator.api.Defaults;
import java.util.List;

/**
 * Names of everything rendered for one profile, in one place. Profiles are cluster-scoped, so their names are unique
 * in the cluster; every namespaced object goes into the operator's workload namespace ({@code namespace}, chosen by
 * the installer, never a team's) and is named after the profile; cluster-scoped ones (and the RoleBinding in
 * kube-system) are named {@code schedulerops:<profile>:<purpose>}.
 *
 * @param profile the SchedulerProfile's name
 * @param namespace the operator's workload namespace, where every namespaced object of the profile lives
 */
public record Names(String profile, String namespace) {

    public static final String KUBE_SYSTEM = "kube-system";

    /** The Service (and EndpointSlice) every cluster has in front of the API server, and its namespace. */
    public static final String API_SERVER_SERVICE = "kubernetes";

    public static final String API_SERVER_SERVICE_NAMESPACE = "default";
    /**
     * What every profile's scheduler is bound to: {@code system:kube-scheduler} without its rules on the default
     * scheduler's own lease and endpoints (named {@code kube-scheduler}), so that a secondary scheduler, even a
     * compromised one, cannot take the default scheduler's lease. Shipped with the install (deploy/rbac), so the
     * operator needs only {@code bind} on it, not the powers it grants.
     */
    public static final String SCHEDULER_CLUSTER_ROLE = "schedulerops:kube-scheduler";

    public static final String VOLUME_SCHEDULER_CLUSTER_ROLE = "system:volume-scheduler";
    /** The extender's node reads (its node cache), shipped with the install. */
    public static final String EXTENDER_NODES_CLUSTER_ROLE = "schedulerops:extender-nodes";
    /** The extender's Bind verb: create pods/binding and read the pod it binds, shipped with the install. */
    public static final String EXTENDER_BINDER_CLUSTER_ROLE = "schedulerops:extender-binder";

    public static final String AUTH_READER_ROLE = "extension-apiserver-authentication-reader";
    public static final String CONFIG_FILE = "config.yaml";
    public static final String CONFIG_MOUNT_PATH = "/etc/kubernetes/scheduler";
    /** The extender's verb port without TLS (mode Disabled). */
    public static final int EXTENDER_PORT = 8080;
    /** The extender's verb port with TLS (modes Mutual and Server). */
    public static final int EXTENDER_TLS_PORT = 8443;
    /** The extender's plain-HTTP port for /healthz, /readyz and /metrics only (no verb, no client certificate). */
    public static final int EXTENDER_HEALTH_PORT = 8081;
    /** Where the extender's serving Secret is mounted, and its files. */
    public static final String EXTENDER_TLS_MOUNT_PATH = "/etc/schedulerops/tls";
    /** Where the scheduler's extender-client Secret is mounted. */
    public static final String SCHEDULER_TLS_MOUNT_PATH = "/etc/schedulerops/extender-client";
    /** Keys of the TLS Secrets (see README "Scheduler ↔ extender TLS"). */
    public static final String TLS_CERT = "tls.crt";

    public static final String TLS_KEY = "tls.key";
    public static final String CLIENT_CA = "client-ca.crt";
    public static final String CA_CERT = "ca.crt";
    public static final String CA_KEY = "ca.key";
    /** The CA Secret's previous CA certificate, kept (and trusted) during a CA rotation. Read by the operator only. */
    public static final String PREVIOUS_CA_CERT = "previous-ca.crt";

    public static final int SCHEDULER_SECURE_PORT = 10259;
    /** The scheduler pod's container; its status tells whether the process that may hold the lease still runs. */
    public static final String SCHEDULER_CONTAINER = "kube-scheduler";
    /** The scheduler pod's init container, which waits until the extender answers the pod. */
    public static final String AWAIT_EXTENDER_CONTAINER = "await-extender";
    /** The scheduler pod's sidecar, which gives the lease back once kube-scheduler has stopped. */
    public static final String RELEASE_LEASE_CONTAINER = "release-lease";

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
        return "schedulerops:" + profile + ":" + suffix;
    }

    public String kubeSchedulerBinding() {
        return clusterScoped("kube-scheduler");
    }

    public String volumeSchedulerBinding() {
        return clusterScoped("volume-scheduler");
    }

    public String extenderNodesBinding() {
        return clusterScoped("extender-nodes");
    }

    public String extenderBinderBinding() {
        return clusterScoped("extender-binder");
    }

    public String authReaderBinding() {
        return clusterScoped("auth-reader");
    }

    /** The extender's serving certificate, key and client CA bundle, mounted into the extender. */
    public String extenderTlsSecret() {
        return extender() + "-tls";
    }

    /** The scheduler's client certificate and the CA bundle that verifies the extender, mounted into the scheduler. */
    public String schedulerClientSecret() {
        return scheduler() + "-extender-client";
    }

    /** The profile's CA certificate and key: mounted nowhere, read by the operator only. */
    public String caSecret() {
        return extender() + "-ca";
    }

    /** The three Secrets the operator writes for TLS between the scheduler and the extender. */
    public List<String> tlsSecrets() {
        return List.of(caSecret(), extenderTlsSecret(), schedulerClientSecret());
    }

    /** The NetworkPolicy in front of the extender pods. */
    public String extenderNetworkPolicy() {
        return extender();
    }

    /** The URL kube-scheduler calls: the extender Service's cluster DNS name, https on 8443 or http on 8080. */
    public String extenderUrl(boolean tls) {
        return (tls ? "https://" : "http://") + extender() + "." + namespace + ".svc:"
                + (tls ? EXTENDER_TLS_PORT : EXTENDER_PORT);
    }

    /** The URL kube-scheduler calls with the default TLS mode (Mutual): https on 8443. */
    public String extenderUrl() {
        return extenderUrl(Defaults.TLS_MODE.enabled());
    }

    /** The DNS names the extender's serving certificate is valid for. */
    public List<String> extenderDnsNames() {
        String svc = extender();
        return List.of(
                svc,
                svc + "." + namespace,
                svc + "." + namespace + ".svc",
                svc + "." + namespace + ".svc.cluster.local");
    }
}
