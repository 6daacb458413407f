package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.runtime.OperatorConfig;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An operator of one test's own, on the tier's API server, for settings the shared operator does not have (another
 * workload namespace, an image policy): it reconciles only the profiles labelled {@link ApiServerTier#OWN_OPERATOR}
 * with the test's id, which the shared operator leaves alone. Runs as the tier's admin client, without leader
 * election.
 */
final class OwnOperator implements AutoCloseable {
    private final OperatorRuntime runtime;
    private final Map<String, String> profileLabels;

    private OwnOperator(OperatorRuntime runtime, Map<String, String> profileLabels) {
        this.runtime = runtime;
        this.profileLabels = profileLabels;
    }

    /** @param settings SCHEDULEROPS_* settings on top of the test defaults (no leader election, loopback HTTP) */
    static OwnOperator start(Tier tier, Map<String, String> settings) {
        Map<String, String> env = new HashMap<>(Map.of(
                OperatorConfig.ENV_LEADER_ELECTION, "false",
                OperatorConfig.ENV_HTTP_PORT, "0",
                OperatorConfig.ENV_HTTP_BIND_ADDRESS, "127.0.0.1",
                OperatorConfig.ENV_WORKLOAD_NAMESPACE, tier.namespace(),
                OperatorConfig.ENV_PROFILE_SELECTOR, ApiServerTier.OWN_OPERATOR + "=" + tier.id()));
        env.putAll(settings);
        try {
            return new OwnOperator(
                    OperatorRuntime.start(OperatorConfig.fromEnvironment(env, Optional::empty), tier.client()),
                    Map.of(ApiServerTier.OWN_OPERATOR, tier.id()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The labels that put a profile in this operator's hands. */
    Map<String, String> profileLabels() {
        return profileLabels;
    }

    /** The port of its HTTP endpoints (/metrics, /healthz, /readyz) on 127.0.0.1. */
    int httpPort() {
        return runtime.httpPort();
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** Its /metrics, one series a line (comments dropped). */
    List<String> metrics() {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort() + "/metrics"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("/metrics answered " + response.statusCode());
            }
            return Arrays.stream(response.body().split("\n"))
                    .filter(l -> !l.startsWith("#"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The value of {@code series} (its name and labels, as /metrics writes them) in {@code lines}, if there. */
    static Optional<Double> value(List<String> lines, String series) {
        return lines.stream()
                .filter(l -> l.startsWith(series + " "))
                .map(l -> Double.parseDouble(l.substring(series.length() + 1).trim()))
                .findFirst();
    }

    @Override
    public void close() {
        runtime.close();
    }
}
