package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Rejected;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Verdict;
import dev.schedulerops.e2e.support.SchedulerVersions;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.fuzz.ConfigCorpus;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.render.SchedulerConfigRenderer;
import dev.schedulerops.operator.validation.ProfileValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The validator's bar (issue 13): for every supported kube-scheduler, the operator's verdict on each config of a
 * generated corpus ({@link ConfigCorpus}: plugin sets at every extension point, every args kind with in-range,
 * boundary and out-of-range values, extender settings, leader election, about half invalid by construction) is the
 * real binary's verdict, case by case. The binary judges each rendered config as it would at start-up
 * ({@link SchedulerConfigAcceptance}: decode, default, validate, build every profile's framework and the extenders).
 *
 * <p>{@code -Dagreement.cases=N} per version (default 300, the fast subset of {@code ./test}; {@code
 * bench/validator-agreement} runs 1000 with a new seed), {@code -Dagreement.seed=S} (default fixed, so CI is
 * reproducible), {@code -Dagreement.report=FILE} appends a Markdown row per version (each disagreement
 * to FILE.disagreements),
 * {@code -Dagreement.versions=1.30.14,1.33.13} limits the run to those releases.
 */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
class ValidatorAgreementTest {
    private static final long SEED = Long.getLong("agreement.seed", 13L);
    private static final int CASES = Integer.getInteger("agreement.cases", 300);

    /** Every supported release, or those of {@code -Dagreement.versions=1.30.14,1.33.13} (to look into one). */
    static Stream<SchedulerVersions.Release> releases() {
        List<String> only = Stream.of(
                        System.getProperty("agreement.versions", "").split(","))
                .filter(v -> !v.isBlank())
                .toList();
        return (only.isEmpty() ? SchedulerVersions.built() : SchedulerVersions.built(only)).stream();
    }

    /** One case judged twice: {@code operatorErrors} empty means the operator would roll it out. */
    record Judged(ConfigCorpus.Case corpusCase, List<String> operatorErrors, Verdict scheduler) {
        boolean agree() {
            return operatorErrors.isEmpty() == scheduler.accepted();
        }

        String describe() {
            return "case " + corpusCase.index() + " (" + String.join("; ", corpusCase.moves()) + ")\n  operator: "
                    + (operatorErrors.isEmpty() ? "accepts" : "refuses " + operatorErrors) + "\n  kube-scheduler: "
                    + (scheduler.accepted() ? "accepts" : "refuses: " + ((Rejected) scheduler).message())
                    + "\n--- profile:\n" + corpusCase.yaml();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("releases")
    void theOperatorAndTheRealSchedulerGiveTheSameVerdictOnEveryGeneratedConfig(SchedulerVersions.Release release)
            throws Exception {
        ConfigCorpus corpus = new ConfigCorpus(release.version(), SEED);
        ClusterFacts facts = ClusterFacts.forVersion(release.version());
        // The corpus passes no serving flags (SchedulerFlagsAgreementTest covers them), so the serving check is
        // skipped.
        SchedulerConfigAcceptance acceptance = SchedulerConfigAcceptance.configOnly(
                release.kubeScheduler(), E2eSettings.targetDir().resolve("validator-agreement-" + release.version()));

        long started = System.nanoTime();
        List<Judged> judged = judgeAll(corpus, facts, acceptance);
        long seconds = (System.nanoTime() - started) / 1_000_000_000;

        List<Judged> disagreements = judged.stream().filter(j -> !j.agree()).toList();
        report(release, judged, disagreements, seconds);
        assertThat(disagreements.stream().map(Judged::describe).toList())
                .as(
                        "cases where the operator and kube-scheduler %s disagree (seed %d; rerun one with"
                                + " -Dagreement.seed=%d)",
                        release, SEED, SEED)
                .isEmpty();
        // The corpus must exercise both verdicts, or agreement says little.
        assertThat(judged.stream().filter(j -> j.scheduler().accepted()).count())
                .as("configs kube-scheduler accepted")
                .isGreaterThan(CASES / 4);
        assertThat(judged.stream().filter(j -> !j.scheduler().accepted()).count())
                .as("configs kube-scheduler refused")
                .isGreaterThan(CASES / 4);
    }

    /** The binary runs are the cost: as many at once as there are cores. */
    private static List<Judged> judgeAll(ConfigCorpus corpus, ClusterFacts facts, SchedulerConfigAcceptance acceptance)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
        try {
            List<Future<Judged>> futures = new ArrayList<>();
            for (ConfigCorpus.Case c : corpus.first(CASES)) {
                futures.add(pool.submit(() -> judge(c, facts, acceptance)));
            }
            List<Judged> judged = new ArrayList<>();
            for (Future<Judged> f : futures) {
                judged.add(f.get());
            }
            return judged;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The operator's verdict is its whole validation (fields, then plugins and args for this version); the binary is
     * given the config the operator renders for the same profile, valid or not, with the scheduler's flags.
     */
    private static Judged judge(ConfigCorpus.Case c, ClusterFacts facts, SchedulerConfigAcceptance acceptance) {
        SchedulerProfile profile = c.profile();
        List<String> errors = ProfileValidator.validate(profile, facts);
        ResolvedProfile resolved = ResolvedProfile.of(profile);
        Verdict verdict = acceptance.check(
                SchedulerConfigRenderer.render(resolved), resolved.scheduler().extraFlags());
        return new Judged(c, errors, verdict);
    }

    private static void report(
            SchedulerVersions.Release release, List<Judged> judged, List<Judged> disagreements, long seconds)
            throws Exception {
        long meantValid =
                judged.stream().filter(j -> j.corpusCase().meantValid()).count();
        long schedulerAccepted =
                judged.stream().filter(j -> j.scheduler().accepted()).count();
        long operatorAccepted =
                judged.stream().filter(j -> j.operatorErrors().isEmpty()).count();
        long meantButRefused = judged.stream()
                .filter(j -> j.corpusCase().meantValid() != j.scheduler().accepted())
                .count();
        double agreement = 100.0 * (judged.size() - disagreements.size()) / judged.size();
        String line = String.format(
                "| %s | %d | %d | %d / %d | %d / %d | %d | %d | **%.2f%%** | %d |",
                release,
                SEED,
                judged.size(),
                meantValid,
                judged.size() - meantValid,
                schedulerAccepted,
                judged.size() - schedulerAccepted,
                operatorAccepted,
                meantButRefused,
                agreement,
                seconds);
        System.out.println("[validator-agreement] " + line);
        // Breaks another draw undid (e.g. no bind plugin after a minimal multiPoint that enables DefaultBinder):
        // shown so the corpus's intentions can be read, not counted against anyone.
        Map<String, Long> undone = judged.stream()
                .filter(j -> !j.corpusCase().meantValid() && j.scheduler().accepted())
                .flatMap(j -> j.corpusCase().moves().stream().filter(m -> m.startsWith("BREAK")))
                .map(m -> m.replaceAll(" (at|for|of) .*| [A-Z][A-Za-z]+ at .*", ""))
                .collect(Collectors.groupingBy(m -> m, TreeMap::new, Collectors.counting()));
        System.out.println("[validator-agreement] " + release + " breaks the scheduler accepted: " + undone);
        disagreements.forEach(d -> System.out.println("[validator-agreement] DISAGREEMENT " + d.describe()));
        String file = System.getProperty("agreement.report", "");
        if (!file.isBlank()) {
            // Rows go into the report's table; disagreements beside it, for the script to append after the table.
            Files.writeString(Path.of(file), line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            StringBuilder details = new StringBuilder();
            disagreements.forEach(d -> details.append("\n### ")
                    .append(release)
                    .append("\n\n```\n")
                    .append(d.describe())
                    .append("```\n"));
            Files.writeString(
                    Path.of(file + ".disagreements"),
                    details.toString(),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
    }
}
