package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process a test started (kube-scheduler, the extender or operator jar): stdout and stderr go to one log
 * file under {@code e2e/target/}, and it is stopped with its descendants when the test class ends or the JVM
 * exits.
 */
public final class ChildProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChildProcess.class);
    private static final Set<ChildProcess> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(p -> p.stop(Duration.ofSeconds(2)))));
    }

    private final String name;
    private final Process process;
    private final Path logFile;

    private ChildProcess(String name, Process process, Path logFile) {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
    }

    public static ChildProcess start(
            String name, List<String> command, Map<String, String> environment, Path workDir, Path logFile) {
        try {
            Files.createDirectories(workDir);
            Files.createDirectories(logFile.getParent());
            Files.writeString(
                    logFile, "# " + String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            builder.environment().putAll(environment);
            ChildProcess child = new ChildProcess(name, builder.start(), logFile);
            RUNNING.add(child);
            LOG.info("started {} (pid {}), log {}", name, child.pid(), logFile);
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + command, e);
        }
    }

    public long pid() {
        return process.pid();
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Optional<Integer> exitCode() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    public String log() {
        try {
            return Files.readString(logFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String tail() {
        List<String> lines = log().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    public void stop(Duration grace) {
        RUNNING.remove(this);
        if (!process.isAlive()) {
            return;
        }
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("stopped {} (pid {})", name, pid());
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(10));
    }
}
