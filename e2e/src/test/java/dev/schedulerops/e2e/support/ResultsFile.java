package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * A results file as every measurement of the project writes one (see bench/README.md, "Results files"): a title, then
 * where and when it was measured (the commit, and whether the tree had uncommitted changes; the date; the machine; the
 * load before and after; the command), then the figures and the raw data they come from.
 */
public final class ResultsFile {
    private final String title;
    private final String command;
    private final Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    private final String loadBefore = loadAverage();

    /** Starts the clock and notes the load: the header gives both. */
    public ResultsFile(String title, String command) {
        this.title = title;
        this.command = command;
    }

    /** Writes the file: the header, then {@code body} (Markdown). */
    public Path write(Path file, String body) {
        String header = "# " + title + "\n\n"
                + "- date: " + started + " (to " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ")\n"
                + "- commit: " + commit() + "\n"
                + "- machine: " + machine() + "\n"
                + "- load average: " + loadBefore + " at the start, " + loadAverage() + " at the end\n"
                + "- command: `" + command + "`\n\n";
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, header + body, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    static String commit() {
        Path root = E2eSettings.repoRoot();
        Commands.Result head =
                Commands.run(List.of("git", "-C", root.toString(), "rev-parse", "HEAD"), Duration.ofSeconds(10));
        if (head.exitCode() != 0) {
            return "unknown (not a git checkout)";
        }
        Commands.Result status = Commands.run(
                List.of("git", "-C", root.toString(), "status", "--porcelain", "--untracked-files=no"),
                Duration.ofSeconds(30));
        return head.stdout().trim() + (status.stdout().isBlank() ? "" : " plus uncommitted changes");
    }

    static String machine() {
        String kernel = Commands.run(List.of("uname", "-srm"), Duration.ofSeconds(5))
                .stdout()
                .trim();
        String cpu = "unknown cpu";
        long memoryKb = 0;
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse(cpu);
            memoryKb = Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(l -> l.startsWith("MemTotal:"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                    .findFirst()
                    .orElse(0);
        } catch (IOException e) {
            // not Linux: the kernel line says what it is
        }
        return kernel + ", " + Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), "
                + Math.round(memoryKb / 1024.0 / 1024.0) + " GiB";
    }

    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return "unknown";
        }
    }
}
