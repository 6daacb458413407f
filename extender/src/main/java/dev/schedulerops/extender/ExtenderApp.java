package dev.schedulerops.extender;

import dev.schedulerops.extender.bind.Binder;
import dev.schedulerops.extender.bind.CountingBinder;
import dev.schedulerops.extender.bind.KubernetesBinder;
import dev.schedulerops.extender.http.ExtenderMetrics;
import dev.schedulerops.extender.http.ExtenderServer;
import dev.schedulerops.extender.nodecache.InformerNodeCache;
import dev.schedulerops.extender.nodecache.NodeCache;
import dev.schedulerops.extender.tls.TlsMaterialException;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires the extender together from its config and runs it until the JVM is asked to stop. */
final class ExtenderApp {
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(4);

    private ExtenderApp() {}

    /**
     * fabric8's informers retry a lost watch (and its list) after this, doubling each time up to 32 times it. With the
     * default 1 s, the node cache could go on answering from the labels it had for 32 s after an API server came back
     * (a pod was sent where a label no longer was, in ControlPlaneFaultsTest); from 250 ms it catches up within 8 s.
     * While the API server is away a retry is one refused request; once it is back each extender lists the nodes
     * once, as it would after the default backoff, only sooner.
     */
    static final int WATCH_RECONNECT_INTERVAL_MILLIS = 250;

    static int run(ExtenderConfig config) {
        Logger log = LoggerFactory.getLogger(ExtenderApp.class);
        log.info(
                "starting extender: labelKey={} verbs={} schedulerName={} port={} healthPort={} tlsMode={}"
                        + " bindAddress={} nodeCache={} {} limits={}",
                config.labelKey(),
                config.verbs().stream().map(Verb::crdName).sorted().toList(),
                config.schedulerName(),
                config.port(),
                config.healthPort(),
                config.tls().mode(),
                config.bindAddress(),
                config.nodeCache(),
                config.nodeCacheSettings(),
                config.limits());
        if (config.verbs().contains(Verb.BIND) && config.schedulerName() == null) {
            log.warn("Bind is served (SCHEDULEROPS_VERBS is unset, so every verb is) but no scheduler name is set"
                    + " (SCHEDULEROPS_SCHEDULER_NAME, --scheduler-name): every bind will be refused");
        }
        KubernetesClient client;
        try {
            client = new KubernetesClientBuilder()
                    .withConfig(new ConfigBuilder(Config.autoConfigure(null))
                            .withWatchReconnectInterval(WATCH_RECONNECT_INTERVAL_MILLIS)
                            .build())
                    .build();
        } catch (RuntimeException e) {
            log.error("cannot configure a Kubernetes client (kubeconfig or in-cluster config): {}", e.toString());
            return 1;
        }
        InformerNodeCache cache = config.nodeCache()
                ? InformerNodeCache.start(client, config.labelKey(), config.nodeCacheSettings())
                : null;
        ExtenderMetrics metrics = new ExtenderMetrics();
        if (cache != null) {
            metrics.nodeCache(cache::size, cache::watching, cache::lastEventEpochSeconds);
            metrics.consistentReads(
                    cache::consistentReads, cache::consistentReadFailures, cache::consistentReadCorrections);
        }
        KubernetesBinder kubernetesBinder = new KubernetesBinder(client, BIND_TIMEOUT, config.schedulerName());
        if (config.verbs().contains(Verb.BIND)) {
            kubernetesBinder.warmUp();
        }
        Binder binder = new CountingBinder(kubernetesBinder, metrics::bindOutcome);
        ExtenderServer server = new ExtenderServer(
                config.bindAddress(),
                config.port(),
                config.healthPort(),
                config.tls(),
                config.limits(),
                config.shutdownGrace(),
                new ExtenderVerbs(config.labelKey(), config.verbs(), cache, binder),
                cache == null ? () -> true : cache::synced,
                metrics);
        try {
            server.start();
        } catch (TlsMaterialException e) {
            log.error("cannot start: the TLS material cannot be used: {}", e.getMessage());
            shutdown(null, Duration.ZERO, cache, client);
            return 1;
        } catch (Exception e) {
            log.error(
                    "cannot start the HTTP server on {}:{} (health port {}): {}",
                    config.bindAddress(),
                    config.port(),
                    config.healthPort(),
                    e.toString());
            shutdown(null, Duration.ZERO, cache, client);
            return 1;
        }
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(() -> shutdown(server, config.shutdownDelay(), cache, client), "extender-shutdown"));
        try {
            server.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private static void shutdown(ExtenderServer server, Duration delay, NodeCache cache, KubernetesClient client) {
        try {
            if (server != null) {
                server.stop(delay);
            }
        } catch (Exception e) {
            LoggerFactory.getLogger(ExtenderApp.class).warn("stopping the HTTP server failed: {}", e.toString());
        }
        if (cache != null) {
            cache.close();
        }
        client.close();
    }
}
