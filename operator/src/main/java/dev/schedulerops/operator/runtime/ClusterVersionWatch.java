package dev.schedulerops.operator.runtime;

import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the API server's version periodically, so that a control-plane upgrade is noticed without restarting the
 * operator: every profile is then reconciled with the new version (a new kube-scheduler image, the new version's
 * rules), through the usual ordered, throttled rollout.
 */
final class ClusterVersionWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterVersionWatch.class);

    private final Supplier<String> readVersion;
    private final Consumer<String> onChange;
    private volatile String known;
    private ScheduledExecutorService executor;

    /**
     * @param known the version read at start-up
     * @param readVersion asks the API server (may throw: the next check tries again)
     * @param onChange called with the new version when it differs from the last one
     */
    ClusterVersionWatch(String known, Supplier<String> readVersion, Consumer<String> onChange) {
        this.known = known;
        this.readVersion = readVersion;
        this.onChange = onChange;
    }

    void start(long periodSeconds) {
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "cluster-version-watch");
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleWithFixedDelay(this::check, periodSeconds, periodSeconds, TimeUnit.SECONDS);
    }

    /** One check; public to the package for tests. */
    void check() {
        String now;
        try {
            now = readVersion.get();
        } catch (RuntimeException e) {
            LOG.warn("could not read the Kubernetes version (trying again later): {}", e.getMessage());
            return;
        }
        if (!Objects.equals(now, known)) {
            LOG.info("the cluster now runs Kubernetes {} (was {}): reconciling every profile", now, known);
            known = now;
            onChange.accept(now);
        }
    }

    String known() {
        return known;
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
