package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A local clone, as a person would have one: writes files, commits and pushes to its remote on branch main. git runs
 * with an author of its own and without the user's or the system's configuration.
 */
public final class GitWorkTree {
    private static final Map<String, String> ENVIRONMENT = Map.of(
            "GIT_CONFIG_NOSYSTEM", "1",
            "GIT_CONFIG_GLOBAL", "/dev/null",
            "GIT_AUTHOR_NAME", "schedulerops e2e",
            "GIT_AUTHOR_EMAIL", "e2e@schedulerops.dev",
            "GIT_COMMITTER_NAME", "schedulerops e2e",
            "GIT_COMMITTER_EMAIL", "e2e@schedulerops.dev");

    private final Path dir;

    private GitWorkTree(Path dir) {
        this.dir = dir;
    }

    /** An empty repository in {@code dir} whose {@code origin} is {@code remoteUrl}. */
    public static GitWorkTree init(Path dir, String remoteUrl) {
        empty(dir); // a rerun in the same target directory starts over
        GitWorkTree tree = new GitWorkTree(dir);
        tree.git("init", "-q", "-b", "main");
        tree.git("remote", "add", "origin", remoteUrl);
        return tree;
    }

    /** Creates {@code dir}, or deletes everything in it. */
    static void empty(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                try (var walk = Files.walk(dir)) {
                    for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                        if (!p.equals(dir)) {
                            Files.delete(p);
                        }
                    }
                }
            }
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes each file (relative path to content; a null content deletes it), commits everything with {@code message},
     * pushes, and returns the new commit's full hash.
     */
    public String commit(String message, Map<String, String> files) {
        try {
            for (Map.Entry<String, String> file : files.entrySet()) {
                Path path = dir.resolve(file.getKey());
                if (file.getValue() == null) {
                    Files.deleteIfExists(path);
                } else {
                    Files.createDirectories(path.getParent());
                    Files.writeString(path, file.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        git("add", "-A");
        git("commit", "-q", "-m", message);
        return push();
    }

    /** {@code git revert} of the last commit, pushed; returns the new commit's hash. */
    public String revertLast() {
        git("revert", "--no-edit", "HEAD");
        return push();
    }

    public String read(String file) {
        try {
            return Files.readString(dir.resolve(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String push() {
        git("push", "-q", "origin", "main");
        return git("rev-parse", "HEAD").stdout().trim();
    }

    private Commands.Result git(String... args) {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(args));
        return Commands.run(command, null, ENVIRONMENT, Duration.ofSeconds(60))
                .requireSuccess(String.join(" ", command));
    }
}
