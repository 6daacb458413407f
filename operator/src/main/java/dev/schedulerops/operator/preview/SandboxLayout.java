package dev.schedulerops.operator.preview;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Where a sandbox keeps its files and which loopback ports its components listen on, in one place. In a sandbox pod
 * every container shares the pod's loopback and the {@link #IN_POD_DIRECTORY} volume, so the ports are fixed; on a
 * machine (the {@code sandbox local} command, tests, benchmarks) they are free ones.
 *
 * @param dir the sandbox's files: keys, token, kubeconfig, configurations, etcd's data, the pods to place
 * @param etcdClientPort etcd's client port
 * @param etcdPeerPort etcd's peer port (a single member, still required)
 * @param apiServerPort kube-apiserver's secure port
 * @param runs each run's ports, by run name
 */
public record SandboxLayout(
        Path dir, int etcdClientPort, int etcdPeerPort, int apiServerPort, Map<String, RunPorts> runs) {

    public static final Path IN_POD_DIRECTORY = Path.of("/sandbox");

    /**
     * @param extenderPort the bundled extender's verb port (plain HTTP)
     * @param extenderHealthPort its /readyz and /metrics port
     * @param schedulerPort kube-scheduler's secure port (/readyz)
     */
    public record RunPorts(int extenderPort, int extenderHealthPort, int schedulerPort) {}

    public SandboxLayout {
        runs = Map.copyOf(runs);
    }

    /** The fixed layout of a sandbox pod: the current run's ports, then the proposal's, 10 apart. */
    public static SandboxLayout inPod(List<String> runNames) {
        Map<String, RunPorts> ports = new LinkedHashMap<>();
        int i = 0;
        for (String run : runNames) {
            ports.put(run, new RunPorts(18080 + 10 * i, 18081 + 10 * i, 10259 + 10 * i));
            i++;
        }
        return new SandboxLayout(IN_POD_DIRECTORY, 2379, 2380, 6443, ports);
    }

    /** A layout on this machine, every port a free one. */
    public static SandboxLayout local(Path dir, List<String> runNames, IntSupplier freePort) {
        Map<String, RunPorts> ports = new LinkedHashMap<>();
        for (String run : runNames) {
            ports.put(run, new RunPorts(freePort.getAsInt(), freePort.getAsInt(), freePort.getAsInt()));
        }
        return new SandboxLayout(dir, freePort.getAsInt(), freePort.getAsInt(), freePort.getAsInt(), ports);
    }

    public RunPorts ports(String run) {
        RunPorts ports = runs.get(run);
        if (ports == null) {
            throw new IllegalArgumentException("no run " + run + " in this sandbox");
        }
        return ports;
    }

    public String apiServerUrl() {
        return "https://127.0.0.1:" + apiServerPort;
    }

    public String etcdUrl() {
        return "http://127.0.0.1:" + etcdClientPort;
    }

    public String extenderUrl(String run) {
        return "http://127.0.0.1:" + ports(run).extenderPort();
    }

    public Path token() {
        return dir.resolve("token");
    }

    public Path tokens() {
        return dir.resolve("tokens.csv");
    }

    public Path serviceAccountKey() {
        return dir.resolve("sa.key");
    }

    public Path serviceAccountPublicKey() {
        return dir.resolve("sa.pub");
    }

    public Path kubeconfig() {
        return dir.resolve("kubeconfig");
    }

    public Path etcdData() {
        return dir.resolve("etcd");
    }

    public Path certificates() {
        return dir.resolve("certs");
    }

    public Path schedulerConfig(String run) {
        return dir.resolve(run + "-scheduler.yaml");
    }

    /** The pods to place, as the load step wrote them for the driver. */
    public Path contents() {
        return dir.resolve("contents.json");
    }

    /** Where a local component logs. */
    public Path log(String component) {
        return dir.resolve(component + ".log");
    }
}
