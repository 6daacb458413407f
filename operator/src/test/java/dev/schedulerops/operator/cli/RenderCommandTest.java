package dev.schedulerops.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.operator.Main;
import dev.schedulerops.operator.render.Yaml;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class RenderCommandTest {
    @TempDir
    Path tmp;

    record Run(int exitCode, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static List<JsonNode> documents(String yaml) throws Exception {
        try (var it = Yaml.MAPPER.readerFor(JsonNode.class).readValues(yaml)) {
            return it.readAll().stream()
                    .map(JsonNode.class::cast)
                    .filter(n -> !n.isEmpty())
                    .toList();
        }
    }

    @Test
    void rendersASampleAsAYamlStream() throws Exception {
        Run run = run("render", "-f", "../samples/label-priority.yaml", "--kube-version", "1.33.5");
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> docs = documents(run.out());
        assertThat(docs).extracting(d -> d.path("kind").asText()).contains("ConfigMap", "Deployment", "Service");
        assertThat(run.out()).contains("image: registry.k8s.io/kube-scheduler:v1.33.5");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void rendersEveryProfileOfAFile() throws Exception {
        Path file = tmp.resolve("two.yaml");
        Files.writeString(
                file,
                """
                apiVersion: schedulerops.dev/v1alpha1
                kind: SchedulerProfile
                metadata: {name: one, namespace: a}
                spec: {labelKey: k}
                ---
                apiVersion: schedulerops.dev/v1alpha1
                kind: SchedulerProfile
                metadata: {name: two, namespace: b}
                spec: {labelKey: k}
                """);
        Run run = run("render", "-f", file.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(documents(run.out()))
                .filteredOn(d -> d.path("kind").asText().equals("Deployment"))
                .extracting(d -> d.path("metadata").path("name").asText())
                .containsExactly("one-extender", "one-scheduler", "two-extender", "two-scheduler");
    }

    @Test
    void anInvalidProfilePrintsEveryProblemAndNoObjects() throws Exception {
        Path file = tmp.resolve("bad.yaml");
        Files.writeString(
                file,
                """
                apiVersion: schedulerops.dev/v1alpha1
                kind: SchedulerProfile
                metadata: {name: bad, namespace: a}
                spec:
                  labelKey: k
                  verbs: [Filter, FilterOnlyOne]
                  weight: 0
                """);
        Run run = run("render", "-f", file.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.err())
                .contains("SchedulerProfile a/bad: spec.weight: Invalid value: 0")
                .contains("SchedulerProfile a/bad: spec.verbs: Invalid value: Filter and FilterOnlyOne");
    }

    @Test
    void aTypoInAFieldNameIsReported() throws Exception {
        Path file = tmp.resolve("typo.yaml");
        Files.writeString(
                file,
                "apiVersion: schedulerops.dev/v1alpha1\nkind: SchedulerProfile\nmetadata: {name: t}\n"
                        + "spec: {lableKey: k}\n");
        Run run = run("render", "-f", file.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("unknown field \"spec.lableKey\"");
    }

    @Test
    void anUnreadableFileIsReported() {
        Run run = run("render", "-f", tmp.resolve("missing.yaml").toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("missing.yaml").contains("cannot read");
    }

    @Test
    void notYamlIsReported() throws Exception {
        Path file = tmp.resolve("broken.yaml");
        Files.writeString(file, "spec: [unclosed\n");
        Run run = run("render", "-f", file.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("not valid YAML");
    }

    @Test
    void anotherKindIsReported() throws Exception {
        Path file = tmp.resolve("cm.yaml");
        Files.writeString(file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
        Run run = run("render", "-f", file.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("expected apiVersion schedulerops.dev/v1alpha1 and kind SchedulerProfile");
    }

    @Test
    void aMissingOptionIsAUsageError() {
        Run run = run("render");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Missing required option: '--filename=FILE'");
    }
}
