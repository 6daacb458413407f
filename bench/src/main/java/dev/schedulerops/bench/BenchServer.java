package dev.schedulerops.bench;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.http.ExtenderMetrics;
import dev.schedulerops.extender.http.ExtenderServer;
import dev.schedulerops.extender.http.HttpLimits;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.tls.TlsSettings;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import java.time.Duration;

/**
 * The extender's HTTP server on 127.0.0.1 with a static node cache of NODES generated nodes ({@link NodeJson}), so
 * names-only load tests run without a cluster. Usage: {@code BenchServer PORT NODES HEALTH_PORT} (positional; the
 * verbs on PORT, /readyz and /metrics on HEALTH_PORT, plain HTTP). Stops on SIGTERM.
 */
public final class BenchServer {
    private BenchServer() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int nodes = Integer.parseInt(args[1]);
        int healthPort = Integer.parseInt(args[2]);
        StaticNodeCache cache = NodeJson.staticCache(nodes);
        ExtenderServer server = new ExtenderServer(
                "127.0.0.1",
                port,
                healthPort,
                TlsSettings.disabled(),
                HttpLimits.withMaxBody(64 * 1024 * 1024),
                Duration.ofSeconds(2),
                new ExtenderVerbs(NodeJson.LABEL_KEY, cache, bindArgs -> BindResult.bound()),
                cache::synced,
                new ExtenderMetrics());
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        System.out.println("bench server ready on 127.0.0.1:" + server.port() + " (health " + server.healthPort()
                + ") with " + nodes + " cached nodes");
        server.join();
    }
}
