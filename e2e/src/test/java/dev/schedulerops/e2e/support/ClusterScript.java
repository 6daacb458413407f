package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs {@code e2e/cluster} subcommands. */
final class ClusterScript {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterScript.class);

    record Result(int exitCode, String stdout, String stderr) {
        List<String> stdoutLines() {
            return stdout.lines().filter(l -> !l.isBlank()).toList();
        }

        String lastLine() {
            List<String> lines = stdoutLines();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        }
    }

    private ClusterScript() {}

    static Result run(Duration timeout, String... args) {
        List<String> command = new ArrayList<>();
        command.add(E2eSettings.clusterScript().toString());
        command.addAll(List.of(args));
        Path dir = E2eSettings.targetDir().resolve("cluster-script");
        try {
            Files.createDirectories(dir);
            Path out = Files.createTempFile(dir, args[0] + "-", ".out");
            Path err = Files.createTempFile(dir, args[0] + "-", ".err");
            LOG.info("running {}", String.join(" ", command));
            Process process = new ProcessBuilder(command)
                    .directory(E2eSettings.repoRoot().toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroy);
                process.destroyForcibly();
                throw new IllegalStateException("'e2e/cluster " + String.join(" ", args) + "' did not finish within "
                        + timeout + ":\n" + Files.readString(err));
            }
            Result result = new Result(process.exitValue(), Files.readString(out), Files.readString(err));
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Result runOrFail(Duration timeout, String... args) {
        Result result = run(timeout, args);
        if (result.exitCode() != 0) {
            throw new IllegalStateException("'e2e/cluster " + String.join(" ", args) + "' failed (exit "
                    + result.exitCode() + "):\n" + result.stderr());
        }
        return result;
    }
}
