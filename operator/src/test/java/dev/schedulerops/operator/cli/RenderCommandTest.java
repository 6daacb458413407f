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
    void theImagesGivenAreTheExtendersAndTheInitContainers() throws Exception {
        Run run = run(
                "render",
                "-f",
                "../samples/label-priority.yaml",
                "--extender-image",
                "mirror.example.com/schedulerops/extender:1.2.3",
                "--operator-image",
                "mirror.example.com/schedulerops/operator:1.2.3");
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> deployments = documents(run.out()).stream()
                .filter(d -> d.path("kind").asText().equals("Deployment"))
                .toList();
        JsonNode extender = deployments.stream()
                .filter(d -> d.at("/metadata/name").asText().endsWith("-extender"))
                .findFirst()
                .orElseThrow();
        JsonNode scheduler = deployments.stream()
                .filter(d -> d.at("/metadata/name").asText().endsWith("-scheduler"))
                .findFirst()
                .orElseThrow();
        assertThat(extender.at("/spec/template/spec/containers/0/image").asText())
                .isEqualTo("mirror.example.com/schedulerops/extender:1.2.3");
        assertThat(scheduler.at("/spec/template/spec/initContainers/0/name").asText())
                .isEqualTo("await-extender");
        assertThat(scheduler.at("/spec/template/spec/initContainers/0/image").asText())
                .isEqualTo("mirror.example.com/schedulerops/operator:1.2.3");
        assertThat(run.out()).doesNotContain("ghcr.io/");
    }

    @Test
    void theApiServerGivenIsTheExtendersOnlyEgress() throws Exception {
        Run run = run(
                "render",
                "-f",
                "../samples/label-priority.yaml",
                "--api-server",
                "192.0.2.10:6443",
                "--api-server",
                "[2001:db8::10]:443");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode policy = documents(run.out()).stream()
                .filter(d -> d.path("kind").asText().equals("NetworkPolicy"))
                .findFirst()
                .orElseThrow();
        assertThat(policy.at("/spec/policyTypes").toString()).isEqualTo("[\"Ingress\",\"Egress\"]");
        assertThat(policy.at("/spec/egress/0/to/0/ipBlock/cidr").asText()).isEqualTo("192.0.2.10/32");
        assertThat(policy.at("/spec/egress/0/ports/0/port").asInt()).isEqualTo(6443);
        assertThat(policy.at("/spec/egress/1/to/0/ipBlock/cidr").asText()).isEqualTo("2001:db8::10/128");

        Run bad = run("render", "-f", "../samples/label-priority.yaml", "--api-server", "192.0.2.10");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--api-server: an API server endpoint is ADDRESS:PORT");
    }

    @Test
    void rendersEveryProfileOfAFile() throws Exception {
        Path file = tmp.resolve("two.yaml");
        Files.writeString(
                file,
                """
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata: {name: one, namespace: a}
                spec: {labelKey: k}
                ---
                apiVersion: schedulerops.dev/v1beta1
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
        // Profiles are cluster-scoped: a namespace in the file is ignored, the objects go to the workload namespace.
        assertThat(documents(run.out()))
                .filteredOn(d -> d.path("kind").asText().equals("Deployment"))
                .extracting(d -> d.path("metadata").path("namespace").asText())
                .containsOnly("schedulerops-system");
    }

    @Test
    void theWorkloadNamespaceAndTheImagePolicyAreTheInstallationsAsFlags() throws Exception {
        Path file = tmp.resolve("images.yaml");
        Files.writeString(
                file,
                """
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata: {name: img}
                spec:
                  labelKey: k
                  scheduler: {image: "mirror.example.com/k8s/kube-scheduler@sha256:%s"}
                """
                        .formatted("0".repeat(64)));
        Run refused = run("render", "-f", file.toString());
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err())
                .contains("SchedulerProfile img: spec.scheduler.image: Forbidden")
                .contains("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES");

        Run allowed = run(
                "render", "-f", file.toString(), "-n", "ops", "--allowed-image-repositories=mirror.example.com/k8s/");
        assertThat(allowed.exitCode()).as(allowed.err()).isZero();
        assertThat(documents(allowed.out()))
                .filteredOn(d -> d.path("kind").asText().equals("Deployment"))
                .extracting(d -> d.path("metadata").path("namespace").asText())
                .containsOnly("ops");
    }

    @Test
    void anInvalidProfilePrintsEveryProblemAndNoObjects() throws Exception {
        Path file = tmp.resolve("bad.yaml");
        Files.writeString(
                file,
                """
                apiVersion: schedulerops.dev/v1beta1
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
                .contains("SchedulerProfile bad: spec.weight: Invalid value: 0")
                .contains("SchedulerProfile bad: spec.verbs: Invalid value: Filter and FilterOnlyOne");
    }

    @Test
    void aTypoInAFieldNameIsReported() throws Exception {
        Path file = tmp.resolve("typo.yaml");
        Files.writeString(
                file,
                "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata: {name: t}\n"
                        + "spec: {lableKey: k}\n");
        Run run = run("render", "-f", file.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("unknown field \"spec.lableKey\"");
    }

    /** Found by ProfileFuzzTest: Jackson's messages named Java types and echoed any value in full. */
    @Test
    void wrongTypesAndHugeValuesAreReportedInTheAuthorsTerms() throws Exception {
        Path file = tmp.resolve("types.yaml");
        Files.writeString(
                file,
                """
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata: {name: a}
                spec: {labelKey: k, weight: NaN}
                ---
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata: {name: b}
                spec: {labelKey: k, verbs: [Nope]}
                ---
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata: {name: c}
                spec: {labelKey: k, verbs: {a: 1}}
                """);
        Run run = run("render", "-f", file.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err())
                .contains("field \"spec.weight\": must be an integer, found \"NaN\"")
                .contains("field \"spec.verbs[0]\": must be one of Filter, FilterOnlyOne, Prioritize, Bind, Preempt,"
                        + " found \"Nope\"")
                .contains("field \"spec.verbs\": must be a list, found object")
                .doesNotContain("java.", "Cannot deserialize");

        Files.writeString(
                file,
                "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata: {name: d}\n"
                        + "spec: {labelKey: " + "a".repeat(10_000) + "}\n");
        Run huge = run("render", "-f", file.toString());
        assertThat(huge.exitCode()).isEqualTo(1);
        assertThat(huge.err())
                .contains("spec.labelKey: Invalid value: \"aaaa")
                .contains("... (10002 characters): must be a qualified label key")
                .hasSizeLessThan(1000);
    }

    /** Found by ProfileFuzzTest: an empty list item or args that are not an object made render throw. */
    @Test
    void emptyListItemsAreReportedNotAnException() throws Exception {
        Path file = tmp.resolve("nulls.yaml");
        Files.writeString(
                file,
                """
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata: {name: n, namespace: a}
                spec:
                  labelKey: k
                  pluginConfig: [null]
                  plugins: {score: {enabled: [{name: ImageLocality}, null]}}
                  extender: {managedResources: [null]}
                ---
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata: {name: m, namespace: a}
                spec:
                  labelKey: k
                  pluginConfig: [{name: InterPodAffinity, args: hardPod}]
                """);
        Run run = run("render", "-f", file.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err())
                .contains("spec.pluginConfig[0]: Required value")
                .contains("spec.plugins.score.enabled[1]: Required value")
                .contains("spec.extender.managedResources[0]: Required value")
                .contains("spec.pluginConfig[0].args: Invalid value: \"\\\"hardPod\\\"\": must be an object")
                .doesNotContain("Exception");
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
        assertThat(run.err()).contains("expected apiVersion schedulerops.dev/v1beta1 and kind SchedulerProfile");
    }

    @Test
    void aMissingOptionIsAUsageError() {
        Run run = run("render");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Missing required option: '--filename=FILE'");
    }
}
