package dev.schedulerops.extender;

import dev.schedulerops.extender.tls.TlsMode;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Command line entry point: parses options (with environment fallbacks), sets up logging and runs the extender. */
@Command(
        name = "schedulerops-extender",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "kube-scheduler extender (v1 protocol) that filters and scores nodes by one label.",
            "Serves POST /filter, /filter_onlyone, /prioritize, /bind, /preempt (those of --verbs) on the verb port",
            "(HTTP, or HTTPS with --tls-mode server|mutual) and GET /healthz, /readyz, /metrics on the health port",
            "(always plain HTTP).",
            "Every option falls back to the environment variable named in its description."
        })
public final class Main implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(
            names = "--label-key",
            paramLabel = "KEY",
            defaultValue = "${env:SCHEDULEROPS_LABEL_KEY}",
            description = "Required. Node label to filter on and score by, e.g. priority.lixueduan.com"
                    + " (env SCHEDULEROPS_LABEL_KEY).")
    private String labelKey;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "${env:SCHEDULEROPS_PORT:-8080}",
            description = "Verb port (only the extender verbs, HTTPS when TLS is on); 0 picks a free one"
                    + " (env SCHEDULEROPS_PORT, default ${DEFAULT-VALUE}).")
    private int port;

    @Option(
            names = "--health-port",
            paramLabel = "PORT",
            defaultValue = "${env:SCHEDULEROPS_HEALTH_PORT:-8081}",
            description = "Port for /healthz, /readyz and /metrics only, always plain HTTP; 0 picks a free one"
                    + " (env SCHEDULEROPS_HEALTH_PORT, default ${DEFAULT-VALUE}).")
    private int healthPort;

    @Option(
            names = "--bind-address",
            paramLabel = "ADDRESS",
            defaultValue = "${env:SCHEDULEROPS_BIND_ADDRESS:-0.0.0.0}",
            description = "Address to listen on (env SCHEDULEROPS_BIND_ADDRESS, default ${DEFAULT-VALUE}).")
    private String bindAddress;

    @Option(
            names = "--node-cache",
            paramLabel = "true|false",
            arity = "0..1",
            fallbackValue = "true",
            defaultValue = "${env:SCHEDULEROPS_NODE_CACHE:-false}",
            description = "Watch Nodes (kubeconfig or in-cluster config) to answer names-only requests"
                    + " (nodeCacheCapable: true); ready only once the cache has synced"
                    + " (env SCHEDULEROPS_NODE_CACHE, default ${DEFAULT-VALUE}).")
    private boolean nodeCache;

    @Option(
            names = "--catch-up-limit-ms",
            paramLabel = "MILLISECONDS",
            defaultValue = "${env:SCHEDULEROPS_CATCH_UP_LIMIT_MS:-1000}",
            description = "With --node-cache: before a filter rejects every node, the cache catches up with a"
                    + " consistent read of the labelled nodes; a call waits at most this long for it, then is answered"
                    + " from the cache as it is. Keep it under half of kube-scheduler's httpTimeout"
                    + " (env SCHEDULEROPS_CATCH_UP_LIMIT_MS, default ${DEFAULT-VALUE}).")
    private long catchUpLimitMillis;

    @Option(
            names = "--node-cache-verify-seconds",
            paramLabel = "SECONDS",
            defaultValue = "${env:SCHEDULEROPS_NODE_CACHE_VERIFY_SECONDS:-60}",
            description = "With --node-cache: how often a consistent read checks the cache against the API server,"
                    + " so that a watch that silently stopped delivering leaves it stale at most this long; 0 never"
                    + " (env SCHEDULEROPS_NODE_CACHE_VERIFY_SECONDS, default ${DEFAULT-VALUE}).")
    private long nodeCacheVerifySeconds;

    @Option(
            names = "--verbs",
            paramLabel = "VERB[,VERB...]",
            defaultValue = "${env:SCHEDULEROPS_VERBS}",
            description = "Verbs to serve, spelled as the SchedulerProfile's spec.verbs: Filter, FilterOnlyOne,"
                    + " Prioritize, Bind, Preempt; the paths of the others answer 404. Unset: all five"
                    + " (env SCHEDULEROPS_VERBS).")
    private String verbs;

    @Option(
            names = "--scheduler-name",
            paramLabel = "NAME",
            defaultValue = "${env:SCHEDULEROPS_SCHEDULER_NAME}",
            description = "Bind binds only pods whose spec.schedulerName is NAME (and whose UID the request names);"
                    + " required when --verbs lists Bind; unset, Bind binds no pod (env SCHEDULEROPS_SCHEDULER_NAME).")
    private String schedulerName;

    @Option(
            names = "--max-body-bytes",
            paramLabel = "BYTES",
            defaultValue = "${env:SCHEDULEROPS_MAX_BODY_BYTES}",
            description = "Largest request body accepted; larger ones get 413. Unset: 4 MiB with --node-cache"
                    + " (names-only requests), 96 MiB without (full nodes), at most half the body budget"
                    + " (env SCHEDULEROPS_MAX_BODY_BYTES).")
    private Integer maxBodyBytes;

    @Option(
            names = "--body-budget-bytes",
            paramLabel = "BYTES",
            defaultValue = "${env:SCHEDULEROPS_BODY_BUDGET_BYTES}",
            description = "Most memory all request bodies may hold together; past it requests get 503 with"
                    + " Retry-After. At least twice --max-body-bytes. Unset: half the heap"
                    + " (env SCHEDULEROPS_BODY_BUDGET_BYTES).")
    private Long bodyBudgetBytes;

    @Option(
            names = "--max-connections",
            paramLabel = "N",
            defaultValue = "${env:SCHEDULEROPS_MAX_CONNECTIONS:-256}",
            description = "Connections the verb port holds at once; more wait to be accepted"
                    + " (env SCHEDULEROPS_MAX_CONNECTIONS, default ${DEFAULT-VALUE}).")
    private int maxConnections;

    @Option(
            names = "--idle-timeout",
            paramLabel = "SECONDS",
            defaultValue = "${env:SCHEDULEROPS_IDLE_TIMEOUT_SECONDS:-10}",
            description = "A connection on which nothing moves for this long is closed"
                    + " (env SCHEDULEROPS_IDLE_TIMEOUT_SECONDS, default ${DEFAULT-VALUE}).")
    private long idleTimeoutSeconds;

    @Option(
            names = "--header-timeout",
            paramLabel = "SECONDS",
            defaultValue = "${env:SCHEDULEROPS_HEADER_TIMEOUT_SECONDS:-5}",
            description = "A request's headers (and on a new connection the TLS handshake) must be complete this long"
                    + " after its first byte, or the connection is closed"
                    + " (env SCHEDULEROPS_HEADER_TIMEOUT_SECONDS, default ${DEFAULT-VALUE}).")
    private long headerTimeoutSeconds;

    @Option(
            names = "--body-timeout",
            paramLabel = "SECONDS",
            defaultValue = "${env:SCHEDULEROPS_BODY_TIMEOUT_SECONDS:-10}",
            description = "A request's body must be complete this long after its headers, or the connection is"
                    + " closed (env SCHEDULEROPS_BODY_TIMEOUT_SECONDS, default ${DEFAULT-VALUE}).")
    private long bodyTimeoutSeconds;

    @Option(
            names = "--log-format",
            paramLabel = "json|text",
            defaultValue = "${env:SCHEDULEROPS_LOG_FORMAT:-text}",
            description = "Log format: json (one object per line) or text"
                    + " (env SCHEDULEROPS_LOG_FORMAT, default ${DEFAULT-VALUE}).")
    private ExtenderConfig.LogFormat logFormat;

    @Option(
            names = "--shutdown-grace",
            paramLabel = "SECONDS",
            defaultValue = "${env:SCHEDULEROPS_SHUTDOWN_GRACE:-10}",
            description = "Seconds to let in-flight requests finish on shutdown"
                    + " (env SCHEDULEROPS_SHUTDOWN_GRACE, default ${DEFAULT-VALUE}).")
    private long shutdownGraceSeconds;

    @Option(
            names = "--shutdown-delay",
            paramLabel = "SECONDS",
            defaultValue = "${env:SCHEDULEROPS_SHUTDOWN_DELAY:-5}",
            description = "Seconds to keep serving after SIGTERM, with /readyz at 503, before the grace period starts,"
                    + " so that every node's kube-proxy has dropped this pod from the Service first"
                    + " (env SCHEDULEROPS_SHUTDOWN_DELAY, default ${DEFAULT-VALUE}).")
    private long shutdownDelaySeconds;

    @Option(
            names = "--tls-mode",
            paramLabel = "disabled|server|mutual",
            defaultValue = "${env:SCHEDULEROPS_TLS_MODE:-disabled}",
            description = "Verb port protection: disabled (plain HTTP), server (HTTPS) or mutual (HTTPS and a client"
                    + " certificate from a CA of --tls-client-ca-file, checked at the handshake)"
                    + " (env SCHEDULEROPS_TLS_MODE, default ${DEFAULT-VALUE}).")
    private TlsMode tlsMode;

    @Option(
            names = "--tls-cert-file",
            paramLabel = "FILE",
            defaultValue = "${env:SCHEDULEROPS_TLS_CERT_FILE}",
            description = "PEM serving certificate, leaf first, then intermediates; server and mutual"
                    + " (env SCHEDULEROPS_TLS_CERT_FILE).")
    private String tlsCertFile;

    @Option(
            names = "--tls-key-file",
            paramLabel = "FILE",
            defaultValue = "${env:SCHEDULEROPS_TLS_KEY_FILE}",
            description = "PEM unencrypted PKCS#8 private key of the serving certificate (EC or RSA); server and mutual"
                    + " (env SCHEDULEROPS_TLS_KEY_FILE).")
    private String tlsKeyFile;

    @Option(
            names = "--tls-client-ca-file",
            paramLabel = "FILE",
            defaultValue = "${env:SCHEDULEROPS_TLS_CLIENT_CA_FILE}",
            description = "PEM bundle of the CA certificates trusted for client certificates; mutual"
                    + " (env SCHEDULEROPS_TLS_CLIENT_CA_FILE).")
    private String tlsClientCaFile;

    @Option(
            names = "--tls-reload-seconds",
            paramLabel = "SECONDS",
            defaultValue = "${env:SCHEDULEROPS_TLS_RELOAD_SECONDS:-10}",
            description = "How often the TLS files are checked for new content"
                    + " (env SCHEDULEROPS_TLS_RELOAD_SECONDS, default ${DEFAULT-VALUE}).")
    private long tlsReloadSeconds;

    public static void main(String[] args) {
        int exitCode = commandLine().execute(args);
        if (exitCode != 0) {
            System.exit(exitCode);
        }
    }

    static CommandLine commandLine() {
        return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** Validates the options into a config; invalid values are usage errors (message, usage, non-zero exit). */
    ExtenderConfig config() {
        try {
            return new ExtenderConfig(
                    labelKey,
                    port,
                    healthPort,
                    bindAddress,
                    nodeCache,
                    ExtenderConfig.nodeCacheSettings(catchUpLimitMillis, nodeCacheVerifySeconds),
                    ExtenderConfig.verbs(verbs, schedulerName),
                    blank(schedulerName) ? null : schedulerName,
                    ExtenderConfig.limits(
                            nodeCache,
                            maxBodyBytes,
                            bodyBudgetBytes,
                            maxConnections,
                            idleTimeoutSeconds,
                            headerTimeoutSeconds,
                            bodyTimeoutSeconds,
                            Runtime.getRuntime().maxMemory()),
                    logFormat,
                    Duration.ofSeconds(shutdownGraceSeconds),
                    Duration.ofSeconds(shutdownDelaySeconds),
                    ExtenderConfig.tls(tlsMode, tlsCertFile, tlsKeyFile, tlsClientCaFile, tlsReloadSeconds));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    @Override
    public Integer call() {
        ExtenderConfig config = config();
        configureLogging(config.logFormat());
        return ExtenderApp.run(config);
    }

    /**
     * Picks the logback configuration before the first logger is created, unless one was given explicitly: text is
     * logback's default {@code logback.xml}, JSON {@code logback-json.xml}.
     */
    private static void configureLogging(ExtenderConfig.LogFormat format) {
        if (format == ExtenderConfig.LogFormat.json && System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-json.xml");
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"schedulerops-extender " + (version == null ? "dev" : version)};
        }
    }
}
