package dev.schedulerops.operator.preview;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Waits until a run's extender (its /readyz: the node cache has listed the sandbox's nodes) and kube-scheduler (its
 * /readyz: informers synced, event handlers registered) answer, before the first pod of the run is created: with
 * {@code ignorable: true} a pod placed while the extender is not up yet would be placed without it.
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

    void awaitRun(SandboxLayout layout, SandboxPlan.Run run, Deadline deadline, Runnable stillAlive) {
        SandboxLayout.RunPorts ports = layout.ports(run.name());
        if (run.extender() != null) {
            await(
                    "the " + run.name() + " extender",
                    "http://127.0.0.1:" + ports.extenderHealthPort() + "/readyz",
                    deadline,
                    stillAlive);
        }
        await(
                "the " + run.name() + " kube-scheduler",
                "https://127.0.0.1:" + ports.schedulerPort() + "/readyz",
                deadline,
                stillAlive);
    }

    private void await(String what, String url, Deadline deadline, Runnable stillAlive) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(2))
                .build();
        String last = "no answer";
        while (!deadline.passed()) {
            stillAlive.run();
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
                last = response.statusCode() + " " + response.body().strip();
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
