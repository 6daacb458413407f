package dev.schedulerops.e2e.support;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Our smart-HTTP Git server (e2e/src/test/go/gitserver, built by {@code e2e/tools/build gitserver}) on a free port of
 * 127.0.0.1, serving the bare repositories under a directory of the test class; a push to a new path creates the
 * repository. Stopped with the class's other processes.
 */
public final class GitServer {
    private final String url;

    private GitServer(String url) {
        this.url = url;
    }

    public static GitServer start(Cluster cluster, Path binary) {
        Path root = cluster.workDir("git-server");
        GitWorkTree.empty(root); // a repository of an earlier run would refuse this run's first push
        ChildProcess process = cluster.startProcess(
                "gitserver",
                List.of(binary.toString(), "-root", root.toString(), "-port", "0", "-auto-create"),
                Map.of());
        String[] url = new String[1];
        Await.until(Duration.ofSeconds(20), "the Git server prints its URL", () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("gitserver exited: " + process.tail());
            }
            url[0] = process.log()
                    .lines()
                    .filter(line -> line.startsWith("http://127.0.0.1:"))
                    .findFirst()
                    .orElse(null);
            return url[0] != null;
        });
        return new GitServer(url[0].trim());
    }

    /** {@code http://127.0.0.1:<port>/<path>}. */
    public String url(String path) {
        return url + "/" + path;
    }
}
