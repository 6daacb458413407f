package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.KubernetesBinaries;
import dev.schedulerops.e2e.support.ResultsFile;
import dev.schedulerops.operator.preview.Json;
import dev.schedulerops.operator.preview.LoopbackPorts;
import dev.schedulerops.operator.preview.SandboxApi;
import dev.schedulerops.operator.preview.SandboxCommands;
import dev.schedulerops.operator.preview.SandboxFiles;
import dev.schedulerops.operator.preview.SandboxLayout;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a preview costs at the issue's size: a "live" cluster of 1000 Nodes, 3000 bound pods and 200 pods of the
 * profile to place (a bare kube-apiserver and etcd holding those objects, the way an API server holds them), and {@code
 * sandbox local} run on it as a user would, as a process: the time from its start to its answer, and the peak memory
 * of its process tree (the CLI and the sandbox's etcd, kube-apiserver, two kube-schedulers and two extenders), sampled
 * every 250 ms from /proc. Not part of ./test: {@code bench/preview cost} runs it and names the results file
 * ({@code -Dschedulerops.preview.results}).
 */
class PreviewCostBench {
    static final int NODES = Integer.getInteger("schedulerops.preview.nodes", 1000);
    static final int BOUND_PODS = Integer.getInteger("schedulerops.preview.boundPods", 3000);
    static final int PODS_TO_PLACE = Integer.getInteger("schedulerops.preview.pods", 200);
    static final Duration GOAL = Duration.ofSeconds(60);
    static final String PROFILE = "cost";
    static final String LABEL = "cost.example.com/rank";

    private final List<Process> live = new ArrayList<>();
    private Path work;

    @AfterEach
    void stop() {
        for (int i = live.size() - 1; i >= 0; i--) {
            live.get(i).destroy();
            try {
                live.get(i).waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            live.get(i).destroyForcibly();
        }
    }

    @Test
    void aPreviewOfTheIssuesSize() throws Exception {
        ResultsFile results = new ResultsFile("Preview cost", System.getProperty("schedulerops.preview.command", "?"));
        KubernetesBinaries binaries = KubernetesBinaries.locate();
        work = Files.createTempDirectory(E2eSettings.targetDir(), "preview-cost");
        SandboxLayout liveLayout = SandboxLayout.local(work.resolve("live"), List.of(), LoopbackPorts::free);
        long fillStart = System.nanoTime();
        try (KubernetesClient client = startLiveControlPlane(binaries.binDir(), liveLayout)) {
            fill(client);
            long fillSeconds = (System.nanoTime() - fillStart) / 1_000_000_000;
            Path proposal = Files.writeString(
                    work.resolve("proposal.yaml"),
                    """
                    apiVersion: schedulerops.dev/v1beta1
                    kind: SchedulerProfile
                    metadata: {name: %s}
                    spec:
                      labelKey: %s
                      verbs: [Filter, Prioritize]
                      weight: 20
                    """
                            .formatted(PROFILE, LABEL));
            Path kubeconfig = liveLayout.kubeconfig();
            Path cpu = work.resolve("cpu.txt");
            List<String> command = List.of(
                    // the CPU of the CLI and of every process it started (each reaped by it)
                    "/usr/bin/time",
                    "-o",
                    cpu.toString(),
                    "-f",
                    "%e %U %S",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    // the operator image's JVM flags (operator/pom.xml), which a sandbox pod's driver runs with
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-jar",
                    E2eSettings.operatorJar().toString(),
                    "sandbox",
                    "local",
                    "-f",
                    proposal.toString(),
                    "--bin-dir",
                    binaries.binDir().toString(),
                    "--extender-jar",
                    E2eSettings.extenderJar().toString(),
                    "--work-dir",
                    work.resolve("sandbox").toString(),
                    "-o",
                    "json");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectOutput(work.resolve("preview.json").toFile())
                    .redirectError(work.resolve("preview.log").toFile());
            builder.environment().put("KUBECONFIG", kubeconfig.toString());
            long start = System.nanoTime();
            Process preview = builder.start();
            MemorySampler memory = new MemorySampler(preview.pid());
            memory.start();
            boolean finished = preview.waitFor(10, TimeUnit.MINUTES);
            long millis = (System.nanoTime() - start) / 1_000_000;
            memory.stopSampling();
            assertThat(finished).as("the preview finished within 10 minutes").isTrue();
            String json = Files.readString(work.resolve("preview.json"));
            assertThat(preview.exitValue())
                    .as("exit status; its log: " + tail(work.resolve("preview.log")))
                    .isIn(0, 1);
            JsonNode report = Json.tree(json);
            assertThat(report.path("rows")).hasSize(PODS_TO_PLACE);
            long placedCurrent = count(report, "current");
            long placedProposal = count(report, "proposal");
            String[] times = Files.readString(cpu).trim().split("\\s+");
            double cpuSeconds =
                    Double.parseDouble(times[times.length - 2]) + Double.parseDouble(times[times.length - 1]);
            results.write(
                    Path.of(target()),
                    body(report, millis, cpuSeconds, fillSeconds, memory, placedCurrent, placedProposal));
            assertThat(Duration.ofMillis(millis)).as("end to end").isLessThanOrEqualTo(GOAL);
        }
    }

    private static long count(JsonNode report, String run) {
        long placed = 0;
        for (JsonNode row : report.path("rows")) {
            placed += row.at("/" + run + "/node").isTextual() ? 1 : 0;
        }
        return placed;
    }

    private String body(
            JsonNode report,
            long millis,
            double cpuSeconds,
            long fillSeconds,
            MemorySampler memory,
            long current,
            long proposal) {
        StringBuilder b = new StringBuilder();
        b.append("`sandbox local` (the operator jar, as a process) previewing a weight change (Filter + Prioritize,"
                        + " weight 1 -> 20) of a profile whose ")
                .append(PODS_TO_PLACE)
                .append(" pods are placed again, on a live cluster of ")
                .append(NODES)
                .append(" nodes and ")
                .append(BOUND_PODS)
                .append(" bound pods (a bare kube-apiserver and etcd holding them, filled in ")
                .append(fillSeconds)
                .append(" s before the clock starts; see PreviewCostBench for their shape). The sandbox runs etcd,"
                        + " kube-apiserver and kube-scheduler v")
                .append(KubernetesBinaries.locate().kubernetesVersion())
                .append(" from e2e/cluster build and the extender jar, as processes on this machine.\n\n");
        b.append("| measure | value |\n|---|---:|\n");
        b.append("| end to end (process start to answer) | ")
                .append(String.format("%.1f s", millis / 1000.0))
                .append(" |\n");
        b.append("| goal | ")
                .append(GOAL.toSeconds())
                .append(" s: ")
                .append(millis <= GOAL.toMillis() ? "met" : "missed")
                .append(" |\n");
        b.append("| CPU of the process tree (user + system, every process it started) | ")
                .append(String.format("%.1f s", cpuSeconds))
                .append(" |\n");
        b.append("| peak memory of the process tree (RSS, sum) | ")
                .append(memory.peakTotalMb())
                .append(" MB |\n");
        b.append("| pods placed, current / proposal | ")
                .append(current)
                .append(" / ")
                .append(proposal)
                .append(" of ")
                .append(PODS_TO_PLACE)
                .append(" |\n");
        b.append("| moved, ties, replay differs from today | ")
                .append(report.at("/totals/moved").asInt())
                .append(", ")
                .append(report.at("/totals/ties").asInt())
                .append(", ")
                .append(report.at("/totals/replayDiffers").asInt())
                .append(" |\n\n");
        b.append("Time per phase, as the preview reports it (ms; `read`: the snapshot from the live API server,"
                + " `apiserver`: until the sandbox API server answered, counted from the start, `load`: the copy into"
                + " the sandbox, `start`: extenders and schedulers until ready, `run-*`: the pods placed under each"
                + " configuration):\n\n");
        b.append("| phase | ms |\n|---|---:|\n");
        report.path("timings").fields().forEachRemaining(e -> b.append("| ")
                .append(e.getKey())
                .append(" | ")
                .append(e.getValue().asLong())
                .append(" |\n"));
        b.append("\nCPU per program (s, user + system, as last sampled):\n\n| program | s |\n|---|---:|\n");
        memory.cpuByProgramSeconds().forEach((k, v) -> b.append("| ")
                .append(k)
                .append(" | ")
                .append(String.format("%.1f", v))
                .append(" |\n"));
        b.append("\nPeak memory per program (RSS, MB; the largest sample of each, not at the same instant):\n\n");
        b.append("| program | MB |\n|---|---:|\n");
        memory.peakByProgramMb()
                .forEach((k, v) ->
                        b.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        b.append("\nThe snapshot's size as the preview read it: ")
                .append(report.path("snapshot"))
                .append("\n");
        return b.toString();
    }

    private static String target() {
        String target = System.getProperty("schedulerops.preview.results");
        return target == null || target.isBlank()
                ? E2eSettings.targetDir().resolve("preview-cost.md").toString()
                : target;
    }

    /** A bare kube-apiserver and etcd (the sandbox's own flags): the "live" cluster the preview reads. */
    private KubernetesClient startLiveControlPlane(Path binDir, SandboxLayout layout) throws IOException {
        SandboxFiles.writeControlPlane(layout);
        launch("live-etcd", SandboxCommands.etcd(binDir.resolve("etcd").toString(), layout));
        launch(
                "live-kube-apiserver",
                SandboxCommands.apiServer(binDir.resolve("kube-apiserver").toString(), layout));
        KubernetesClient client = SandboxApi.client(layout, SandboxFiles.token(layout));
        SandboxApi.awaitReady(client, Duration.ofSeconds(120), () -> {});
        return client;
    }

    private void launch(String name, List<String> command) throws IOException {
        live.add(new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(work.resolve(name + ".log").toFile())
                .start());
    }

    /**
     * 1000 nodes in 10 zones, a tenth tainted, each with a rank label and 20 images; 3000 pods of 50 apps bound at
     * random (100m to 1 CPU each), a third with a preferred anti-affinity to their app on the node, a fifth with a
     * zone spread; 200 pods of the profile, not bound (no scheduler runs in this "live" cluster).
     */
    private void fill(KubernetesClient client) throws Exception {
        try (var in = Files.newInputStream(
                E2eSettings.repoRoot().resolve("crds/schedulerprofiles.schedulerops.dev-v1.yml"))) {
            CustomResourceDefinition crd =
                    client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .resource(crd)
                    .serverSideApply();
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(crd.getMetadata().getName())
                    .waitUntilCondition(
                            c -> c != null
                                    && c.getStatus() != null
                                    && c.getStatus().getConditions().stream()
                                            .anyMatch(x -> x.getType().equals("Established")
                                                    && x.getStatus().equals("True")),
                            60,
                            TimeUnit.SECONDS);
        }
        Random random = new Random(46);
        List<ObjectNode> objects = new ArrayList<>();
        for (String ns : List.of("team-a", "team-b", "team-c")) {
            objects.add(dev.schedulerops.operator.preview.SnapshotCopy.namespace(ns));
        }
        ObjectNode high = Json.object();
        high.put("apiVersion", "scheduling.k8s.io/v1")
                .put("kind", "PriorityClass")
                .put("value", 1000);
        high.putObject("metadata").put("name", "high");
        objects.add(high);
        create(client, objects);
        objects.clear();
        for (int n = 0; n < NODES; n++) {
            ObjectNode node = Json.object();
            node.put("apiVersion", "v1").put("kind", "Node");
            ObjectNode metadata = node.putObject("metadata");
            metadata.put("name", "node-" + n);
            ObjectNode labels = metadata.putObject("labels");
            labels.put("kubernetes.io/hostname", "node-" + n);
            labels.put("topology.kubernetes.io/zone", "zone-" + (n % 10));
            labels.put(LABEL, Integer.toString(1 + random.nextInt(100)));
            if (n % 10 == 3) {
                ObjectNode taint = node.putObject("spec").putArray("taints").addObject();
                taint.put("key", "dedicated").put("value", "gpu").put("effect", "NoSchedule");
            }
            ObjectNode status = node.putObject("status");
            for (String field : List.of("capacity", "allocatable")) {
                status.putObject(field).put("cpu", "16").put("memory", "64Gi").put("pods", "110");
            }
            ArrayNode images = status.putArray("images");
            for (int i = 0; i < 20; i++) {
                ObjectNode image = images.addObject();
                image.putArray("names").add("registry.example.com/app-" + ((n + i) % 50) + ":1.0");
                image.put("sizeBytes", 50_000_000L + 1_000_000L * i);
            }
            objects.add(node);
        }
        create(client, objects);
        objects.clear();
        for (int p = 0; p < BOUND_PODS + PODS_TO_PLACE; p++) {
            boolean toPlace = p >= BOUND_PODS;
            String app = toPlace ? "web" : "app-" + (p % 50);
            ObjectNode pod = Json.object();
            pod.put("apiVersion", "v1").put("kind", "Pod");
            ObjectNode metadata = pod.putObject("metadata");
            metadata.put("name", (toPlace ? "web-" : "pod-") + p);
            metadata.put(
                    "namespace",
                    toPlace ? "team-a" : List.of("team-a", "team-b", "team-c").get(p % 3));
            metadata.putObject("labels").put("app", app);
            ObjectNode spec = pod.putObject("spec");
            if (toPlace) {
                spec.put("schedulerName", PROFILE);
            } else {
                spec.put("nodeName", "node-" + random.nextInt(NODES));
            }
            if (p % 3 == 0) {
                ObjectNode term = spec.putObject("affinity")
                        .putObject("podAntiAffinity")
                        .putArray("preferredDuringSchedulingIgnoredDuringExecution")
                        .addObject();
                term.put("weight", 50);
                ObjectNode podTerm = term.putObject("podAffinityTerm");
                podTerm.put("topologyKey", "kubernetes.io/hostname");
                podTerm.putObject("labelSelector").putObject("matchLabels").put("app", app);
            }
            if (p % 5 == 0) {
                ObjectNode spread = spec.putArray("topologySpreadConstraints").addObject();
                spread.put("maxSkew", 1).put("topologyKey", "topology.kubernetes.io/zone");
                spread.put("whenUnsatisfiable", "ScheduleAnyway");
                spread.putObject("labelSelector").putObject("matchLabels").put("app", app);
            }
            ObjectNode container = spec.putArray("containers").addObject();
            container.put("name", "app").put("image", "registry.example.com/" + app + ":1.0");
            container
                    .putObject("resources")
                    .putObject("requests")
                    .put("cpu", (100 + 100 * random.nextInt(10)) + "m")
                    .put("memory", (128 + 128 * random.nextInt(8)) + "Mi");
            objects.add(pod);
        }
        create(client, objects);
        ObjectNode profile = Json.object();
        profile.put("apiVersion", "schedulerops.dev/v1beta1").put("kind", "SchedulerProfile");
        profile.putObject("metadata").put("name", PROFILE);
        profile.putObject("spec")
                .put("labelKey", LABEL)
                .put("weight", 1)
                .putArray("verbs")
                .add("Filter")
                .add("Prioritize");
        client.raw("/apis/schedulerops.dev/v1beta1/schedulerprofiles", "POST", Json.write(profile));
    }

    private static void create(KubernetesClient client, List<ObjectNode> objects) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (ObjectNode o : objects) {
                futures.add(pool.submit(() -> SandboxApi.create(client, o)));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(none)";
        }
    }

    /** The RSS of a process and all its descendants, every 250 ms: the largest sum, and each program's largest. */
    static final class MemorySampler extends Thread {
        private final long root;
        private volatile boolean running = true;
        private long peakTotalKb;
        private final Map<String, Long> peakByProgramKb = new LinkedHashMap<>();
        /** Each process's CPU ticks as last seen (utime + stime, 1/100 s), and its program. */
        private final Map<Long, Long> ticks = new LinkedHashMap<>();

        private final Map<Long, String> programs = new LinkedHashMap<>();

        MemorySampler(long root) {
            super("memory-sampler");
            this.root = root;
            setDaemon(true);
        }

        @Override
        public void run() {
            while (running) {
                sample();
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void stopSampling() throws InterruptedException {
            running = false;
            interrupt();
            join(5000);
        }

        private synchronized void sample() {
            Map<Long, Long> parents = new LinkedHashMap<>();
            Map<Long, String> names = new LinkedHashMap<>();
            Map<Long, Long> cpuTicks = new LinkedHashMap<>();
            Map<Long, Long> rss = new LinkedHashMap<>();
            try (var dirs = Files.list(Path.of("/proc"))) {
                for (Path dir : dirs.toList()) {
                    String name = dir.getFileName().toString();
                    if (!name.chars().allMatch(Character::isDigit)) {
                        continue;
                    }
                    try {
                        long pid = Long.parseLong(name);
                        long ppid = 0;
                        long kb = 0;
                        String program = "?";
                        String cmdline = Files.readString(dir.resolve("cmdline"));
                        String stat = Files.readString(dir.resolve("stat"));
                        String[] fields =
                                stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        long cpu = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                        for (String line : Files.readAllLines(dir.resolve("status"))) {
                            if (line.startsWith("PPid:")) {
                                ppid = Long.parseLong(line.substring(5).trim());
                            } else if (line.startsWith("VmRSS:")) {
                                kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                            } else if (line.startsWith("Name:")) {
                                program = line.substring(5).trim();
                            }
                        }
                        if (cmdline.contains("schedulerops-operator.jar")) {
                            program = "preview CLI (java)";
                        } else if (cmdline.contains("schedulerops-extender.jar")) {
                            program = "extender (java)";
                        }
                        parents.put(pid, ppid);
                        names.put(pid, program);
                        cpuTicks.put(pid, cpu);
                        rss.put(pid, kb);
                    } catch (IOException | RuntimeException gone) {
                        // the process ended while we read it
                    }
                }
            } catch (IOException e) {
                return;
            }
            long total = 0;
            Map<String, Long> byProgram = new LinkedHashMap<>();
            for (long pid : rss.keySet()) {
                if (descends(pid, parents)) {
                    total += rss.get(pid);
                    String program = names.get(pid);
                    byProgram.merge(program, rss.get(pid), Long::sum);
                    ticks.put(pid, cpuTicks.getOrDefault(pid, 0L));
                    programs.put(pid, program);
                }
            }
            peakTotalKb = Math.max(peakTotalKb, total);
            byProgram.forEach((k, v) -> peakByProgramKb.merge(k, v, Math::max));
        }

        private boolean descends(long pid, Map<Long, Long> parents) {
            for (long p = pid; p > 1; p = parents.getOrDefault(p, 0L)) {
                if (p == root) {
                    return true;
                }
            }
            return false;
        }

        /** CPU seconds per program, as last sampled (a process's last 250 ms before it ended are missed). */
        synchronized Map<String, Double> cpuByProgramSeconds() {
            Map<String, Double> seconds = new LinkedHashMap<>();
            ticks.forEach((pid, t) -> seconds.merge(programs.get(pid), t / 100.0, Double::sum));
            return seconds;
        }

        synchronized long peakTotalMb() {
            return peakTotalKb / 1024;
        }

        synchronized Map<String, Long> peakByProgramMb() {
            Map<String, Long> mb = new LinkedHashMap<>();
            peakByProgramKb.forEach((k, v) -> mb.put(k, v / 1024));
            return mb;
        }
    }
}
