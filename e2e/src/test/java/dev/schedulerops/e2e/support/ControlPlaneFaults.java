package dev.schedulerops.e2e.support;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops and starts one process of the local control plane ({@code e2e/cluster stop-component} and {@code
 * start-component}: the kwokctl cluster runs kube-apiserver and etcd as host processes), as an upgrade or a crash of
 * that one process would. A developer reproduces the same by hand with those two commands and {@code e2e/cluster
 * revive}.
 */
public final class ControlPlaneFaults {
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlaneFaults.class);

    private ControlPlaneFaults() {}

    /**
     * Stops {@code component} (SIGTERM; SIGKILL after 30 s) and returns once it has exited. Closing the result starts it
     * again if nothing has yet, so a failing test never leaves the shared cluster without its API server or etcd.
     */
    public static Outage stop(String component) {
        Instant stopping = Instant.now();
        ClusterScript.runOrFail(Duration.ofMinutes(1), "stop-component", component);
        return new Outage(component, stopping);
    }

    /** The executable a running control-plane process was started from ({@code e2e/cluster component-binary}). */
    public static java.nio.file.Path runningBinary(String component) {
        return java.nio.file.Path.of(ClusterScript.runOrFail(Duration.ofSeconds(30), "component-binary", component)
                .stdoutLines()
                .get(0)
                .trim());
    }

    /**
     * One component's outage. From {@link #start()} until {@link #close()} it also plays the part of the control
     * plane's supervisor (kubelet for static pods, or systemd): kube-controller-manager and kube-scheduler exit when
     * they cannot renew their leader lease, and every 2 s {@code e2e/cluster revive} starts again those that have.
     */
    public static final class Outage implements AutoCloseable {
        private final String component;
        private final Instant stopped;
        private final Set<String> revived = new TreeSet<>();
        private ScheduledExecutorService supervisor;
        private Instant started;

        private Outage(String component, Instant stopped) {
            this.component = component;
            this.stopped = stopped;
        }

        /** When the stop began: a SIGTERMed API server stops listening at once, and takes up to 30 s to exit. */
        public Instant stopped() {
            return stopped;
        }

        /** Starts the process as it ran before and returns when the API server answers /readyz again. */
        public synchronized Instant start() {
            if (started == null) {
                ClusterScript.runOrFail(Duration.ofMinutes(2), "start-component", component);
                started = Instant.now();
                revive();
                supervisor = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread thread = new Thread(r, "control-plane-supervisor");
                    thread.setDaemon(true);
                    return thread;
                });
                supervisor.scheduleWithFixedDelay(
                        () -> {
                            try {
                                revive();
                            } catch (RuntimeException e) {
                                // A failed attempt must not end the supervision: the next one may succeed.
                                LOG.warn("e2e/cluster revive failed", e);
                            }
                        },
                        2,
                        2,
                        TimeUnit.SECONDS);
            }
            return started;
        }

        /**
         * Before {@link #start()}: the component starts as {@code binary} with its arguments unchanged, as an upgrade of
         * that one process ({@code e2e/cluster swap-binary}); so does every later revive.
         */
        public synchronized void swapBinary(java.nio.file.Path binary) {
            if (started != null) {
                throw new IllegalStateException(component + " has started already");
            }
            swapBinaryOf(component, binary);
        }

        /**
         * During the outage, another control-plane process ({@code kube-controller-manager}, {@code kube-scheduler})
         * is stopped if it still runs and starts as {@code binary} when revived, as an upgrade replaces it after the API
         * server.
         */
        public synchronized void swapBinaryOf(String other, java.nio.file.Path binary) {
            if (started != null) {
                throw new IllegalStateException(component + " has started already: " + other + " may be revived");
            }
            ClusterScript.runOrFail(Duration.ofMinutes(1), "swap-binary", other, binary.toString());
        }

        /** The other control-plane processes that had exited by now and were started again. */
        public synchronized Set<String> revived() {
            return new TreeSet<>(revived);
        }

        private synchronized void revive() {
            revived.addAll(
                    ClusterScript.runOrFail(Duration.ofMinutes(1), "revive").stdoutLines());
        }

        @Override
        public void close() {
            start();
            supervisor.shutdownNow();
            try {
                supervisor.awaitTermination(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            revive();
        }
    }
}
