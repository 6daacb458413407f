package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * The run's real node ({@code e2e/cluster real-node}: containerd, kubelet, kube-proxy, CoreDNS on this machine),
 * added once to the shared cluster with its NetworkPolicy enforcer (kube-router's firewall, {@code e2e/cluster
 * network-policy on}) unless {@code -Dschedulerops.networkPolicy=off}, and what a test can see of its containers from
 * the host: their processes under {@code /proc}, their cgroups, and the enforcer's iptables rules.
 */
public final class RealNode {
    /** The local registry the node pulls from (e2e/images); the images keep their public names. */
    public static final String REGISTRY = "127.0.0.1:5005";

    /** {@code -Dschedulerops.networkPolicy=off} keeps the enforcer off ({@code ./demo --in-cluster} may). */
    public static final String NETWORK_POLICY_PROPERTY = "schedulerops.networkPolicy";

    private static String name;

    private RealNode() {}

    /**
     * Adds the real node (idempotent) after checking that every image it will pull is in the local registry, and
     * turns its NetworkPolicy enforcer on (or off with {@code -Dschedulerops.networkPolicy=off}). Returns its name.
     * Fails, naming the command to run, when something is missing.
     */
    public static synchronized String ensure() {
        if (name == null) {
            requireRoot();
            // `e2e/cluster down` stops the registry with the cluster; its storage (the images) is kept.
            Commands.run(
                            List.of(E2eSettings.repoRoot().resolve("e2e/images").toString(), "registry-up"),
                            Duration.ofMinutes(1))
                    .requireSuccess("e2e/images registry-up");
            requireImages();
            removeLeftoverBlackholes();
            ClusterScript.Result result = ClusterScript.runOrFail(Duration.ofMinutes(5), "real-node");
            name = result.lastLine();
            networkPolicy(!"off".equals(System.getProperty(NETWORK_POLICY_PROPERTY, "on")));
        }
        return name;
    }

    /**
     * Starts ({@code true}) or stops the node's NetworkPolicy enforcer and waits until its rules are in place or gone
     * ({@code e2e/cluster network-policy on|off}). The first {@code on} on a fresh machine builds kube-router (about 7
     * minutes on 2 cores; {@code ./test} builds it before the tests).
     */
    public static void networkPolicy(boolean on) {
        ClusterScript.runOrFail(Duration.ofMinutes(15), "network-policy", on ? "on" : "off");
    }

    /** Whether the enforcer runs ({@code e2e/cluster network-policy status}). */
    public static boolean networkPolicyEnforced() {
        return ClusterScript.runOrFail(Duration.ofSeconds(30), "network-policy", "status")
                .lastLine()
                .equals("on");
    }

    /**
     * The packets kube-router's REJECT rule for a pod has refused so far: the rule that ends the pod's firewall chain
     * ({@code KUBE-POD-FW-...}) for what no NetworkPolicy admitted, counted by iptables. Empty while the enforcer has
     * no such rule (off, or not synced yet). kube-router rewrites the filter table at each sync, which sets the counters
     * back to 0: compare two readings only when the second is larger.
     */
    public static Optional<Long> rejectedPackets(String namespace, String pod) {
        String comment = "rule to REJECT traffic destined for POD name:" + pod + " namespace: " + namespace;
        return iptablesCounters(comment).stream().reduce(Long::sum);
    }

    /**
     * Drops, on the node, every TCP packet to {@code ip:port} until closed: a blackhole, not a refusal (no reset, no
     * ICMP), as an unplugged cable or a firewall that drops would be. The rule is the first of the raw table's
     * PREROUTING chain, which packets from the node's pods pass before anything else (kube-proxy's DNAT, conntrack,
     * kube-router's firewall), so it holds whichever way the node routes them, for established connections too.
     */
    public static Blackhole blackhole(String ip, int port) {
        Blackhole hole = new Blackhole(ip, port);
        iptables("-I", hole.rule());
        return hole;
    }

    public record Blackhole(String ip, int port) implements AutoCloseable {
        List<String> rule() {
            return List.of(
                    "PREROUTING",
                    "-d",
                    ip,
                    "-p",
                    "tcp",
                    "--dport",
                    String.valueOf(port),
                    "-m",
                    "comment",
                    "--comment",
                    comment(),
                    "-j",
                    "DROP");
        }

        private String comment() {
            return "schedulerops-e2e blackhole " + ip + ":" + port;
        }

        /** The packets the rule has dropped so far. */
        public long droppedPackets() {
            return Commands.run(List.of("iptables-save", "-c", "-t", "raw"), Duration.ofSeconds(30))
                    .requireSuccess("iptables-save -c -t raw")
                    .stdout()
                    .lines()
                    .filter(l -> l.startsWith("[") && l.contains("\"" + comment() + "\""))
                    .mapToLong(RealNode::packets)
                    .sum();
        }

        @Override
        public void close() {
            iptables("-D", rule());
        }
    }

    /** Blackhole rules a test left when its JVM was killed before {@link Blackhole#close()} ran. */
    private static void removeLeftoverBlackholes() {
        Commands.run(
                        List.of(
                                "bash",
                                "-c",
                                "iptables -w -t raw -S PREROUTING | grep -- 'schedulerops-e2e blackhole' | sed 's/^-A /-D /'"
                                        + " | while read -r rule; do eval iptables -w -t raw \"$rule\"; done"),
                        Duration.ofSeconds(30))
                .requireSuccess("removing leftover blackhole rules");
    }

    private static void iptables(String action, List<String> rule) {
        List<String> command = new ArrayList<>(List.of("iptables", "-w", "-t", "raw", action));
        command.addAll(rule);
        Commands.run(command, Duration.ofSeconds(30)).requireSuccess(String.join(" ", command));
    }

    private static List<Long> iptablesCounters(String comment) {
        return iptablesSave().stream()
                .filter(l -> l.contains("\"" + comment + "\""))
                .map(RealNode::packets)
                .toList();
    }

    /** {@code [packets:bytes] -A CHAIN ...}: the packets. */
    private static long packets(String counted) {
        return Long.parseLong(counted.substring(1, counted.indexOf(':')));
    }

    private static List<String> iptablesSave() {
        return Commands.run(List.of("iptables-save", "-c", "-t", "filter"), Duration.ofSeconds(30))
                .requireSuccess("iptables-save -c -t filter")
                .stdout()
                .lines()
                .filter(l -> l.startsWith("["))
                .toList();
    }

    /**
     * A real node needs root (containerd, kubelet, network devices, iptables). Elsewhere the tests are skipped with
     * that reason; under CI, which runs as root, a missing root is a failure.
     */
    private static void requireRoot() {
        Commands.Result id = Commands.run(List.of("id", "-u"), Duration.ofSeconds(10));
        boolean root = id.exitCode() == 0 && id.stdout().strip().equals("0");
        if (root) {
            return;
        }
        String reason = "the real-node tests need root (containerd, kubelet, network devices, iptables); this user is"
                + " uid " + id.stdout().strip();
        if ("true".equals(System.getenv("CI"))) {
            throw new IllegalStateException(reason);
        }
        System.out.println("SKIPPED: " + reason);
        Assumptions.abort(reason);
    }

    /** Stops and starts the node's kubelet, and waits until the node is Ready again. */
    public static void restartKubelet() {
        ClusterScript.runOrFail(Duration.ofMinutes(2), "restart-kubelet");
    }

    /** The public image references that {@code e2e/cluster images} builds ({@code e2e/images refs}). */
    public static List<String> imageReferences() {
        Commands.Result refs = Commands.run(
                        List.of(E2eSettings.repoRoot().resolve("e2e/images").toString(), "refs"), Duration.ofMinutes(1))
                .requireSuccess("e2e/images refs");
        return refs.stdout().lines().filter(l -> !l.isBlank()).toList();
    }

    private static void requireImages() {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (String reference : imageReferences()) {
            String path = reference.substring(reference.indexOf('/') + 1);
            String repository = path.substring(0, path.lastIndexOf(':'));
            String tag = path.substring(path.lastIndexOf(':') + 1);
            int status;
            try {
                status = http.send(
                                HttpRequest.newBuilder(URI.create(
                                                "http://" + REGISTRY + "/v2/" + repository + "/manifests/" + tag))
                                        .method("HEAD", HttpRequest.BodyPublishers.noBody())
                                        .header(
                                                "Accept",
                                                "application/vnd.oci.image.manifest.v1+json,"
                                                        + "application/vnd.docker.distribution.manifest.v2+json,"
                                                        + "application/vnd.oci.image.index.v1+json")
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.discarding())
                        .statusCode();
            } catch (IOException e) {
                throw new IllegalStateException(
                        "the local registry " + REGISTRY + " does not answer: run 'e2e/cluster images' first", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (status != 200) {
                throw new IllegalStateException("image " + reference + " is not in the local registry " + REGISTRY
                        + " (HTTP " + status + "): run 'e2e/cluster images' first");
            }
        }
    }

    /**
     * What the kernel says about a running container's main process: user, effective capabilities, no_new_privs,
     * whether its root filesystem is mounted read-only, its memory cgroup's peak usage and limit, and its command line
     * and environment.
     */
    public record ContainerProcess(
            long pid,
            long uid,
            long gid,
            String effectiveCapabilities,
            boolean noNewPrivileges,
            boolean readOnlyRoot,
            long peakMemoryBytes,
            Optional<Long> memoryLimitBytes,
            List<String> commandLine,
            Map<String, String> environment) {}

    /** Inspects the container whose pod status says {@code containerd://<id>}. */
    public static ContainerProcess inspect(String containerId) {
        String id = containerId.replaceFirst("^containerd://", "");
        long pid = containerPid(id);
        String status = read(Path.of("/proc", Long.toString(pid), "status"));
        String[] uids = field(status, "Uid:").split("\\s+");
        String[] gids = field(status, "Gid:").split("\\s+");
        String memoryCgroup = read(Path.of("/proc", Long.toString(pid), "cgroup"))
                .lines()
                .filter(l -> l.matches("\\d+:[^:]*\\bmemory\\b[^:]*:.*"))
                .map(l -> l.substring(l.indexOf(':', l.indexOf(':') + 1) + 1))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no memory cgroup for pid " + pid));
        Path cgroup = Path.of("/sys/fs/cgroup/memory" + memoryCgroup);
        long peak =
                Long.parseLong(read(cgroup.resolve("memory.max_usage_in_bytes")).strip());
        long limit =
                Long.parseLong(read(cgroup.resolve("memory.limit_in_bytes")).strip());
        // cgroup v1 reports "no limit" as a huge page-aligned number (LONG_MAX rounded down to a page).
        Optional<Long> memoryLimit = limit >= (1L << 62) ? Optional.empty() : Optional.of(limit);
        return new ContainerProcess(
                pid,
                Long.parseLong(uids[1]),
                Long.parseLong(gids[1]),
                field(status, "CapEff:"),
                "1".equals(field(status, "NoNewPrivs:")),
                rootMountIsReadOnly(pid),
                peak,
                memoryLimit,
                List.of(read(Path.of("/proc", Long.toString(pid), "cmdline")).split("\0")),
                environment(read(Path.of("/proc", Long.toString(pid), "environ"))));
    }

    /**
     * Kills the container whose pod status says {@code containerd://<id>} as a crash would: SIGKILL to its main
     * process from the host, so it neither releases a lease nor finishes a request. The kubelet restarts it.
     */
    public static void killContainer(String containerId) {
        long pid = containerPid(containerId.replaceFirst("^containerd://", ""));
        Commands.run(List.of("kill", "-KILL", Long.toString(pid)), Duration.ofSeconds(10))
                .requireSuccess("kill -KILL " + pid);
    }

    private static Map<String, String> environment(String environ) {
        Map<String, String> variables = new LinkedHashMap<>();
        for (String variable : environ.split("\0")) {
            int equals = variable.indexOf('=');
            if (equals > 0) {
                variables.put(variable.substring(0, equals), variable.substring(equals + 1));
            }
        }
        return variables;
    }

    private static long containerPid(String id) {
        Commands.Result tasks = Commands.run(
                        List.of(
                                "ctr",
                                "--address",
                                "/run/schedulerops/" + clusterName() + "/containerd/containerd.sock",
                                "--namespace",
                                "k8s.io",
                                "tasks",
                                "ls"),
                        Duration.ofSeconds(30))
                .requireSuccess("ctr tasks ls");
        return tasks.stdout()
                .lines()
                .map(l -> l.trim().split("\\s+"))
                .filter(columns -> columns.length >= 3 && columns[0].equals(id))
                .mapToLong(columns -> Long.parseLong(columns[1]))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("containerd runs no task " + id + ":\n" + tasks.stdout()));
    }

    private static boolean rootMountIsReadOnly(long pid) {
        // mountinfo: id parent major:minor root mountpoint options ...; the container's "/" is the last one listed.
        return read(Path.of("/proc", Long.toString(pid), "mountinfo"))
                .lines()
                .map(l -> l.split(" "))
                .filter(f -> f.length > 5 && f[4].equals("/"))
                .reduce((first, second) -> second)
                .map(f -> List.of(f[5].split(",")).contains("ro"))
                .orElse(false);
    }

    private static String clusterName() {
        String configured = System.getenv("SCHEDULEROPS_CLUSTER");
        return configured == null || configured.isBlank() ? "schedulerops-e2e" : configured;
    }

    private static String field(String status, String key) {
        return status.lines()
                .filter(l -> l.startsWith(key))
                .map(l -> l.substring(key.length()).strip())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + key + " in /proc status"));
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
