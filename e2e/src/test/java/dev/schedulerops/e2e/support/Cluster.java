package dev.schedulerops.e2e.support;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A test class's view of the shared cluster. What it creates (namespaces, nodes added with {@link #addNodes},
 * child processes) is removed when the class ends. Injected as a test parameter by {@link ClusterExtension},
 * or reachable through {@link #current()}.
 */
public final class Cluster implements AutoCloseable {
    /** Where the product installed from deploy/ runs (its operator, and every profile's extender and scheduler). */
    static final String PRODUCT_NAMESPACE = dev.schedulerops.operator.model.ClusterFacts.DEFAULT_WORKLOAD_NAMESPACE;

    private static final Logger LOG = LoggerFactory.getLogger(Cluster.class);
    public static final String E2E_LABEL = "schedulerops.dev/e2e";
    private static volatile Cluster current;

    private final SharedCluster shared;
    private final String scope;
    private final List<String> namespaces = new CopyOnWriteArrayList<>();
    private final List<String> addedNodes = new CopyOnWriteArrayList<>();
    private final List<ChildProcess> processes = new CopyOnWriteArrayList<>();

    private Cluster(SharedCluster shared, String scope) {
        this.shared = shared;
        this.scope = scope;
    }

    static Cluster open(String scope) {
        Cluster cluster = new Cluster(SharedCluster.get(), scope);
        current = cluster;
        return cluster;
    }

    /** The cluster of the running test class; the class must use {@code @ExtendWith(ClusterExtension.class)}. */
    public static Cluster current() {
        Cluster cluster = current;
        if (cluster == null) {
            throw new IllegalStateException(
                    "no cluster: annotate the test class with @ExtendWith(ClusterExtension.class)");
        }
        return cluster;
    }

    public KubernetesClient client() {
        return shared.client;
    }

    public Path kubeconfig() {
        return shared.kubeconfig;
    }

    /** Runs the built kubectl against this cluster (4 minutes at most); the caller checks the result. */
    public Commands.Result kubectl(String... args) {
        List<String> command = new ArrayList<>(
                List.of(Commands.kubectl(), "--kubeconfig", kubeconfig().toString()));
        command.addAll(List.of(args));
        return Commands.run(command, Duration.ofMinutes(4));
    }

    public Path binDir() {
        return shared.binaries.binDir();
    }

    /** For example {@code 1.33.13}, without the {@code v}. */
    public String kubernetesVersion() {
        return shared.binaries.kubernetesVersion();
    }

    public Path repoRoot() {
        return E2eSettings.repoRoot();
    }

    public SchedulerConfigAcceptance schedulerConfigAcceptance() {
        return new SchedulerConfigAcceptance(shared.binaries.kubeScheduler(), workDir("scheduler-acceptance"));
    }

    /** A fresh namespace {@code prefix-xxxxx}, deleted when the test class ends; its default ServiceAccount exists. */
    public Namespace createNamespace(String prefix) {
        return createNamespace(prefix, Map.of());
    }

    public Namespace createNamespace(String prefix, Map<String, String> labels) {
        String name = dnsLabel(prefix) + "-" + randomSuffix();
        Map<String, String> allLabels = new HashMap<>(labels);
        allLabels.put(E2E_LABEL, "true");
        Namespace namespace = client().namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withLabels(allLabels)
                        .endMetadata()
                        .build())
                .create();
        namespaces.add(name);
        // Pods are refused until the controller manager has created the namespace's default ServiceAccount.
        client().serviceAccounts()
                .inNamespace(name)
                .withName("default")
                .waitUntilCondition(sa -> sa != null, 60, TimeUnit.SECONDS);
        return namespace;
    }

    /**
     * At least {@code n} Ready, untainted KWOK nodes carrying {@code labels}: existing ones are reused (and
     * kept), missing ones are added through {@code e2e/cluster nodes}. Returns the names of {@code n} of them.
     */
    public List<String> ensureNodes(int n, Map<String, String> labels) {
        if (readyNodes(labels).size() < n) {
            runNodesScript(n - readyNodes(labels).size(), labels, OptionalInt.empty());
        }
        // Nodes are briefly tainted not-ready until the node lifecycle controller has seen them Ready.
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        List<String> ready = readyNodes(labels);
        while (ready.size() < n && Instant.now().isBefore(deadline)) {
            Await.sleep(500);
            ready = readyNodes(labels);
        }
        if (ready.size() < n) {
            throw new IllegalStateException(
                    "only " + ready.size() + " Ready, untainted nodes with " + labels + ", wanted " + n);
        }
        return ready.subList(0, n);
    }

    /** {@code n} new Ready KWOK nodes carrying {@code labels}, deleted when the test class ends. */
    public List<String> addNodes(int n, Map<String, String> labels) {
        return addNodes(n, labels, OptionalInt.empty());
    }

    /** The same with room for {@code pods} pods each instead of the script's 110. */
    public List<String> addNodes(int n, Map<String, String> labels, OptionalInt pods) {
        List<String> created = runNodesScript(n, labels, pods);
        addedNodes.addAll(created);
        return created;
    }

    /** A directory for a test's files: {@code e2e/target/e2e-work/<TestClass>/<name>}. */
    public Path workDir(String name) {
        Path dir = E2eSettings.targetDir().resolve("e2e-work").resolve(scope).resolve(name);
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts a process whose output goes to {@code e2e/target/process-logs/<TestClass>/<name>.log}. It is
     * stopped when the test class ends; its log is copied with the cluster's when a test fails.
     */
    public ChildProcess startProcess(String name, List<String> command, Map<String, String> environment) {
        Path logDir = E2eSettings.targetDir().resolve("process-logs").resolve(scope);
        Path logFile = logDir.resolve(name + ".log");
        for (int i = 2; Files.exists(logFile); i++) {
            logFile = logDir.resolve(name + "-" + i + ".log");
        }
        ChildProcess process = ChildProcess.start(name, command, environment, workDir(name), logFile);
        processes.add(process);
        return process;
    }

    /** The real kube-scheduler from {@link #binDir()} with {@code configYaml}, pointed at this cluster. */
    public KubeSchedulerProcess startKubeScheduler(String name, String configYaml) {
        return KubeSchedulerProcess.start(this, name, configYaml);
    }

    /** The same with more flags (a rendered Deployment's feature gates and extra arguments). */
    public KubeSchedulerProcess startKubeScheduler(String name, String configYaml, List<String> flags) {
        return KubeSchedulerProcess.start(this, name, configYaml, flags);
    }

    /** Copies component logs, child-process logs and the state of this class's namespaces. */
    public Path captureFailureLogs(String testName) {
        Path dir = E2eSettings.failureLogDir().resolve(scope).resolve(fileName(testName));
        try {
            Files.createDirectories(dir);
            ClusterScript.run(
                    Duration.ofMinutes(1), "logs", dir.resolve("components").toString());
            Path processDir = Files.createDirectories(dir.resolve("processes"));
            for (ChildProcess process : processes) {
                if (Files.exists(process.logFile())) {
                    Files.copy(
                            process.logFile(),
                            processDir.resolve(process.logFile().getFileName()),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
            for (String namespace : namespaces) {
                Files.writeString(dir.resolve("namespace-" + namespace + ".txt"), describeNamespace(namespace));
            }
            captureProductLogs(Files.createDirectories(dir.resolve("product")));
            LOG.warn("test {} failed: logs in {}", testName, dir);
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not capture all logs of {} into {}", testName, dir, e);
        }
        return dir;
    }

    /**
     * The logs of the product's containers that run for real (the operator, extenders and schedulers on the real node;
     * pods on KWOK nodes have none), the current and, after a restart, the previous one: a crash-looping operator says
     * why only there. Each is read on its own, so one the API server cannot give does not lose the others.
     */
    private void captureProductLogs(Path dir) {
        List<Pod> pods;
        try {
            pods = client().pods().inNamespace(PRODUCT_NAMESPACE).list().getItems();
        } catch (RuntimeException e) {
            LOG.warn("could not list the pods of {} for their logs: {}", PRODUCT_NAMESPACE, e.toString());
            return;
        }
        for (Pod pod : pods) {
            if (pod.getStatus() == null) {
                continue;
            }
            // The init containers' too: the scheduler pods' await-extender and release-lease say what they did.
            List<io.fabric8.kubernetes.api.model.ContainerStatus> containers = new java.util.ArrayList<>();
            java.util.Optional.ofNullable(pod.getStatus().getInitContainerStatuses())
                    .ifPresent(containers::addAll);
            java.util.Optional.ofNullable(pod.getStatus().getContainerStatuses())
                    .ifPresent(containers::addAll);
            for (var container : containers) {
                if (container.getContainerID() == null
                        || !container.getContainerID().startsWith("containerd://")) {
                    continue;
                }
                String base = pod.getMetadata().getName() + "_" + container.getName();
                var logs = client().pods()
                        .inNamespace(PRODUCT_NAMESPACE)
                        .withName(pod.getMetadata().getName())
                        .inContainer(container.getName());
                writeLog(dir.resolve(base + ".log"), () -> logs.tailingLines(2000)
                        .getLog());
                if (container.getRestartCount() != null && container.getRestartCount() > 0) {
                    writeLog(
                            dir.resolve(base + ".previous.log"),
                            () -> logs.terminated().tailingLines(2000).getLog());
                }
            }
        }
    }

    /**
     * Follows, from now until closed, the log of every real container of the product's pods, each into a file of its
     * own under the test's log directory ({@code followed/}), whether the test fails or not. A pod a drain evicts takes
     * its log with it, and {@link #captureFailureLogs} can read only the pods that are left: the operator that made a
     * decision before its eviction is the one whose log tells why.
     */
    public AutoCloseable followProductLogs(String testName) {
        Path dir = followedLogDir(testName);
        java.util.Set<String> followed = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<io.fabric8.kubernetes.client.dsl.LogWatch> watches = new CopyOnWriteArrayList<>();
        java.util.concurrent.ScheduledExecutorService every =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "follow-product-logs");
                    t.setDaemon(true);
                    return t;
                });
        every.scheduleWithFixedDelay(
                () -> {
                    try {
                        for (Pod pod : client().pods()
                                .inNamespace(PRODUCT_NAMESPACE)
                                .list()
                                .getItems()) {
                            if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
                                continue;
                            }
                            for (var container : pod.getStatus().getContainerStatuses()) {
                                String id = container.getContainerID();
                                boolean running = container.getState() != null
                                        && container.getState().getRunning() != null;
                                if (id == null || !id.startsWith("containerd://") || !running || !followed.add(id)) {
                                    continue;
                                }
                                Files.createDirectories(dir);
                                String file = pod.getMetadata().getName() + "_" + container.getName() + "-"
                                        + container.getRestartCount() + ".log";
                                watches.add(client().pods()
                                        .inNamespace(PRODUCT_NAMESPACE)
                                        .withName(pod.getMetadata().getName())
                                        .inContainer(container.getName())
                                        .watchLog(new java.io.FileOutputStream(
                                                dir.resolve(file).toFile())));
                            }
                        }
                    } catch (IOException | RuntimeException e) {
                        LOG.warn("following the product's logs: {}", e.toString());
                    }
                },
                0,
                1,
                TimeUnit.SECONDS);
        return () -> {
            every.shutdownNow();
            watches.forEach(io.fabric8.kubernetes.client.dsl.LogWatch::close);
        };
    }

    /** Where {@link #followProductLogs} writes: one file a container, {@code <pod>_<container>-<restarts>.log}. */
    public Path followedLogDir(String testName) {
        return E2eSettings.failureLogDir()
                .resolve(scope)
                .resolve(fileName(testName))
                .resolve("followed");
    }

    private static void writeLog(Path file, java.util.function.Supplier<String> log) {
        try {
            Files.writeString(file, log.get());
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not read {}: {}", file.getFileName(), e.toString());
        }
    }

    @Override
    public void close() {
        processes.forEach(ChildProcess::close);
        for (String namespace : namespaces) {
            client().namespaces().withName(namespace).delete();
        }
        for (String node : addedNodes) {
            client().nodes().withName(node).delete();
        }
        if (current == this) {
            current = null;
        }
    }

    private List<String> runNodesScript(int n, Map<String, String> labels, OptionalInt pods) {
        List<String> args = new ArrayList<>(List.of("nodes", Integer.toString(n)));
        pods.ifPresent(p -> args.add("--pods=" + p));
        labels.forEach((key, value) -> args.add(key + "=" + value));
        return ClusterScript.runOrFail(Duration.ofMinutes(2), args.toArray(String[]::new))
                .stdoutLines();
    }

    private List<String> readyNodes(Map<String, String> labels) {
        return client().nodes().withLabels(labels).list().getItems().stream()
                .filter(Cluster::isReadyAndUntainted)
                .map(node -> node.getMetadata().getName())
                .sorted(Comparator.comparing(String::length).thenComparing(Comparator.naturalOrder()))
                .toList();
    }

    private static boolean isReadyAndUntainted(Node node) {
        boolean ready = node.getStatus() != null
                && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        boolean untainted = node.getSpec() == null
                || node.getSpec().getTaints() == null
                || node.getSpec().getTaints().isEmpty();
        boolean schedulable =
                node.getSpec() == null || !Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        return ready && untainted && schedulable && node.getMetadata().getDeletionTimestamp() == null;
    }

    private String describeNamespace(String namespace) {
        StringBuilder out = new StringBuilder("# pods\n");
        for (Pod pod : client().pods().inNamespace(namespace).list().getItems()) {
            out.append(String.format(
                    "%s phase=%s node=%s scheduler=%s%n",
                    pod.getMetadata().getName(),
                    pod.getStatus() == null ? null : pod.getStatus().getPhase(),
                    pod.getSpec().getNodeName(),
                    pod.getSpec().getSchedulerName()));
        }
        out.append("# events\n");
        List<Event> events =
                client().v1().events().inNamespace(namespace).list().getItems();
        out.append(events.stream()
                .map(e -> String.format(
                        "%s %s %s/%s: %s",
                        e.getType(),
                        e.getReason(),
                        e.getInvolvedObject().getKind(),
                        e.getInvolvedObject().getName(),
                        e.getMessage()))
                .collect(Collectors.joining("\n")));
        return out.toString();
    }

    private static String dnsLabel(String prefix) {
        String label = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
        return label.substring(0, Math.min(label.length(), 50));
    }

    private static String randomSuffix() {
        String alphabet = "bcdfghjklmnpqrstvwxz2456789";
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(alphabet.charAt(ThreadLocalRandom.current().nextInt(alphabet.length())));
        }
        return suffix.toString();
    }

    private static String fileName(String text) {
        return text.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
