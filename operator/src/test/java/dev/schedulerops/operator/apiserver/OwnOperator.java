package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.runtime.OperatorConfig;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
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

    @Override
    public void close() {
        runtime.close();
    }
}
