package dev.schedulerops.extender.http;

import java.time.Duration;

/**
 * What the extender's HTTP server grants its clients, so that neither a flood of connections nor slow or large
 * requests can exhaust its heap or its connections. extender/README.md ("Limits") has the measurements behind the
 * defaults.
 *
 * @param maxBodyBytes the largest request body; a larger one gets 413
 * @param bodyBudgetBytes the most memory all request bodies being read or answered may hold together; a request that
 *     would take more gets 503 with {@code Retry-After}. At least twice {@code maxBodyBytes}: a body's array doubles
 *     as it grows, so while it is copied the old and the new array are both held.
 * @param maxConnections connections the verb port holds at once; past that it accepts no more until one closes
 * @param idleTimeout a connection on which nothing arrives or leaves for this long is closed
 * @param headerTimeout from the first byte of a request (or TLS handshake) until its headers are complete
 * @param bodyTimeout from a request's headers until its body is complete
 */
public record HttpLimits(
        int maxBodyBytes,
        long bodyBudgetBytes,
        int maxConnections,
        Duration idleTimeout,
        Duration headerTimeout,
        Duration bodyTimeout) {

    /**
     * Names-only requests (nodeCacheCapable: true, so the extender runs with its node cache): 13 bytes a node name
     * for 10-character names, 256 for names of Kubernetes' longest 253 characters, so 1.3 MB for 5000 such nodes, plus
     * the pod, which the API server keeps under 1.5 MiB.
     */
    public static final int NAMES_ONLY_MAX_BODY_BYTES = 4 * 1024 * 1024;

    /** Full-node requests: 12.3 KB a kubelet-like node with 50 images, 61.3 MB for 5000 nodes; 96 MiB is 1.6 times. */
    public static final int FULL_NODES_MAX_BODY_BYTES = 96 * 1024 * 1024;

    public static final int MAX_CONNECTIONS = 256;
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration HEADER_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration BODY_TIMEOUT = Duration.ofSeconds(10);

    public HttpLimits {
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("max body bytes must be positive, got " + maxBodyBytes);
        }
        if (bodyBudgetBytes < 2L * maxBodyBytes) {
            throw new IllegalArgumentException(
                    "the body budget (--body-budget-bytes, SCHEDULEROPS_BODY_BUDGET_BYTES) must"
                            + " be at least twice the largest body (--max-body-bytes, SCHEDULEROPS_MAX_BODY_BYTES): "
                            + bodyBudgetBytes + " < 2 x " + maxBodyBytes);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("max connections must be positive, got " + maxConnections);
        }
        for (Duration timeout : new Duration[] {idleTimeout, headerTimeout, bodyTimeout}) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeouts must be positive, got " + timeout);
            }
        }
    }

    /** The default limits with this largest body, and a budget of twice that. */
    public static HttpLimits withMaxBody(int maxBodyBytes) {
        return new HttpLimits(
                maxBodyBytes, 2L * maxBodyBytes, MAX_CONNECTIONS, IDLE_TIMEOUT, HEADER_TIMEOUT, BODY_TIMEOUT);
    }

    public HttpLimits withBodyBudget(long bytes) {
        return new HttpLimits(maxBodyBytes, bytes, maxConnections, idleTimeout, headerTimeout, bodyTimeout);
    }

    public HttpLimits withMaxConnections(int connections) {
        return new HttpLimits(maxBodyBytes, bodyBudgetBytes, connections, idleTimeout, headerTimeout, bodyTimeout);
    }

    public HttpLimits withTimeouts(Duration idle, Duration header, Duration body) {
        return new HttpLimits(maxBodyBytes, bodyBudgetBytes, maxConnections, idle, header, body);
    }
}
