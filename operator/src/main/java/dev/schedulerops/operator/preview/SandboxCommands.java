package dev.schedulerops.operator.preview;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command lines and environment of the sandbox's components, for a layout: the same in a sandbox pod (where the
 * binaries are on each image's PATH) and on a machine (absolute paths). Pure.
 */
public final class SandboxCommands {
    /**
     * Admission plugins the sandbox turns off: no ServiceAccount for its pods (no controller makes them),
     * TaintNodesByCondition would taint every copied node not-ready, RuntimeClass would want the RuntimeClass of a pod
     * whose overhead is already copied, and Priority would refuse a copied pod's priority next to its class name (the
     * live cluster's admission computed it already; {@link PodPriority} does it for sample pods).
     */
    static final String DISABLED_ADMISSION = "ServiceAccount,TaintNodesByCondition,RuntimeClass,Priority";

    /**
     * kube-scheduler at level 2, with level 10 for schedule_one.go only: the per-plugin and per-node scores
     * ({@link SchedulerLog}), without the API request dumps other files log at that level.
     */
    static final List<String> SCHEDULER_LOGGING = List.of("--v=2", "--vmodule=schedule_one=10");

    private SandboxCommands() {}

    public static List<String> etcd(String binary, SandboxLayout layout) {
        String peer = "http://127.0.0.1:" + layout.etcdPeerPort();
        return List.of(
                binary,
                "--name=sandbox",
                "--data-dir=" + layout.etcdData(),
                "--listen-client-urls=" + layout.etcdUrl(),
                "--advertise-client-urls=" + layout.etcdUrl(),
                "--listen-peer-urls=" + peer,
                "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=sandbox=" + peer,
                "--unsafe-no-fsync=true",
                "--log-level=warn");
    }

    public static List<String> apiServer(String binary, SandboxLayout layout) {
        return List.of(
                binary,
                "--etcd-servers=" + layout.etcdUrl(),
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                "--secure-port=" + layout.apiServerPort(),
                "--cert-dir=" + layout.certificates(),
                "--token-auth-file=" + layout.tokens(),
                "--authorization-mode=AlwaysAllow",
                "--service-account-issuer=https://sandbox.schedulerops.invalid",
                "--service-account-key-file=" + layout.serviceAccountPublicKey(),
                "--service-account-signing-key-file=" + layout.serviceAccountKey(),
                "--service-cluster-ip-range=10.96.0.0/16",
                "--enable-priority-and-fairness=false",
                "--endpoint-reconciler-type=none",
                "--disable-admission-plugins=" + DISABLED_ADMISSION,
                "--profiling=false",
                "--v=1");
    }

    public static List<String> scheduler(String binary, SandboxLayout layout, SandboxPlan.Run run) {
        List<String> command = new ArrayList<>(List.of(
                binary,
                "--config=" + layout.schedulerConfig(run.name()),
                "--bind-address=127.0.0.1",
                "--secure-port=" + layout.ports(run.name()).schedulerPort(),
                // Its cache sizes on /metrics tell when it has listed the whole sandbox (SandboxReadiness); the port
                // is on the sandbox's loopback only.
                "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics"));
        command.addAll(SCHEDULER_LOGGING);
        command.addAll(run.schedulerFlags());
        return command;
    }

    /**
     * The extender's environment as the operator renders it, connected to the sandbox: its ports on loopback, no TLS,
     * the run's schedulerName, and the sandbox API server through its kubeconfig.
     */
    public static Map<String, String> extenderEnv(SandboxLayout layout, SandboxPlan.Run run) {
        Map<String, String> env = new LinkedHashMap<>(run.extender().env());
        env.keySet().removeIf(k -> k.startsWith("SCHEDULEROPS_TLS_"));
        SandboxLayout.RunPorts ports = layout.ports(run.name());
        env.put("SCHEDULEROPS_TLS_MODE", "disabled");
        env.put("SCHEDULEROPS_PORT", Integer.toString(ports.extenderPort()));
        env.put("SCHEDULEROPS_HEALTH_PORT", Integer.toString(ports.extenderHealthPort()));
        env.put("SCHEDULEROPS_BIND_ADDRESS", "127.0.0.1");
        env.put("SCHEDULEROPS_SCHEDULER_NAME", run.sandboxSchedulerName());
        env.put("SCHEDULEROPS_LOG_FORMAT", "text");
        // Nothing routes to a sandbox's extender: it may stop at once.
        env.put("SCHEDULEROPS_SHUTDOWN_DELAY", "0");
        env.put("KUBECONFIG", layout.kubeconfig().toString());
        return env;
    }
}
