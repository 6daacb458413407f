package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.ExpectComment;
import dev.schedulerops.e2e.support.KubernetesBinaries;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Accepted;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Rejected;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Verdict;
import dev.schedulerops.e2e.support.SchedulerVersions;
import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.render.SchedulerConfigRenderer;
import dev.schedulerops.operator.validation.ProfileValidator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real kube-scheduler binary judges the configs the operator renders: every sample's is accepted, and for a
 * catalogue of profiles that pass the CRD schema, the operator's validator rejects exactly those the binary rejects.
 */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
class SchedulerConfigAcceptanceTest {
    private static final SchedulerConfigAcceptance ACCEPTANCE = SchedulerConfigAcceptance.usingBuiltBinaries();
    private static final ClusterFacts FACTS =
            ClusterFacts.forVersion(KubernetesBinaries.locate().kubernetesVersion());

    static Stream<Arguments> sampleProfiles() throws IOException {
        List<Arguments> profiles = new ArrayList<>();
        try (Stream<Path> files = Files.list(E2eSettings.repoRoot().resolve("samples"))) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (SchedulerProfile profile : ProfileYaml.readAll(file)) {
                    profiles.add(Arguments.of(
                            file.getFileName() + ": " + profile.getMetadata().getName(), profile));
                }
            }
        }
        return profiles.stream();
    }

    static List<ExpectComment> invalidProfiles() {
        return ExpectComment.allIn("invalid-profiles");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sampleProfiles")
    void everySampleRendersToAConfigTheRealSchedulerAccepts(String name, SchedulerProfile profile) {
        // Samples carry no namespace (kubectl apply -n ... gives them one); the API server would set it.
        profile.getMetadata().setNamespace("samples");
        assertThat(ProfileValidator.validate(profile, FACTS))
                .as("validator errors")
                .isEmpty();

        String config = SchedulerConfigRenderer.render(profile);
        List<String> flags = ResolvedProfile.of(profile).scheduler().extraFlags();
        Verdict verdict = ACCEPTANCE.check(config, flags);

        assertThat(verdict)
                .as("kube-scheduler's verdict on %s and\n%s", flags, config)
                .isInstanceOf(Accepted.class);
        assertThat(((Accepted) verdict).effectiveConfig())
                .contains("schedulerName: " + ResolvedProfile.of(profile).schedulerName());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidProfiles")
    void validatorRejectsExactlyWhatTheRealSchedulerRejects(ExpectComment testCase) throws IOException {
        SchedulerProfile profile = ProfileYaml.readOne(testCase.yaml());
        String config = SchedulerConfigRenderer.render(profile);
        String version = testCase.kubernetesVersion().orElse(null);
        SchedulerConfigAcceptance acceptance = version == null ? ACCEPTANCE : acceptanceOf(version);
        ClusterFacts facts = version == null ? FACTS : ClusterFacts.forVersion(version);

        Verdict verdict = acceptance.check(config);
        List<String> validatorErrors = ProfileValidator.validate(profile, facts);

        // First the catalogue itself: the binary says what the case records.
        if (testCase.expectsAccepted()) {
            assertThat(verdict).as("kube-scheduler's verdict on\n%s", config).isInstanceOf(Accepted.class);
        } else {
            assertThat(verdict).as("kube-scheduler's verdict on\n%s", config).isInstanceOf(Rejected.class);
            assertThat(((Rejected) verdict).message()).contains(testCase.expectedMessage());
        }
        // Then the validator agrees with the binary.
        assertThat(validatorErrors.isEmpty())
                .as("validator errors %s, kube-scheduler: %s", validatorErrors, describe(verdict))
                .isEqualTo(verdict.accepted());
    }

    private static final Map<String, SchedulerConfigAcceptance> BY_VERSION = new ConcurrentHashMap<>();

    /** The acceptance check of a release a case names (# kubernetes: ...), one per release. */
    private static SchedulerConfigAcceptance acceptanceOf(String version) {
        return BY_VERSION.computeIfAbsent(version, v -> {
            SchedulerVersions.Release release =
                    SchedulerVersions.built(List.of(v)).get(0);
            return new SchedulerConfigAcceptance(
                    release.kubeScheduler(), E2eSettings.targetDir().resolve("scheduler-acceptance-" + v));
        });
    }

    @Test
    void catalogueHoldsBothRejectedAndAcceptedCases() {
        assertThat(invalidProfiles()).filteredOn(ExpectComment::expectsAccepted).hasSizeGreaterThanOrEqualTo(2);
        assertThat(invalidProfiles()).filteredOn(c -> !c.expectsAccepted()).hasSizeGreaterThanOrEqualTo(6);
    }

    private static String describe(Verdict verdict) {
        return verdict instanceof Rejected rejected ? "rejected: " + rejected.message() : "accepted";
    }
}
