package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a GitOps user does with `render`: the operator jar renders each sample, and kubectl accepts the stream
 * against the real API server's schema, client-side (strict field validation) and server-side (admission included).
 */
@ExtendWith(ClusterExtension.class)
class RenderedSamplesKubectlTest {

    static Stream<Path> samples() throws IOException {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("schedulerops.repoRoot"), "samples"))) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void renderedSampleIsAcceptedByKubectl(Path sample, Cluster cluster) throws Exception {
        Path repo = cluster.repoRoot();
        Run render = run(
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-jar",
                        repo.resolve("operator/target/schedulerops-operator.jar")
                                .toString(),
                        "render",
                        "-f",
                        sample.toString(),
                        "--kube-version",
                        cluster.kubernetesVersion()),
                null,
                cluster);
        assertThat(render.exitCode()).as(render.err()).isZero();
        assertThat(render.out()).contains("kind: Deployment");

        for (String dryRun : List.of("client", "server")) {
            Run apply = run(
                    List.of("kubectl", "apply", "--dry-run=" + dryRun, "--validate=strict", "-f", "-"),
                    render.out(),
                    cluster);
            assertThat(apply.exitCode())
                    .as("kubectl apply --dry-run=%s:\n%s", dryRun, apply.err())
                    .isZero();
            assertThat(apply.out()).contains("deployment.apps/").contains("configmap/");
        }
    }

    record Run(int exitCode, String out, String err) {}

    static Run run(List<String> command, String stdin, Cluster cluster) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("KUBECONFIG", cluster.kubeconfig().toString());
        Path out = Files.createTempFile("render", ".out");
        Path err = Files.createTempFile("render", ".err");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        try (var in = process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        Run run = new Run(process.exitValue(), Files.readString(out), Files.readString(err));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        return run;
    }
}
