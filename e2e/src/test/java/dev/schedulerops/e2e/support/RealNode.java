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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
            removeLeftoverThrottles();
            // A second node left by a killed JVM: every other test expects one real node.
            ClusterScript.runOrFail(Duration.ofMinutes(3), "real-node-down", "2");
            ClusterScript.Result result = ClusterScript.runOrFail(Duration.ofMinutes(5), "real-node");
            name = result.lastLine();
            networkPolicy(!"off".equals(System.getProperty(NETWORK_POLICY_PROPERTY, "on")));
        }
        return name;
    }

    /**
     * Adds the second real node ({@code e2e/cluster real-node 2}, idempotent) after {@link #ensure()}: its own
     * containerd, kubelet and kube-proxy in a network namespace of their own, tainted {@code
     * e2e.schedulerops.dev/second-node:NoSchedule} so that only pods that tolerate it land there. Returns its name.
     * When the first node enforces NetworkPolicies, the second runs its own enforcer for its pods. Remove it with {@link #removeSecond()} when the test is done: every
     * other real-node test expects one real node.
     */
    public static synchronized String ensureSecond() {
        ensure();
        return ClusterScript.runOrFail(Duration.ofMinutes(5), "real-node", "2").lastLine();
    }

    /** Removes the second real node and everything it changed on the machine ({@code e2e/cluster real-node-down 2}). */
    public static synchronized void removeSecond() {
        ClusterScript.runOrFail(Duration.ofMinutes(3), "real-node-down", "2");
    }

    /**
     * Starts ({@code true}) or stops the node's NetworkPolicy enforcer and waits until its rules are in place or gone
     * ({@code e2e/cluster network-policy on|off}). The first {@code on} on a fresh machine builds kube-router (about 7
     * minutes on 2 cores; {@code ./test} builds it first in its background build).
     */
    public static void networkPolicy(boolean on) {
        if (on) {
            BackgroundBuild.await(BackgroundBuild.KUBE_ROUTER);
        }
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
    /**
     * Whether kube-proxy on this host (the real node) has turned a Service with no endpoint into a REJECT of its
     * ClusterIP: its "has no endpoints" rule in the filter table's {@code KUBE-SERVICES} chain. (A connection from here
     * does not show it: with the NetworkPolicy enforcer on, kube-router accepts the packets first.)
     */
    public static boolean kubeProxyRejects(String clusterIp) {
        Commands.Result rules = Commands.run(List.of("iptables", "-w", "-S", "KUBE-SERVICES"), Duration.ofSeconds(10));
        return rules.exitCode() == 0
                && rules.stdout().lines().anyMatch(l -> l.contains(clusterIp + "/32") && l.contains("-j REJECT"));
    }

    public static Blackhole blackhole(String ip, int port) {
        return blackhole(null, ip, port, 0);
    }

    /**
     * As {@link #blackhole(String, int)}, for the packets from one pod ({@code sourceIp}) only, and in both directions:
     * the replies to it from {@code replyPort} (the port of the Service's endpoint that answers) are dropped too, so a
     * connection it had open neither delivers nor fails. Its other traffic (the kubelet's probes) passes.
     */
    public static Blackhole blackhole(String sourceIp, String ip, int port, int replyPort) {
        Blackhole hole = new Blackhole(sourceIp, ip, port, replyPort);
        for (List<String> rule : hole.rules()) {
            iptables("-I", rule);
        }
        return hole;
    }

    /** The DROP rules of one blackhole; {@code source} is null for every sender. */
    public record Blackhole(String source, String ip, int port, int replyPort) implements AutoCloseable {
        List<List<String>> rules() {
            List<String> to = new ArrayList<>(List.of("PREROUTING"));
            if (source != null) {
                to.addAll(List.of("-s", source));
            }
            to.addAll(List.of("-d", ip, "-p", "tcp", "--dport", String.valueOf(port)));
            to.addAll(List.of("-m", "comment", "--comment", comment(), "-j", "DROP"));
            if (source == null) {
                return List.of(to);
            }
            // The replies: from a host process (OUTPUT) or another pod (PREROUTING). The raw table sees them before
            // conntrack undoes the Service's DNAT, so they come from the endpoint's port.
            List<List<String>> rules = new ArrayList<>(List.of(to));
            for (String chain : List.of("PREROUTING", "OUTPUT")) {
                rules.add(List.of(
                        chain,
                        "-d",
                        source,
                        "-p",
                        "tcp",
                        "--sport",
                        String.valueOf(replyPort),
                        "-m",
                        "comment",
                        "--comment",
                        comment(),
                        "-j",
                        "DROP"));
            }
            return rules;
        }

        private String comment() {
            return "schedulerops-e2e blackhole " + (source == null ? "" : source + "->") + ip + ":" + port;
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
            for (List<String> rule : rules()) {
                iptables("-D", rule);
            }
        }
    }

    /**
     * Slows, on the node, every packet to the container's {@code port} down to {@code bitsPerSecond} until closed: an
     * HTB class on the host side of the pod's veth (egress there is the pod's ingress) that only that port's traffic
     * enters, so the pod's probes and metrics stay fast, with a token bucket (TBF) under it. TBF, unlike HTB, splits the
     * large segments TCP hands a veth into packets before it lets them through, so nothing slips past the limit in one
     * piece; only its first {@value #THROTTLE_BURST_BYTES} bytes go at once. This kernel has no netem, so the delay is
     * a congested link's: a request waits for its own bytes, and the TLS handshake's, to trickle through.
     */
    public static Throttle throttle(String containerId, int port, int bitsPerSecond) {
        String veth = hostVeth(containerPid(containerId.replaceFirst("^containerd://", "")));
        Throttle throttle = new Throttle(veth);
        tc("qdisc", "add", "dev", veth, "root", "handle", "1:", "htb", "default", "10");
        tc("class", "add", "dev", veth, "parent", "1:", "classid", "1:10", "htb", "rate", "10gbit");
        tc("class", "add", "dev", veth, "parent", "1:", "classid", "1:20", "htb", "rate", "10gbit");
        tc(
                "qdisc",
                "add",
                "dev",
                veth,
                "parent",
                "1:20",
                "handle",
                "20:",
                "tbf",
                "rate",
                bitsPerSecond + "bit",
                "burst",
                String.valueOf(THROTTLE_BURST_BYTES),
                "limit",
                "1000000");
        tc(
                "filter",
                "add",
                "dev",
                veth,
                "parent",
                "1:",
                "protocol",
                "ip",
                "prio",
                "1",
                "u32",
                "match",
                "ip",
                "dport",
                String.valueOf(port),
                "0xffff",
                "flowid",
                "1:20");
        return throttle;
    }

    /** What a throttle lets through at once: one full-size Ethernet frame. */
    public static final int THROTTLE_BURST_BYTES = 1600;

    public record Throttle(String veth) implements AutoCloseable {
        /** The bytes that went through the slow class so far. */
        public long throttledBytes() {
            String classes = Commands.run(List.of("tc", "-s", "class", "show", "dev", veth), Duration.ofSeconds(10))
                    .requireSuccess("tc -s class show dev " + veth)
                    .stdout();
            Matcher sent = Pattern.compile("class htb 1:20 .*?\\n\\s*Sent (\\d+) bytes", Pattern.DOTALL)
                    .matcher(classes);
            return sent.find() ? Long.parseLong(sent.group(1)) : 0;
        }

        @Override
        public void close() {
            tc("qdisc", "del", "dev", veth, "root");
        }
    }

    /** The host's end of the veth whose other end is {@code eth0} in the network namespace of process {@code pid}. */
    private static String hostVeth(long pid) {
        String link = Commands.run(
                        List.of("nsenter", "-t", Long.toString(pid), "-n", "ip", "-o", "link", "show", "eth0"),
                        Duration.ofSeconds(10))
                .requireSuccess("ip link show eth0 in the netns of pid " + pid)
                .stdout();
        Matcher peer = Pattern.compile("eth0@if(\\d+)").matcher(link);
        if (!peer.find()) {
            throw new IllegalStateException("no veth peer index in: " + link);
        }
        String index = peer.group(1);
        return Commands.run(List.of("ip", "-o", "link", "show"), Duration.ofSeconds(10))
                .requireSuccess("ip -o link show")
                .stdout()
                .lines()
                .filter(l -> l.startsWith(index + ": "))
                .map(l -> l.substring(l.indexOf(": ") + 2, l.indexOf('@')))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no host interface with index " + index));
    }

    private static void tc(String... args) {
        List<String> command = new ArrayList<>(List.of("tc"));
        command.addAll(List.of(args));
        Commands.run(command, Duration.ofSeconds(10)).requireSuccess(String.join(" ", command));
    }

    /** Throttles a test left on the node's veths when its JVM was killed before {@link Throttle#close()} ran. */
    private static void removeLeftoverThrottles() {
        Commands.run(
                        List.of(
                                "bash",
                                "-c",
                                "for dev in $(ip -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1); do"
                                        + " tc qdisc show dev \"$dev\" | grep -q '^qdisc htb 1: root'"
                                        + " && tc qdisc del dev \"$dev\" root; done; true"),
                        Duration.ofSeconds(30))
                .requireSuccess("removing leftover throttles");
    }

    /** Blackhole rules a test left when its JVM was killed before {@link Blackhole#close()} ran. */
    private static void removeLeftoverBlackholes() {
        Commands.run(
                        List.of(
                                "bash",
                                "-c",
                                "iptables -w -t raw -S | grep -- 'schedulerops-e2e blackhole' | sed 's/^-A /-D /'"
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

    /**
     * Gives the image {@code reference} (a public name, as {@link #imageReferences()} prints) a second tag in the local
     * registry: its manifest, unchanged, under {@code tag}. Returns the new reference.
     */
    public static String tagInRegistry(String reference, String tag) {
        String path = reference.substring(reference.indexOf('/') + 1);
        String repository = path.substring(0, path.lastIndexOf(':'));
        String from = path.substring(path.lastIndexOf(':') + 1);
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String manifests = "http://" + REGISTRY + "/v2/" + repository + "/manifests/";
        try {
            HttpResponse<byte[]> manifest = http.send(
                    HttpRequest.newBuilder(URI.create(manifests + from))
                            .header("Accept", MANIFEST_TYPES)
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (manifest.statusCode() != 200) {
                throw new IllegalStateException(
                        "GET " + manifests + from + ": HTTP " + manifest.statusCode() + ": run 'e2e/cluster images'");
            }
            String type = manifest.headers().firstValue("Content-Type").orElseThrow();
            HttpResponse<String> put = http.send(
                    HttpRequest.newBuilder(URI.create(manifests + tag))
                            .header("Content-Type", type)
                            .PUT(HttpRequest.BodyPublishers.ofByteArray(manifest.body()))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (put.statusCode() != 201) {
                throw new IllegalStateException(
                        "PUT " + manifests + tag + ": HTTP " + put.statusCode() + ": " + put.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return reference.substring(0, reference.lastIndexOf(':') + 1) + tag;
    }

    private static final String MANIFEST_TYPES = "application/vnd.oci.image.manifest.v1+json,"
            + "application/vnd.docker.distribution.manifest.v2+json,"
            + "application/vnd.oci.image.index.v1+json";

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
                                        .header("Accept", MANIFEST_TYPES)
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
            Map<String, String> environment,
            String memoryCgroup) {}

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
                environment(read(Path.of("/proc", Long.toString(pid), "environ"))),
                memoryCgroup);
    }

    /**
     * Kills the container whose pod status says {@code containerd://<id>} as a crash would: SIGKILL to its main
     * process from the host, so it neither releases a lease nor finishes a request. The kubelet restarts it.
     */
    public static void killContainer(String containerId) {
        signalContainer(containerId, "KILL");
    }

    /**
     * Freezes the container's main process with SIGSTOP from the host, as a hung process or a leader cut off from the
     * API server looks: it holds its lease without renewing it, answers nothing, and the kubelet does not restart it
     * until its liveness probe gives up. {@link #killContainer} ends it (SIGKILL ends a stopped process too).
     */
    public static void freezeContainer(String containerId) {
        signalContainer(containerId, "STOP");
    }

    private static void signalContainer(String containerId, String signal) {
        long pid = containerPid(containerId.replaceFirst("^containerd://", ""));
        Commands.run(List.of("kill", "-" + signal, Long.toString(pid)), Duration.ofSeconds(10))
                .requireSuccess("kill -" + signal + " " + pid);
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

    /** Looks the container up in each real node's containerd (the second node's state is nested in the first's). */
    /** Whether containerd on either real node runs {@code containerId} ("containerd://..." or the bare ID) now. */
    public static boolean containerRunning(String containerId) {
        String id = containerId.replaceFirst("^containerd://", "");
        return tasks().stream()
                .anyMatch(task -> task.id().equals(id) && task.status().equals("RUNNING"));
    }

    private static long containerPid(String id) {
        List<Task> tasks = tasks();
        return tasks.stream()
                .filter(task -> task.id().equals(id))
                .mapToLong(Task::pid)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no real node's containerd runs task " + id + ":\n"
                        + tasks.stream().map(Task::toString).collect(java.util.stream.Collectors.joining("\n"))));
    }

    /** A line of {@code ctr tasks ls}: the container's ID, its process and its status (RUNNING, STOPPED...). */
    private record Task(String id, long pid, String status) {}

    /** The tasks of containerd on every real node there is (the first, and the second when it runs). */
    private static List<Task> tasks() {
        List<Task> tasks = new java.util.ArrayList<>();
        for (String node : List.of("", "/node2")) {
            Path socket = Path.of("/run/schedulerops/" + clusterName() + node + "/containerd/containerd.sock");
            if (!Files.exists(socket)) {
                continue;
            }
            Commands.run(
                            List.of("ctr", "--address", socket.toString(), "--namespace", "k8s.io", "tasks", "ls"),
                            Duration.ofSeconds(30))
                    .requireSuccess("ctr tasks ls")
                    .stdout()
                    .lines()
                    .map(l -> l.trim().split("\\s+"))
                    .filter(columns -> columns.length >= 3 && columns[1].matches("\\d+"))
                    .forEach(columns -> tasks.add(new Task(columns[0], Long.parseLong(columns[1]), columns[2])));
        }
        return tasks;
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

    /** The real node's kubelet credential: its kubeconfig, with the client certificate of system:node:NAME. */
    public static Path kubeletKubeconfig() {
        return Path.of("/var/lib/schedulerops", clusterName(), "pki", "kubelet.kubeconfig");
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
