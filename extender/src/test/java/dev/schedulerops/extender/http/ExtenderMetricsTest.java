package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.nodecache.InformerNodeCache;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class ExtenderMetricsTest {
    @Test
    void aNodeCacheThatNeverReachedTheApiServerScrapesAsEmptyNotWatchingAndNeverHeard() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl("http://127.0.0.1:" + closedPort)
                .withRequestRetryBackoffLimit(0)
                .build();
        try (KubernetesClient client =
                        new KubernetesClientBuilder().withConfig(config).build();
                InformerNodeCache cache = InformerNodeCache.start(client, "example.com/rank")) {
            ExtenderMetrics metrics = new ExtenderMetrics();
            metrics.nodeCache(cache::size, cache::watching, cache::lastEventEpochSeconds);

            assertThat(metrics.scrape())
                    .contains("\nschedulerops_extender_node_cache_nodes 0.0\n")
                    .contains("\nschedulerops_extender_node_cache_watching 0.0\n")
                    .contains("\nschedulerops_extender_node_cache_last_event_timestamp_seconds 0.0\n");
        }
    }
}
