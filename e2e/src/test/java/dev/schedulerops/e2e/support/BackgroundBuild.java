package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code ./test} builds while the tests run: the kube-scheduler of every supported minor and the third-party
 * tools (Flux, Argo CD, Prometheus, kube-router) take most of an hour on a fresh machine, and only some test classes
 * need them. {@code ./test} builds them in the background, in two lanes, all but kube-router at {@code nice 19}, and passes its status file as {@value #PROPERTY}; a test that needs a stage waits here until the stage is
 * finished (or the build ends), then looks for its binaries as it always did. Classes that wait
 * ({@link AwaitsBackgroundBuild}) run last in their tier, in the order their stages are expected to finish
 * ({@link BackgroundBuildLast}), so that the others do not wait behind them.
 *
 * <p>The status file, written by {@code ./test}: a line {@code finished STAGE} or {@code failed STAGE (exit N)} per
 * stage as each ends (the two lanes' lines interleave), then {@code done}. Without the property (a developer's run)
 * nothing waits.
 */
public final class BackgroundBuild {
    public static final String PROPERTY = "schedulerops.backgroundBuild";
    public static final String TAG = "background-build";

    public static final String KUBE_ROUTER = "kube-router";
    public static final String PROMETHEUS = "prometheus";
    public static final String SCHEDULERS = "schedulers";
    public static final String FLUX = "flux";
    public static final String GITSERVER = "gitserver";
    public static final String ARGOCD = "argocd";

    /**
     * The stages, in the order they are expected to finish: ./test's two lanes ({@code background_lanes}), one after the
     * other, the scheduler versions' lane (the longest) last. A tool's stage is its e2e/tools/build name.
     */
    public static final List<String> STAGES = List.of(KUBE_ROUTER, PROMETHEUS, FLUX, GITSERVER, ARGOCD, SCHEDULERS);

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundBuild.class);
    private static final Duration LIMIT = Duration.ofMinutes(150);
    private static final Duration POLL = Duration.ofSeconds(5);
    /** One limit for the whole test JVM, from its first wait: a stalled build costs {@link #LIMIT} once, not per call. */
    private static long deadline;
    /** Stages seen finished: asked once per parameterised case, they are not read from the file again. */
    private static final Set<String> FINISHED = ConcurrentHashMap.newKeySet();

    private BackgroundBuild() {}

    /**
     * Returns when {@code stage} is finished, when the background build has ended (failed: the caller's own check of
     * its binaries then fails, and this says why on the log) or {@link #LIMIT} after the JVM's first wait; at once
     * without the property.
     */
    public static void await(String stage) {
        if (!FINISHED.contains(stage)
                && statusFile()
                        .map(status -> await(stage, status, deadline(), POLL))
                        .orElse(false)) {
            FINISHED.add(stage);
        }
    }

    private static synchronized long deadline() {
        if (deadline == 0) {
            deadline = System.nanoTime() + LIMIT.toNanos();
        }
        return deadline;
    }

    /**
     * @param deadline a {@link System#nanoTime()}
     * @return whether the stage finished (or the build ended without naming it); false when it failed, the status file
     *     is missing or the deadline passed
     */
    static boolean await(String stage, Path status, long deadline, Duration poll) {
        long started = System.nanoTime();
        boolean logged = false;
        if (!Files.exists(status)) {
            LOG.error("background build: no status file {} (-D{}); not waiting for {}", status, PROPERTY, stage);
            return false;
        }
        while (true) {
            List<String> lines = read(status);
            if (lines.contains("finished " + stage) || lines.contains("done")) {
                if (logged) {
                    LOG.info(
                            "background build: {} finished after a wait of {} s",
                            stage,
                            Duration.ofNanos(System.nanoTime() - started).toSeconds());
                }
                return true;
            }
            Optional<String> failed = lines.stream()
                    .filter(l -> l.startsWith("failed " + stage + " "))
                    .findFirst();
            if (failed.isPresent()) {
                LOG.error("background build: {}; see {}", failed.get(), log(status));
                return false;
            }
            if (System.nanoTime() - deadline > 0) {
                LOG.error(
                        "background build: {} not finished within {} of the first wait; see {}",
                        stage,
                        LIMIT,
                        log(status));
                return false;
            }
            if (!logged) {
                LOG.info("background build: waiting for {} (log {})", stage, log(status));
                logged = true;
            }
            Await.sleep(poll.toMillis());
        }
    }

    private static Optional<Path> statusFile() {
        String configured = System.getProperty(PROPERTY);
        return configured == null || configured.isBlank() ? Optional.empty() : Optional.of(Path.of(configured));
    }

    private static List<String> read(Path status) {
        try {
            return Files.readAllLines(status).stream().map(String::trim).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path log(Path status) {
        return status.resolveSibling("build.log");
    }
}
