package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.E2eSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    static Stream<Path> samples() throws IOException {
        try (Stream<Path> files = Files.list(E2eSettings.repoRoot().resolve("samples"))) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
        }
    }

    /** The workload namespace the rendered objects go into (the server-side dry run needs it to exist). */
    private static String workloadNamespace;

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void renderedSampleIsAcceptedByKubectl(Path sample, Cluster cluster) {
        synchronized (RenderedSamplesKubectlTest.class) {
            if (workloadNamespace == null) {
                workloadNamespace =
                        cluster.createNamespace("rendered").getMetadata().getName();
            }
        }
        Map<String, String> env = Map.of("KUBECONFIG", cluster.kubeconfig().toString());
        Commands.Result render = Commands.run(
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-jar",
                        E2eSettings.operatorJar().toString(),
                        "render",
                        "-f",
                        sample.toString(),
                        "--kube-version",
                        cluster.kubernetesVersion(),
                        "--workload-namespace",
                        workloadNamespace),
                null,
                env,
                TIMEOUT);
        assertThat(render.exitCode()).as(render.stderr()).isZero();
        assertThat(render.stdout()).contains("kind: Deployment");

        for (String dryRun : List.of("client", "server")) {
            Commands.Result apply = Commands.run(
                    List.of(Commands.kubectl(), "apply", "--dry-run=" + dryRun, "--validate=strict", "-f", "-"),
                    render.stdout(),
                    env,
                    TIMEOUT);
            assertThat(apply.exitCode())
                    .as("kubectl apply --dry-run=%s:\n%s", dryRun, apply.stderr())
                    .isZero();
            assertThat(apply.stdout()).contains("deployment.apps/").contains("configmap/");
        }
    }
}
