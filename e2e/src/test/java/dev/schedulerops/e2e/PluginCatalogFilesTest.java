package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.PluginCatalogSources;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Accepted;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Verdict;
import dev.schedulerops.e2e.support.SchedulerVersions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator's plugin catalogues are generated from each supported release's Kubernetes sources (and the defaults
 * its kube-scheduler writes), committed, and checked here on every run against those sources. {@code
 * -Dcatalogue.update=true} rewrites them: review the diff, a plugin or extension point that changes is a rule that
 * changes for every profile on that version.
 */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
class PluginCatalogFilesTest {
    private static final boolean UPDATE = Boolean.getBoolean("catalogue.update");
    private static final String EMPTY_PROFILE =
            """
            apiVersion: kubescheduler.config.k8s.io/v1
            kind: KubeSchedulerConfiguration
            leaderElection:
              leaderElect: false
            profiles:
            - schedulerName: catalogue
            """;

    static Stream<SchedulerVersions.Release> releases() {
        return SchedulerVersions.built().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("releases")
    void theCommittedCatalogueIsWhatTheSourcesSay(SchedulerVersions.Release release) throws Exception {
        Path sources = release.kubernetesSources();
        Path kubeSchedulerModule =
                sources.resolveSibling("kube-scheduler@v0." + release.version().substring(2));
        assertThat(sources.resolve("pkg/scheduler/framework/plugins"))
                .as("the Kubernetes sources of %s (e2e/cluster build-schedulers downloads them)", release)
                .isDirectory();
        assertThat(kubeSchedulerModule.resolve("config/v1"))
                .as("k8s.io/kube-scheduler of %s (e2e/cluster build-schedulers downloads it)", release)
                .isDirectory();
        Verdict defaults = new SchedulerConfigAcceptance(
                        release.kubeScheduler(), E2eSettings.targetDir().resolve("plugin-catalogue-" + release))
                .check(EMPTY_PROFILE);
        assertThat(defaults)
                .as("kube-scheduler %s on an empty profile", release)
                .isInstanceOf(Accepted.class);

        String generated = PluginCatalogSources.read(
                        sources, kubeSchedulerModule, ((Accepted) defaults).effectiveConfig())
                .text(release.toString());
        Path committed = E2eSettings.repoRoot()
                .resolve("operator/src/main/resources/kube-scheduler/plugins-" + release.minor() + ".txt");
        if (UPDATE) {
            Files.writeString(committed, generated, StandardCharsets.UTF_8);
        }
        assertThat(committed)
                .as(
                        "%s is generated from the %s sources; generate: %s",
                        committed, release, PluginCatalogSources.REGENERATE)
                .exists();
        assertThat(Files.readString(committed, StandardCharsets.UTF_8))
                .as(
                        "%s drifted from the %s sources; regenerate: %s",
                        committed, release, PluginCatalogSources.REGENERATE)
                .isEqualTo(generated);
    }
}
