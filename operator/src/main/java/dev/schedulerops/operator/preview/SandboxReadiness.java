package dev.schedulerops.operator.preview;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Waits until a run's extender and kube-scheduler are ready and hold the whole sandbox, before the first pod of the
 * run is created: they start while the sandbox is being filled, so /readyz (informers synced) is not enough. The
 * extender's node cache must hold every node ({@code schedulerops_extender_node_cache_nodes}, when it keeps one), and
 * kube-scheduler's cache every node and every bound pod ({@code scheduler_cache_size}, named {@code
 * scheduler_scheduler_cache_size} before 1.34). With {@code ignorable: true}, a pod placed while the extender is not
 * up would be placed without it.
 */
final class SandboxReadiness {
    private static final Duration POLL = Duration.ofMillis(100);

    // HTTP/1.1: Go's servers end the JDK client's HTTP/2 upgrade with GOAWAY. Both listen on loopback only;
    // kube-scheduler serves a certificate it made itself at start.
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .sslContext(trustingLoopback())
            .build();

    /**
     * @param ownExtender whether the run started an extender of its own (else it shares another run's)
     * @param nodes how many Nodes the sandbox holds
     * @param boundPods how many bound pods it holds
     */
    void awaitRun(
            SandboxLayout layout,
            SandboxPlan.Run run,
            boolean ownExtender,
            int nodes,
            int boundPods,
            Deadline deadline,
            Runnable alive) {
        SandboxLayout.RunPorts ports = layout.ports(run.name());
        if (ownExtender) {
            String health = "http://127.0.0.1:" + ports.extenderHealthPort();
            await("the " + run.name() + " extender", health + "/readyz", body -> true, deadline, alive);
            await(
                    "the " + run.name() + " extender's node cache (" + nodes + " nodes)",
                    health + "/metrics",
                    body -> gauge(body, "schedulerops_extender_node_cache_nodes")
                            .map(n -> n == nodes)
                            .orElse(true),
                    deadline,
                    alive);
        }
        String scheduler = "https://127.0.0.1:" + ports.schedulerPort();
        await("the " + run.name() + " kube-scheduler", scheduler + "/readyz", body -> true, deadline, alive);
        await(
                "the " + run.name() + " kube-scheduler's cache (" + nodes + " nodes, " + boundPods + " pods)",
                scheduler + "/metrics",
                body -> cacheSize(body, "nodes") == nodes && cacheSize(body, "pods") == boundPods,
                deadline,
                alive);
    }

    /** kube-scheduler's cache size of a type, under either of its names; -1 when absent. */
    static long cacheSize(String metrics, String type) {
        for (String name : new String[] {"scheduler_cache_size", "scheduler_scheduler_cache_size"}) {
            Optional<Long> value = gauge(metrics, name + "{type=\"" + type + "\"}");
            if (value.isPresent()) {
                return value.get();
            }
        }
        return -1;
    }

    /** A sample's value in a Prometheus text exposition, by its name and labels as written. */
    static Optional<Long> gauge(String metrics, String series) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Optional.of((long)
                        Double.parseDouble(line.substring(series.length() + 1).trim()));
            }
        }
        return Optional.empty();
    }

    private void await(String what, String url, Predicate<String> done, Deadline deadline, Runnable alive) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(2))
                .build();
        String last = "no answer";
        while (!deadline.passed()) {
            alive.run();
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200 && done.test(response.body())) {
                    return;
                }
                last = response.statusCode() == 200
                        ? "not all there yet"
                        : response.statusCode() + " " + response.body().strip();
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxException("interrupted", e);
            }
            deadline.pause(POLL);
        }
        throw new SandboxException(what + " was not ready in time (" + url + ": " + last + ")");
    }

    private static SSLContext trustingLoopback() {
        TrustManager trustAll = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {trustAll}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
