package dev.schedulerops.extender;

import dev.schedulerops.extender.http.HttpLimits;
import dev.schedulerops.extender.nodecache.InformerNodeCache;
import dev.schedulerops.extender.tls.TlsMode;
import dev.schedulerops.extender.tls.TlsSettings;
import dev.schedulerops.extender.verbs.Verb;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The extender's settings, read once at start-up from options and environment.
 *
 * @param port the verb port (plain HTTP, or HTTPS with TLS)
 * @param nodeCacheSettings with the node cache, how it catches up with the API server
 * @param healthPort the port of /healthz, /readyz and /metrics, always plain HTTP
 * @param verbs the verbs answered; the others' paths are not served
 * @param schedulerName the {@code spec.schedulerName} of the pods Bind may bind; null binds none
 * @param limits what the HTTP server grants its clients (body sizes, connections, timeouts)
 * @param tls the verb port's TLS mode and material
 */
public record ExtenderConfig(
        String labelKey,
        int port,
        int healthPort,
        String bindAddress,
        boolean nodeCache,
        InformerNodeCache.Settings nodeCacheSettings,
        Set<Verb> verbs,
        String schedulerName,
        HttpLimits limits,
        LogFormat logFormat,
        Duration shutdownGrace,
        Duration shutdownDelay,
        TlsSettings tls) {

    public enum LogFormat {
        json,
        text
    }

    private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    public ExtenderConfig {
        String problem = labelKeyProblem(labelKey);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
        }
        if (healthPort < 0 || healthPort > 65535) {
            throw new IllegalArgumentException("health port must be between 0 and 65535, got " + healthPort);
        }
        if (healthPort == port && port != 0) {
            throw new IllegalArgumentException("the health port (--health-port, SCHEDULEROPS_HEALTH_PORT) must differ"
                    + " from the verb port (--port, SCHEDULEROPS_PORT), both are " + port);
        }
        if (bindAddress == null || bindAddress.isBlank()) {
            throw new IllegalArgumentException("bind address must not be empty");
        }
        if (verbs.isEmpty()) {
            throw new IllegalArgumentException("at least one verb must be served");
        }
        verbs = Set.copyOf(verbs);
        if (schedulerName != null
                && (schedulerName.length() > 253
                        || !DNS_SUBDOMAIN.matcher(schedulerName).matches())) {
            throw new IllegalArgumentException("scheduler name \"" + schedulerName + "\" (--scheduler-name,"
                    + " SCHEDULEROPS_SCHEDULER_NAME) must be a DNS subdomain, as a pod's spec.schedulerName is");
        }
        if (shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("shutdown grace must not be negative");
        }
        if (shutdownDelay.isNegative()) {
            throw new IllegalArgumentException(
                    "shutdown delay (--shutdown-delay, SCHEDULEROPS_SHUTDOWN_DELAY) must not" + " be negative");
        }
    }

    /** The node cache's catch-up settings, or an {@link IllegalArgumentException} that names the option. */
    public static InformerNodeCache.Settings nodeCacheSettings(long catchUpLimitMillis, long verifySeconds) {
        if (catchUpLimitMillis < 1) {
            throw new IllegalArgumentException(
                    "--catch-up-limit-ms (SCHEDULEROPS_CATCH_UP_LIMIT_MS) must be at least 1," + " got "
                            + catchUpLimitMillis);
        }
        if (verifySeconds < 0) {
            throw new IllegalArgumentException("--node-cache-verify-seconds (SCHEDULEROPS_NODE_CACHE_VERIFY_SECONDS)"
                    + " must not be negative, got " + verifySeconds);
        }
        return new InformerNodeCache.Settings(Duration.ofMillis(catchUpLimitMillis), Duration.ofSeconds(verifySeconds));
    }

    /**
     * The verbs to serve from {@code SCHEDULEROPS_VERBS}: comma-separated, spelled as a SchedulerProfile's
     * {@code spec.verbs} ({@code Filter}, {@code FilterOnlyOne}, {@code Prioritize}, {@code Bind}, {@code Preempt}).
     * Unset means all five, as before the setting existed; listing Bind then needs the scheduler name, which is what
     * Bind checks every pod against. (With the setting unset, Bind is served but binds no pod until a scheduler name
     * is set: a local run need not name one.)
     */
    public static Set<Verb> verbs(String raw, String schedulerName) {
        if (raw == null) {
            return EnumSet.allOf(Verb.class);
        }
        Set<Verb> verbs = EnumSet.noneOf(Verb.class);
        for (String name : raw.split(",", -1)) {
            String trimmed = name.strip();
            verbs.add(Verb.ofCrdName(trimmed)
                    .orElseThrow(() -> new IllegalArgumentException("unknown verb \"" + trimmed + "\" in --verbs"
                            + " (SCHEDULEROPS_VERBS): list some of Filter, FilterOnlyOne, Prioritize, Bind, Preempt,"
                            + " separated by commas")));
        }
        if (verbs.contains(Verb.BIND) && blank(schedulerName)) {
            throw new IllegalArgumentException("Bind needs the scheduler name whose pods it may bind: set"
                    + " SCHEDULEROPS_SCHEDULER_NAME (or --scheduler-name) to the profile's schedulerName");
        }
        return verbs;
    }

    /**
     * The HTTP limits; a body limit or budget left unset follows the mode and the heap: the body budget is half the
     * heap, the body limit 4 MiB for names-only requests (with the node cache) and 96 MiB for full nodes, at most
     * half the budget.
     */
    public static HttpLimits limits(
            boolean nodeCache,
            Integer maxBodyBytes,
            Long bodyBudgetBytes,
            int maxConnections,
            long idleTimeoutSeconds,
            long headerTimeoutSeconds,
            long bodyTimeoutSeconds,
            long maxHeapBytes) {
        long budget = bodyBudgetBytes != null ? bodyBudgetBytes : maxHeapBytes / 2;
        int maxBody = maxBodyBytes != null
                ? maxBodyBytes
                : (int) Math.min(
                        nodeCache ? HttpLimits.NAMES_ONLY_MAX_BODY_BYTES : HttpLimits.FULL_NODES_MAX_BODY_BYTES,
                        budget / 2);
        return new HttpLimits(
                maxBody,
                budget,
                maxConnections,
                seconds(idleTimeoutSeconds, "--idle-timeout"),
                seconds(headerTimeoutSeconds, "--header-timeout"),
                seconds(bodyTimeoutSeconds, "--body-timeout"));
    }

    private static Duration seconds(long seconds, String option) {
        if (seconds < 1) {
            throw new IllegalArgumentException(option + " must be at least 1 second, got " + seconds);
        }
        return Duration.ofSeconds(seconds);
    }

    /**
     * The TLS settings from the raw option values, or an {@link IllegalArgumentException} that says which variable to
     * set.
     */
    public static TlsSettings tls(
            TlsMode mode, String certFile, String keyFile, String clientCaFile, long reloadSeconds) {
        if (mode == null) {
            throw new IllegalArgumentException(
                    "a TLS mode is required (--tls-mode or SCHEDULEROPS_TLS_MODE: disabled, server or mutual)");
        }
        if (reloadSeconds < 1) {
            throw new IllegalArgumentException("the TLS reload interval (--tls-reload-seconds,"
                    + " SCHEDULEROPS_TLS_RELOAD_SECONDS) must be at least 1 second, got " + reloadSeconds);
        }
        Duration reload = Duration.ofSeconds(reloadSeconds);
        if (mode == TlsMode.disabled) {
            return new TlsSettings(mode, null, null, null, reload);
        }
        if (blank(certFile)) {
            throw new IllegalArgumentException("TLS mode " + mode + " needs the serving certificate: set"
                    + " SCHEDULEROPS_TLS_CERT_FILE (or --tls-cert-file) to a PEM file, leaf first");
        }
        if (blank(keyFile)) {
            throw new IllegalArgumentException("TLS mode " + mode + " needs the serving certificate's private key: set"
                    + " SCHEDULEROPS_TLS_KEY_FILE (or --tls-key-file) to an unencrypted PKCS#8 PEM file");
        }
        if (mode == TlsMode.mutual && blank(clientCaFile)) {
            throw new IllegalArgumentException("TLS mode mutual needs the CA bundle that client certificates are"
                    + " checked against: set SCHEDULEROPS_TLS_CLIENT_CA_FILE (or --tls-client-ca-file) to a PEM file"
                    + " of one or more CA certificates, or use SCHEDULEROPS_TLS_MODE=server to accept any client");
        }
        return new TlsSettings(
                mode,
                Path.of(certFile),
                Path.of(keyFile),
                mode == TlsMode.mutual ? Path.of(clientCaFile) : null,
                reload);
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    /** Why {@code key} is not a valid Kubernetes label key (a qualified name), or null when it is. */
    static String labelKeyProblem(String key) {
        if (key == null || key.isEmpty()) {
            return "a label key is required (--label-key or SCHEDULEROPS_LABEL_KEY)";
        }
        int slash = key.indexOf('/');
        String name = slash < 0 ? key : key.substring(slash + 1);
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            if (prefix.isEmpty()
                    || prefix.length() > 253
                    || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                return "label key \"" + key + "\": the prefix must be a DNS subdomain (lower case, at most 253 chars)";
            }
        }
        if (name.isEmpty() || name.length() > 63 || !LABEL_NAME.matcher(name).matches()) {
            return "label key \"" + key + "\": the name must be at most 63 characters of [A-Za-z0-9-_.],"
                    + " starting and ending with a letter or digit";
        }
        return null;
    }
}
