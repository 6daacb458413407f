package dev.schedulerops.operator.preview;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A sandbox on this machine, its components as processes on loopback (for {@code sandbox local}, the tests and the
 * benchmark): etcd, kube-apiserver, then, once the snapshot is loaded, each run's extender (the extender jar) and
 * kube-scheduler. {@link #close()} stops every process and deletes the work directory, whatever happened.
 */
public final class LocalSandbox implements AutoCloseable {
    /**
     * @param etcd the etcd binary
     * @param apiServer kube-apiserver
     * @param scheduler kube-scheduler, of the cluster's minor
     * @param extenderJar the extender's executable jar
     * @param java the java launcher for the extender
     */
    public record Binaries(Path etcd, Path apiServer, Path scheduler, Path extenderJar, Path java) {
        /** etcd, kube-apiserver and kube-scheduler from one directory (e2e/cluster build's). */
        public static Binaries in(Path binDir, Path extenderJar) {
            Path dir = binDir.toAbsolutePath();
            return new Binaries(
                    dir.resolve("etcd"),
                    dir.resolve("kube-apiserver"),
                    dir.resolve("kube-scheduler"),
                    extenderJar.toAbsolutePath(),
                    Path.of(System.getProperty("java.home"), "bin", "java"));
        }
    }

    private final Binaries binaries;
    private final SandboxPlan plan;
    private final SandboxLayout layout;
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, SchedulerLog> logs = new HashMap<>();
    private final List<Thread> readers = new ArrayList<>();
    private final boolean keepFiles;
    /** Stops the components when the JVM is stopped (SIGTERM, SIGINT) before {@link #close()}: they outlived it. */
    private final Thread stopOnExit = new Thread(this::stopProcesses, "sandbox-stop-on-exit");

    /** @param keepFiles whether {@link #close()} leaves the work directory (the components' logs) in place */
    public LocalSandbox(Binaries binaries, SandboxPlan plan, Path workDir, boolean keepFiles) {
        this.binaries = binaries;
        this.keepFiles = keepFiles;
        this.plan = plan;
        this.layout = SandboxLayout.local(
                workDir, plan.runs().stream().map(SandboxPlan.Run::name).toList(), LoopbackPorts::free);
    }

    /**
     * Starts every component at once (the extenders and schedulers wait for the API server), reads the live cluster
     * meanwhile, fills the sandbox, waits until each run holds all of it, places the pods; the live cluster is only
     * read.
     */
    public SandboxResult run(KubernetesClient live) throws IOException {
        Deadline deadline = Deadline.in(Duration.ofSeconds(plan.limits().timeoutSeconds()));
        long start = System.nanoTime();
        SandboxFiles.write(layout, plan);
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        launch("etcd", SandboxCommands.etcd(binaries.etcd().toString(), layout), Map.of());
        launch("kube-apiserver", SandboxCommands.apiServer(binaries.apiServer().toString(), layout), Map.of());
        for (SandboxPlan.Run run : plan.runs()) {
            startRun(run);
        }
        return SandboxDriver.fillAndDrive(live, plan, layout, logs, deadline, start, this::requireAlive);
    }

    private void startRun(SandboxPlan.Run run) throws IOException {
        if (plan.startsExtender(run)) {
            Map<String, String> env = new HashMap<>(SandboxCommands.extenderEnv(layout, run));
            // The pod's heap is a share of its memory limit; a process has none: a fixed heap instead.
            env.put("JAVA_TOOL_OPTIONS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
            launch(
                    "extender-" + run.name(),
                    List.of(
                            binaries.java().toString(),
                            "-jar",
                            binaries.extenderJar().toString()),
                    env);
        }
        SchedulerLog log = new SchedulerLog(plan.detailedPods());
        logs.put(run.name(), log);
        Process scheduler = launchPiped(
                "scheduler-" + run.name(),
                SandboxCommands.scheduler(binaries.scheduler().toString(), layout, run),
                log);
        track("scheduler-" + run.name(), scheduler);
    }

    private void launch(String name, List<String> command, Map<String, String> env) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(layout.dir().toFile())
                .redirectErrorStream(true)
                .redirectOutput(
                        ProcessBuilder.Redirect.appendTo(layout.log(name).toFile()));
        builder.environment().putAll(env);
        track(name, builder.start());
    }

    /** A process whose output is read line by line into its log (and kept in a file). */
    private Process launchPiped(String name, List<String> command, SchedulerLog log) throws IOException {
        Process process = new ProcessBuilder(command)
                .directory(layout.dir().toFile())
                .redirectErrorStream(true)
                .start();
        Path file = layout.log(name);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                            BufferedWriter out = Files.newBufferedWriter(file)) {
                        for (String line; (line = in.readLine()) != null; ) {
                            log.accept(line);
                            out.write(line);
                            out.newLine();
                        }
                    } catch (IOException e) {
                        // the process is gone
                    }
                },
                name + "-log");
        reader.setDaemon(true);
        reader.start();
        readers.add(reader);
        return process;
    }

    private void requireAlive() {
        processes.forEach((name, process) -> {
            if (!process.isAlive()) {
                throw new SandboxException(name + " exited with " + process.exitValue() + ": " + tail(name));
            }
        });
    }

    private String tail(String name) {
        try {
            List<String> lines = Files.readAllLines(layout.log(name));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** Where the components log; {@link #close()} deletes it unless asked to keep it. */
    public Path workDir() {
        return layout.dir();
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // the JVM is shutting down (the hook runs or ran), or run() never registered it
        }
        stopProcesses();
        if (!keepFiles) {
            deleteRecursively(layout.dir());
        }
    }

    private synchronized void track(String name, Process process) {
        processes.put(name, process);
    }

    private synchronized void stopProcesses() {
        List<String> names = new ArrayList<>(processes.keySet());
        for (int i = names.size() - 1; i >= 0; i--) {
            stop(processes.get(names.get(i)));
        }
        processes.clear();
    }

    /** At once: nothing of a sandbox is kept, so nothing needs a graceful stop (kube-apiserver's takes seconds). */
    private static void stop(Process process) {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete the sandbox's files in " + dir, e);
        }
    }
}
