package dev.schedulerops.extender.nodecache;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One consistent read of the nodes that carry the label: {@code GET /api/v1/nodes?labelSelector=KEY} without a
 * resource version, which the API server answers with the state as of now: from 1.31 on from its watch cache, once
 * that has caught up with etcd. Without a {@code limit}: a paginated list is served from etcd before 1.34 (the cache
 * snapshots of KEP-4988), and a label selector does not narrow what etcd reads, so pages of 500 read every whole node
 * (at 5000 nodes a read took longer than the 1 s a request may wait; bench/extender-node-cache). Pages the server
 * makes anyway are followed. Only metadata is asked for ({@code PartialObjectMetadataList}): a node's status and
 * image list are most of its size and none of the label.
 * It needs {@code list} on nodes, which the node cache's watch needs already.
 */
final class LabelledNodesReader implements Supplier<CompletableFuture<LabelledNodes>> {
    static final String ACCEPT =
            "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;q=0.9";

    private final HttpClient http;
    private final URL masterUrl;
    private final String labelKey;
    private final String firstPage;
    private final Duration timeout;

    LabelledNodesReader(KubernetesClient client, String labelKey, Duration timeout) {
        this.http = client.getHttpClient();
        this.masterUrl = client.getMasterUrl();
        this.labelKey = labelKey;
        this.firstPage = "api/v1/nodes?labelSelector=" + URLEncoder.encode(labelKey, StandardCharsets.UTF_8);
        this.timeout = timeout;
    }

    @Override
    public CompletableFuture<LabelledNodes> get() {
        return page(null, ResourceVersion.UNKNOWN, new HashMap<>());
    }

    private CompletableFuture<LabelledNodes> page(
            String continueToken, long version, Map<String, LabelledNodes.Node> nodes) {
        HttpRequest request;
        try {
            String path = continueToken == null
                    ? firstPage
                    : firstPage + "&continue=" + URLEncoder.encode(continueToken, StandardCharsets.UTF_8);
            request = http.newHttpRequestBuilder()
                    .url(new URL(masterUrl, path))
                    .header("Accept", ACCEPT)
                    .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .build();
        } catch (MalformedURLException e) {
            return CompletableFuture.failedFuture(e);
        }
        return http.sendAsync(request, byte[].class).thenCompose(response -> {
            LabelledNodes.Page page;
            try {
                page = parse(response);
            } catch (IOException e) {
                return CompletableFuture.failedFuture(new UncheckedIOException(e));
            }
            nodes.putAll(page.nodes());
            long listVersion = continueToken == null ? page.version() : version;
            return page.next() == null
                    ? CompletableFuture.completedFuture(new LabelledNodes(listVersion, Map.copyOf(nodes)))
                    : page(page.next(), listVersion, nodes);
        });
    }

    private LabelledNodes.Page parse(HttpResponse<byte[]> response) throws IOException {
        byte[] body = response.body();
        if (!response.isSuccessful()) {
            String text = body == null ? "" : new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8);
            throw new IOException(
                    "listing the nodes with label " + labelKey + " got HTTP " + response.code() + ": " + text);
        }
        return LabelledNodes.parsePage(body, labelKey);
    }
}
