package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.schedulerops.operator.preview.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The real kube-scheduler run as a local process against the test cluster. With {@code --config},
 * kube-scheduler 1.33 ignores the deprecated {@code --kubeconfig} flag, so the cluster's kubeconfig is written
 * into the config's {@code clientConnection.kubeconfig}. Its secure port is a free port on 127.0.0.1.
 */
public final class KubeSchedulerProcess implements AutoCloseable {
    private static final YAMLMapper YAML = new YAMLMapper();

    private final ChildProcess process;
    private final int securePort;

    private KubeSchedulerProcess(ChildProcess process, int securePort) {
        this.process = process;
        this.securePort = securePort;
    }

    static KubeSchedulerProcess start(Cluster cluster, String name, String configYaml) {
        return start(cluster, name, configYaml, List.of());
    }

    /** @param flags more flags, after the config and the addresses (a rendered Deployment's feature gates, say) */
    static KubeSchedulerProcess start(Cluster cluster, String name, String configYaml, List<String> flags) {
        try {
            ObjectNode config = (ObjectNode) YAML.readTree(configYaml);
            config.withObject("/clientConnection")
                    .put("kubeconfig", cluster.kubeconfig().toString());
            Path configFile = cluster.workDir(name).resolve("kube-scheduler-config.yaml");
            YAML.writeValue(configFile.toFile(), config);
            int port = LoopbackPorts.free();
            List<String> command = new java.util.ArrayList<>(List.of(
                    cluster.binDir().resolve("kube-scheduler").toString(),
                    "--config=" + configFile,
                    "--bind-address=127.0.0.1",
                    "--secure-port=" + port,
                    "--v=2"));
            command.addAll(flags);
            return new KubeSchedulerProcess(cluster.startProcess(name, command, Map.of()), port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until {@code https://127.0.0.1:<port>/readyz} answers 200 (informers synced). */
    public KubeSchedulerProcess awaitReady(Duration timeout) {
        // HTTP/1.1: the JDK client's HTTP/2 upgrade against Go's server ends in GOAWAY.
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(trustingSelfSignedCertificates())
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + securePort + "/readyz"))
                .timeout(Duration.ofSeconds(2))
                .build();
        Instant deadline = Instant.now().plus(timeout);
        String last = "no answer";
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "kube-scheduler exited with " + process.exitCode().orElseThrow() + ":\n" + process.tail());
            }
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return this;
                }
                last = response.statusCode() + " " + response.body();
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            Await.sleep(250);
        }
        throw new IllegalStateException(
                "kube-scheduler not ready within " + timeout + " (" + last + "):\n" + process.tail());
    }

    /**
     * Waits until kube-scheduler exits (its exit code) or its log shows {@code line} (empty), whichever comes first.
     */
    public Optional<Integer> awaitExitOrLog(String line, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                return process.exitCode();
            }
            if (process.log().contains(line)) {
                return Optional.empty();
            }
            Await.sleep(100);
        }
        throw new IllegalStateException(
                "kube-scheduler neither exited nor logged '" + line + "' within " + timeout + ":\n" + process.tail());
    }

    public String log() {
        return process.log();
    }

    @Override
    public void close() {
        process.close();
    }

    // The scheduler serves a self-signed certificate it made at start-up; the test only checks readiness.
    private static SSLContext trustingSelfSignedCertificates() {
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
