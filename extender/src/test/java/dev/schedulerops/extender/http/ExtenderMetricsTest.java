package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.bind.Binder;
import dev.schedulerops.extender.bind.CountingBinder;
import dev.schedulerops.extender.nodecache.InformerNodeCache;
import dev.schedulerops.extender.protocol.BindingArgs;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.ServerSocket;
import java.util.Iterator;
import java.util.List;
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
                InformerNodeCache cache =
                        InformerNodeCache.start(client, "example.com/rank", InformerNodeCache.Settings.DEFAULT)) {
            ExtenderMetrics metrics = new ExtenderMetrics();
            metrics.nodeCache(cache::size, cache::watching, cache::lastEventEpochSeconds);

            assertThat(metrics.scrape())
                    .contains("\nschedulerops_extender_node_cache_nodes 0.0\n")
                    .contains("\nschedulerops_extender_node_cache_watching 0.0\n")
                    .contains("\nschedulerops_extender_node_cache_last_event_timestamp_seconds 0.0\n");
        }
    }

    @Test
    void bindsAreCountedByOutcomeWhichTheRequestCounterCannotTellApart() {
        ExtenderMetrics metrics = new ExtenderMetrics();
        BindingArgs args = new BindingArgs("pod", "ns", "uid-1", "node-1");
        List<BindResult> results = List.of(
                new BindResult.Bound(),
                new BindResult.Bound(),
                new BindResult.Refused("another UID"),
                new BindResult.PodUnreadable("timeout"),
                new BindResult.BindingFailed("pod already assigned"));
        Iterator<BindResult> next = results.iterator();
        Binder binder = new CountingBinder(a -> next.next(), metrics::bindOutcome);

        results.forEach(r -> assertThat(binder.bind(args)).isSameAs(r));

        assertThat(metrics.scrape())
                .contains("\nschedulerops_extender_binds_total{outcome=\"bound\"} 2.0\n")
                .contains("\nschedulerops_extender_binds_total{outcome=\"refused\"} 1.0\n")
                .contains("\nschedulerops_extender_binds_total{outcome=\"pod_unreadable\"} 1.0\n")
                .contains("\nschedulerops_extender_binds_total{outcome=\"failed\"} 1.0\n");
    }

    /**
     * The consistent reads' counters are read through suppliers that only the registry holds (method references made
     * at registration): held weakly, a collection took them and the bench at 5000 nodes scraped 0 reads.
     */
    @Test
    void theConsistentReadCountersOutliveAGarbageCollection() throws Exception {
        ExtenderMetrics metrics = new ExtenderMetrics();
        long[] counts = {7, 1, 2};
        metrics.consistentReads(() -> counts[0], () -> counts[1], () -> counts[2]);

        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }

        assertThat(metrics.scrape())
                .contains("\nschedulerops_extender_node_cache_consistent_reads_total 7.0\n")
                .contains("\nschedulerops_extender_node_cache_consistent_read_failures_total 1.0\n")
                .contains("\nschedulerops_extender_node_cache_consistent_read_corrections_total 2.0\n");
    }
}
