package dev.schedulerops.extender;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.http.HttpLimits;
import dev.schedulerops.extender.verbs.Verb;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {
    private record Run(int exitCode, String out, String err) {}

    private static Run run(String... args) {
        CommandLine cli = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exitCode = cli.execute(args);
        return new Run(exitCode, out.toString(), err.toString());
    }

    @Test
    void helpDocumentsEveryOptionAndItsEnvironmentVariable() {
        Run run = run("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .contains("--label-key", "SCHEDULEROPS_LABEL_KEY")
                .contains("--port", "SCHEDULEROPS_PORT")
                .contains("--bind-address", "SCHEDULEROPS_BIND_ADDRESS")
                .contains("--node-cache", "SCHEDULEROPS_NODE_CACHE")
                .contains("--max-body-bytes", "SCHEDULEROPS_MAX_BODY_BYTES")
                .contains("--log-format", "SCHEDULEROPS_LOG_FORMAT")
                .contains("--shutdown-grace", "SCHEDULEROPS_SHUTDOWN_GRACE")
                .contains("--shutdown-delay", "SCHEDULEROPS_SHUTDOWN_DELAY")
                .contains("--health-port", "SCHEDULEROPS_HEALTH_PORT")
                .contains("--tls-mode", "SCHEDULEROPS_TLS_MODE")
                .contains("--tls-cert-file", "SCHEDULEROPS_TLS_CERT_FILE")
                .contains("--tls-key-file", "SCHEDULEROPS_TLS_KEY_FILE")
                .contains("--tls-client-ca-file", "SCHEDULEROPS_TLS_CLIENT_CA_FILE")
                .contains("--tls-reload-seconds", "SCHEDULEROPS_TLS_RELOAD_SECONDS")
                .contains("--verbs", "SCHEDULEROPS_VERBS")
                .contains("--scheduler-name", "SCHEDULEROPS_SCHEDULER_NAME")
                .contains("--body-budget-bytes", "SCHEDULEROPS_BODY_BUDGET_BYTES")
                .contains("--max-connections", "SCHEDULEROPS_MAX_CONNECTIONS")
                .contains("--idle-timeout", "SCHEDULEROPS_IDLE_TIMEOUT_SECONDS")
                .contains("--header-timeout", "SCHEDULEROPS_HEADER_TIMEOUT_SECONDS")
                .contains("--body-timeout", "SCHEDULEROPS_BODY_TIMEOUT_SECONDS");
    }

    @Test
    void tlsSettingsThatCannotWorkAreUsageErrorsNamingTheVariable() {
        Run noCa = run("--label-key", "a", "--tls-mode", "mutual", "--tls-cert-file", "c", "--tls-key-file", "k");
        Run noCert = run("--label-key", "a", "--tls-mode", "server", "--tls-key-file", "k");
        Run noKey = run("--label-key", "a", "--tls-mode", "MUTUAL", "--tls-cert-file", "c");

        assertThat(noCa.exitCode()).isEqualTo(2);
        assertThat(noCa.err())
                .contains("TLS mode mutual needs the CA bundle")
                .contains("SCHEDULEROPS_TLS_CLIENT_CA_FILE");
        assertThat(noCert.err())
                .contains("TLS mode server needs the serving certificate", "SCHEDULEROPS_TLS_CERT_FILE");
        assertThat(noKey.err()).contains("TLS mode mutual needs", "SCHEDULEROPS_TLS_KEY_FILE");
        assertThat(run("--label-key", "a", "--tls-mode", "strict").err()).contains("disabled, server, mutual");
        assertThat(run("--label-key", "a", "--tls-reload-seconds", "0").err())
                .contains("SCHEDULEROPS_TLS_RELOAD_SECONDS")
                .contains("at least 1 second");
        assertThat(run("--label-key", "a", "--port", "9000", "--health-port", "9000")
                        .err())
                .contains("SCHEDULEROPS_HEALTH_PORT")
                .contains("must differ from the verb port");
        assertThat(run("--label-key", "a", "--health-port", "70000").err())
                .contains("health port must be between 0 and 65535");
    }

    @Test
    void serverModeNeedsNoClientCaAndDisabledNeedsNoFiles() {
        assertThat(ExtenderConfig.tls(dev.schedulerops.extender.tls.TlsMode.server, "/c", "/k", null, 10)
                        .clientCaFile())
                .isNull();
        assertThat(ExtenderConfig.tls(dev.schedulerops.extender.tls.TlsMode.disabled, null, null, null, 10)
                        .enabled())
                .isFalse();
        assertThat(ExtenderConfig.tls(dev.schedulerops.extender.tls.TlsMode.mutual, "/c", "/k", "/ca", 7)
                        .reloadInterval())
                .isEqualTo(java.time.Duration.ofSeconds(7));
    }

    @Test
    void unknownOptionPrintsUsageAndFails() {
        Run run = run("--label-key", "a", "--xyzzy");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Unknown option: '--xyzzy'").contains("Usage:");
    }

    @Test
    void invalidValuesAreUsageErrors() {
        assertThat(run("--label-key", "a", "--port", "http").exitCode()).isEqualTo(2);
        assertThat(run("--label-key", "a", "--port", "70000").err()).contains("port must be between 0 and 65535");
        assertThat(run("--label-key", "a", "--log-format", "xml").exitCode()).isEqualTo(2);
        assertThat(run("--label-key", "a", "--max-body-bytes", "0").err()).contains("max body bytes must be positive");
        assertThat(run("--label-key", "not a key").err()).contains("label key \"not a key\"");
        assertThat(run("--label-key", "UPPER.example/ok").err()).contains("prefix must be a DNS subdomain");
    }

    @Test
    void verbsAreSpelledAsTheProfileSpellsThemAndBindNeedsTheSchedulerName() {
        assertThat(ExtenderConfig.verbs(null, null)).containsExactlyInAnyOrder(Verb.values());
        assertThat(ExtenderConfig.verbs("Filter, Prioritize", null)).containsExactly(Verb.FILTER, Verb.PRIORITIZE);
        assertThat(ExtenderConfig.verbs("Bind,FilterOnlyOne,Preempt", "label-priority"))
                .containsExactly(Verb.FILTER_ONLY_ONE, Verb.BIND, Verb.PREEMPT);

        assertThat(run("--label-key", "a", "--verbs", "filter").err())
                .contains("unknown verb \"filter\"", "SCHEDULEROPS_VERBS");
        assertThat(run("--label-key", "a", "--verbs", "").err()).contains("unknown verb \"\"");
        assertThat(run("--label-key", "a", "--verbs", "Filter,Bind").err())
                .contains("Bind needs the scheduler name", "SCHEDULEROPS_SCHEDULER_NAME");
        assertThat(run("--label-key", "a", "--verbs", "Filter", "--scheduler-name", "Not_A_Name")
                        .err())
                .contains("must be a DNS subdomain");
    }

    @Test
    void bodyLimitsFollowTheModeAndTheHeap() {
        long mib = 1024 * 1024;
        HttpLimits namesOnly = ExtenderConfig.limits(true, null, null, 256, 10, 5, 10, 384 * mib);
        HttpLimits fullNodes = ExtenderConfig.limits(false, null, null, 256, 10, 5, 10, 384 * mib);
        HttpLimits smallHeap = ExtenderConfig.limits(false, null, null, 256, 10, 5, 10, 128 * mib);

        assertThat(namesOnly.maxBodyBytes()).isEqualTo(4 * mib);
        assertThat(fullNodes.maxBodyBytes()).isEqualTo(96 * mib);
        assertThat(fullNodes.bodyBudgetBytes()).isEqualTo(192 * mib);
        assertThat(smallHeap.maxBodyBytes()).as("at most half the budget").isEqualTo(32 * mib);
        assertThat(ExtenderConfig.limits(false, 1000, 5000L, 8, 1, 2, 3, 384 * mib))
                .isEqualTo(new HttpLimits(
                        1000, 5000, 8, Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3)));
        assertThat(run("--label-key", "a", "--max-body-bytes", "1000", "--body-budget-bytes", "1500")
                        .err())
                .contains("at least twice", "SCHEDULEROPS_BODY_BUDGET_BYTES");
        assertThat(run("--label-key", "a", "--header-timeout", "0").err())
                .contains("--header-timeout must be at least 1 second");
        assertThat(run("--label-key", "a", "--max-connections", "0").err()).contains("max connections");
    }

    @Test
    void labelKeyValidationAcceptsQualifiedNames() {
        assertThat(ExtenderConfig.labelKeyProblem("priority.lixueduan.com")).isNull();
        assertThat(ExtenderConfig.labelKeyProblem("example.com/tier_1.x")).isNull();
        assertThat(ExtenderConfig.labelKeyProblem("a".repeat(64))).isNotNull();
        assertThat(ExtenderConfig.labelKeyProblem("-a")).isNotNull();
        assertThat(ExtenderConfig.labelKeyProblem(null)).contains("required");
    }

    /** Runs the extender's main in a fresh JVM with {@code env} added to the environment. */
    private static Run runJava(Map<String, String> env, String... args) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command =
                new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("SCHEDULEROPS_"));
        builder.environment().putAll(env);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), output, "");
    }

    @Test
    void aNegativeShutdownDelayIsAUsageError() throws Exception {
        Run run = runJava(Map.of("SCHEDULEROPS_LABEL_KEY", "from.env/ok", "SCHEDULEROPS_SHUTDOWN_DELAY", "-1"));

        assertThat(run.exitCode()).as(run.out()).isEqualTo(2);
        assertThat(run.out()).contains("shutdown delay (--shutdown-delay, SCHEDULEROPS_SHUTDOWN_DELAY) must not be");
    }

    @Test
    void readsSettingsFromTheEnvironment() throws Exception {
        Run run = runJava(Map.of("SCHEDULEROPS_LABEL_KEY", "from.env/ok", "SCHEDULEROPS_PORT", "99999"));
        String output = run.out();

        assertThat(run.exitCode()).as(output).isEqualTo(2);
        assertThat(output).contains("port must be between 0 and 65535, got 99999");
    }

    @Test
    void helpShowsEnvironmentValuesAsTheDefaults() throws Exception {
        Run run = runJava(
                environment(
                        "SCHEDULEROPS_LABEL_KEY", "from.env/ok",
                        "SCHEDULEROPS_PORT", "9091",
                        "SCHEDULEROPS_BIND_ADDRESS", "127.0.0.2",
                        "SCHEDULEROPS_NODE_CACHE", "true",
                        "SCHEDULEROPS_MAX_CONNECTIONS", "64",
                        "SCHEDULEROPS_LOG_FORMAT", "json",
                        "SCHEDULEROPS_SHUTDOWN_GRACE", "3",
                        "SCHEDULEROPS_HEALTH_PORT", "9092",
                        "SCHEDULEROPS_TLS_MODE", "server",
                        "SCHEDULEROPS_TLS_RELOAD_SECONDS", "30",
                        "SCHEDULEROPS_SHUTDOWN_DELAY", "7"),
                "--help");
        // The usage wraps descriptions to the terminal width: compare with single spaces.
        String usage = run.out().replaceAll("\\s+", " ");

        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(usage)
                .contains("(env SCHEDULEROPS_PORT, default 9091)")
                .contains("(env SCHEDULEROPS_BIND_ADDRESS, default 127.0.0.2)")
                .contains("(env SCHEDULEROPS_NODE_CACHE, default true)")
                .contains("(env SCHEDULEROPS_MAX_CONNECTIONS, default 64)")
                .contains("(env SCHEDULEROPS_LOG_FORMAT, default json)")
                .contains("(env SCHEDULEROPS_SHUTDOWN_GRACE, default 3)")
                .contains("(env SCHEDULEROPS_SHUTDOWN_DELAY, default 7)")
                .contains("(env SCHEDULEROPS_HEALTH_PORT, default 9092)")
                .contains("(env SCHEDULEROPS_TLS_MODE, default server)")
                .contains("(env SCHEDULEROPS_TLS_RELOAD_SECONDS, default 30)");
    }

    @Test
    void helpWithoutEnvironmentShowsTheBuiltInDefaults() throws Exception {
        String usage = runJava(Map.of(), "--help").out().replaceAll("\\s+", " ");

        assertThat(usage)
                .contains("(env SCHEDULEROPS_PORT, default 8080)")
                .contains("(env SCHEDULEROPS_BIND_ADDRESS, default 0.0.0.0)")
                .contains("(env SCHEDULEROPS_NODE_CACHE, default false)")
                .contains("(env SCHEDULEROPS_MAX_CONNECTIONS, default 256)")
                .contains("(env SCHEDULEROPS_IDLE_TIMEOUT_SECONDS, default 10)")
                .contains("(env SCHEDULEROPS_HEADER_TIMEOUT_SECONDS, default 5)")
                .contains("(env SCHEDULEROPS_BODY_TIMEOUT_SECONDS, default 10)")
                .contains("(env SCHEDULEROPS_LOG_FORMAT, default text)")
                .contains("(env SCHEDULEROPS_SHUTDOWN_GRACE, default 10)")
                .contains("(env SCHEDULEROPS_SHUTDOWN_DELAY, default 5)")
                .contains("(env SCHEDULEROPS_HEALTH_PORT, default 8081)")
                .contains("(env SCHEDULEROPS_TLS_MODE, default disabled)")
                .contains("(env SCHEDULEROPS_TLS_RELOAD_SECONDS, default 10)");
    }

    /**
     * Runs the extender far enough to log, in each format: no kubeconfig to read, and an address it cannot bind, so it
     * exits 1 right after its first log lines.
     */
    private static String firstLogLines(String format) throws Exception {
        Run run = runJava(
                Map.of("KUBECONFIG", "/nonexistent/kubeconfig"),
                "--label-key",
                "example.com/tier",
                "--port",
                "0",
                "--bind-address",
                "203.0.113.7",
                "--log-format",
                format);
        assertThat(run.exitCode()).as(run.out()).isEqualTo(1);
        return run.out();
    }

    @Test
    void unusableTlsMaterialStopsTheStartNamingTheFile() throws Exception {
        Run run = runJava(
                Map.of(
                        "KUBECONFIG", "/nonexistent/kubeconfig",
                        "SCHEDULEROPS_TLS_MODE", "mutual",
                        "SCHEDULEROPS_TLS_CERT_FILE", "/nonexistent/tls/tls.crt",
                        "SCHEDULEROPS_TLS_KEY_FILE", "/nonexistent/tls/tls.key",
                        "SCHEDULEROPS_TLS_CLIENT_CA_FILE", "/nonexistent/tls/client-ca.crt"),
                "--label-key",
                "example.com/tier",
                "--bind-address",
                "127.0.0.1",
                "--port",
                "0",
                "--health-port",
                "0");

        assertThat(run.exitCode()).as(run.out()).isEqualTo(1);
        assertThat(run.out())
                .contains("tlsMode=mutual")
                .contains("the TLS material cannot be used: /nonexistent/tls/tls.crt: no such file");
    }

    @Test
    void logsAsTextOrAsOneJsonObjectPerLine() throws Exception {
        String text = firstLogLines("text");
        String json = firstLogLines("json");

        assertThat(text)
                .contains(" INFO  [main] ")
                .contains("ExtenderApp - starting extender: labelKey=example.com/tier")
                .doesNotContain("{\"@timestamp\"");
        assertThat(json.lines().filter(line -> line.startsWith("{"))).anySatisfy(line -> assertThat(line)
                .contains("\"message\":\"starting extender: labelKey=example.com/tier")
                .contains("\"level\":\"INFO\"")
                .endsWith("}"));
    }

    /** Map.of takes at most ten pairs. */
    private static Map<String, String> environment(String... keyValue) {
        Map<String, String> env = new java.util.HashMap<>();
        for (int i = 0; i < keyValue.length; i += 2) {
            env.put(keyValue[i], keyValue[i + 1]);
        }
        return env;
    }
}
