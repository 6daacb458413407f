package dev.schedulerops.extender;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
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
                .contains("--shutdown-grace", "SCHEDULEROPS_SHUTDOWN_GRACE");
    }

    @Test
    void unknownOptionPrintsUsageAndFails() {
        Run run = run("--label-key", "a", "--bogus");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Unknown option: '--bogus'").contains("Usage:");
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
    void labelKeyValidationAcceptsQualifiedNames() {
        assertThat(ExtenderConfig.labelKeyProblem("priority.lixueduan.com")).isNull();
        assertThat(ExtenderConfig.labelKeyProblem("example.com/tier_1.x")).isNull();
        assertThat(ExtenderConfig.labelKeyProblem("a".repeat(64))).isNotNull();
        assertThat(ExtenderConfig.labelKeyProblem("-a")).isNotNull();
        assertThat(ExtenderConfig.labelKeyProblem(null)).contains("required");
    }

    @Test
    void readsSettingsFromTheEnvironment() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        ProcessBuilder builder = new ProcessBuilder(
                        java, "-cp", System.getProperty("java.class.path"), Main.class.getName())
                .redirectErrorStream(true);
        builder.environment().put("SCHEDULEROPS_LABEL_KEY", "from.env/ok");
        builder.environment().put("SCHEDULEROPS_PORT", "99999");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isEqualTo(2);
        assertThat(output).contains("port must be between 0 and 65535, got 99999");
    }
}
