package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance;
import dev.schedulerops.e2e.support.SchedulerVersions;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileSpec;
import dev.schedulerops.operator.api.SchedulerSpec;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.render.SchedulerConfigRenderer;
import dev.schedulerops.operator.validation.KubernetesVersion;
import dev.schedulerops.operator.validation.ProfileValidator;
import dev.schedulerops.operator.validation.SchedulerFlagCatalog;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * spec.scheduler.featureGates and extraArgs: for every supported kube-scheduler, the operator's verdict on a seeded set
 * of gate and flag combinations is the real binary's verdict. Refusals that are the operator's policy (flags it owns,
 * flags naming files, flags --config makes kube-scheduler ignore, string flags it cannot check, GA gates) are not asked
 * of the binary, which would accept them; every other verdict must agree, case by case.
 */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
class SchedulerFlagsAgreementTest {
    private static final long SEED = Long.getLong("flags.seed", 20261123L);

    static Stream<SchedulerVersions.Release> releases() {
        return SchedulerVersions.built().stream();
    }

    record Case(String why, Map<String, Boolean> gates, Map<String, String> args) {}

    @ParameterizedTest(name = "{0}")
    @MethodSource("releases")
    void theOperatorRefusesExactlyTheGatesAndFlagsTheRealSchedulerRefuses(SchedulerVersions.Release release) {
        KubernetesVersion version = KubernetesVersion.parse(release.version());
        SchedulerFlagCatalog catalog = SchedulerFlagCatalog.forVersion(version)
                .orElseThrow(() -> new AssertionError("no flag catalogue for " + release + ": generate it with "
                        + dev.schedulerops.e2e.support.SchedulerHelp.REGENERATE));
        ClusterFacts facts = ClusterFacts.forVersion(release.version());
        SchedulerConfigAcceptance acceptance = new SchedulerConfigAcceptance(
                release.kubeScheduler(), E2eSettings.targetDir().resolve("flags-agreement-" + release.version()));
        Random random = new Random(SEED ^ release.version().hashCode());

        List<Case> cases = cases(catalog, facts, random);
        int asked = 0;
        int policy = 0;
        List<String> disagreements = new ArrayList<>();
        for (Case c : cases) {
            SchedulerProfile profile = profile(c);
            List<String> errors = ProfileValidator.validate(profile, facts);
            if (!errors.isEmpty() && errors.stream().allMatch(SchedulerFlagsAgreementTest::isPolicy)) {
                policy++;
                continue;
            }
            asked++;
            var verdict = acceptance.check(
                    SchedulerConfigRenderer.render(profile),
                    ResolvedProfile.of(profile).scheduler().extraFlags());
            if (verdict.accepted() != errors.isEmpty()) {
                disagreements.add(c.why() + ": operator " + (errors.isEmpty() ? "accepts" : "refuses " + errors)
                        + ", kube-scheduler " + release + " "
                        + (verdict.accepted()
                                ? "accepts"
                                : "refuses: " + ((SchedulerConfigAcceptance.Rejected) verdict).message()));
            }
        }
        System.out.printf(
                "[flags-agreement] %s seed %d: %d cases, %d judged by the binary, %d operator policy refusals,"
                        + " %d disagreements%n",
                release, SEED, cases.size(), asked, policy, disagreements.size());
        assertThat(disagreements)
                .as("disagreements with kube-scheduler %s", release)
                .isEmpty();
        assertThat(asked).isGreaterThan(cases.size() / 2);
    }

    /** The operator's deliberate refusals of flags kube-scheduler would take (README, "The scheduler's own flags"). */
    private static boolean isPolicy(String error) {
        return error.contains("the operator does not pass --")
                || error.contains("names a file in the container")
                || error.contains("when it is given --config")
                || error.contains("the operator cannot check a value");
    }

    /** Every gate and every passable flag with good values at once, then single bad ones and random mixes. */
    private static List<Case> cases(SchedulerFlagCatalog catalog, ClusterFacts facts, Random random) {
        List<Case> cases = new ArrayList<>();
        Map<String, Boolean> allGates = new LinkedHashMap<>();
        catalog.gates().keySet().stream()
                .filter(g -> !g.startsWith("All"))
                .forEach(g -> allGates.put(g, random.nextBoolean()));
        // At most 64 gates a profile (the CRD's limit): three random samples of 64 cover most of them.
        List<String> shuffled = new ArrayList<>(allGates.keySet());
        for (int sample = 0; sample < 3; sample++) {
            java.util.Collections.shuffle(shuffled, random);
            Map<String, Boolean> gates = new LinkedHashMap<>();
            shuffled.stream().limit(64).forEach(g -> gates.put(g, allGates.get(g)));
            cases.add(new Case("64 random alpha and beta gates, random values, sample " + sample, gates, Map.of()));
        }
        Map<String, String> goodArgs = new LinkedHashMap<>();
        catalog.flags().values().forEach(flag -> goodValue(flag.name(), flag.type(), random)
                .ifPresent(v -> goodArgs.put(flag.name(), v)));
        // Keep only what the operator passes; the rest is policy and asked below one by one.
        goodArgs.keySet().removeIf(name -> !passes(Map.of(), Map.of(name, goodArgs.get(name)), facts));
        cases.add(new Case("every passable flag with a good value " + goodArgs.keySet(), Map.of(), goodArgs));
        cases.add(new Case("AllAlpha and AllBeta on", Map.of("AllAlpha", true, "AllBeta", true), Map.of()));
        for (int i = 0; i < 6; i++) {
            Map<String, Boolean> gates = new LinkedHashMap<>();
            Map<String, String> args = new LinkedHashMap<>();
            allGates.keySet().stream()
                    .filter(g -> random.nextInt(8) == 0)
                    .forEach(g -> gates.put(g, random.nextBoolean()));
            goodArgs.forEach((k, v) -> {
                if (random.nextInt(3) == 0) {
                    args.put(k, v);
                }
            });
            cases.add(new Case("random good mix " + i, gates, args));
        }
        for (var flag : catalog.flags().values()) {
            if (flag.gate().isPresent() && catalog.gate(flag.gate().get()).isPresent()) {
                goodValue(flag.name(), flag.type(), random).ifPresent(v -> {
                    cases.add(new Case(
                            "--" + flag.name() + " with its gate " + flag.gate().get() + " on",
                            Map.of(flag.gate().get(), true),
                            Map.of(flag.name(), v)));
                    cases.add(new Case(
                            "--" + flag.name() + " with its gate " + flag.gate().get() + " off",
                            Map.of(flag.gate().get(), false),
                            Map.of(flag.name(), v)));
                });
            }
        }
        List<String> gateNames = new ArrayList<>(allGates.keySet());
        String someGate = gateNames.get(random.nextInt(gateNames.size()));
        cases.add(new Case("unknown gate", Map.of(someGate + "Extra", true), Map.of()));
        cases.add(new Case("gate in lower case", Map.of(someGate.toLowerCase(java.util.Locale.ROOT), true), Map.of()));
        cases.add(new Case("unknown flag", Map.of(), Map.of("schedule-harder", "true")));
        for (var flag : catalog.flags().values()) {
            badValue(flag.type(), random)
                    .ifPresent(v -> cases.add(new Case(
                            "--" + flag.name() + " (" + flag.type() + ") = " + v, Map.of(), Map.of(flag.name(), v))));
        }
        for (String name : List.of("tls-min-version", "logging-format", "vmodule")) {
            if (catalog.flag(name).isPresent()) {
                cases.add(new Case("--" + name + " with a bad value", Map.of(), Map.of(name, "Bogus")));
            }
        }
        return cases;
    }

    private static boolean passes(Map<String, Boolean> gates, Map<String, String> args, ClusterFacts facts) {
        return ProfileValidator.validate(profile(new Case("", gates, args)), facts)
                .isEmpty();
    }

    private static java.util.Optional<String> goodValue(String name, String type, Random random) {
        return java.util.Optional.ofNullable(
                switch (name) {
                    case "tls-min-version" -> "VersionTLS1" + (2 + random.nextInt(2));
                    case "logging-format" -> "text";
                    case "vmodule" -> "schedule_one=" + random.nextInt(6);
                    case "disabled-metrics" -> "scheduler_pending_pods";
                    default -> switch (type) {
                        case "bool" -> random.nextBoolean() ? "true" : "false";
                        case "int", "int32", "int64" -> Integer.toString(random.nextInt(1000));
                        case "float32", "float64" -> random.nextInt(200) + ".5";
                        case "duration" -> (1 + random.nextInt(59)) + "s";
                        case "strings" -> "x-remote-" + random.nextInt(10);
                        default -> null;
                    };
                });
    }

    private static java.util.Optional<String> badValue(String type, Random random) {
        return java.util.Optional.ofNullable(
                switch (type) {
                    case "bool" -> "yes";
                    case "int", "int32", "int64" -> random.nextBoolean() ? "12abc" : "1.5";
                    case "float32", "float64" -> "fast";
                    case "duration" -> random.nextBoolean() ? "10" : "1 hour";
                    default -> null;
                });
    }

    private static SchedulerProfile profile(Case c) {
        SchedulerProfile profile = new SchedulerProfile();
        profile.setMetadata(new ObjectMetaBuilder()
                .withName("flags")
                .withNamespace("agreement")
                .build());
        SchedulerProfileSpec spec = new SchedulerProfileSpec();
        spec.setLabelKey("example.com/tier");
        SchedulerSpec scheduler = new SchedulerSpec();
        scheduler.setFeatureGates(c.gates().isEmpty() ? null : c.gates());
        scheduler.setExtraArgs(c.args().isEmpty() ? null : c.args());
        spec.setScheduler(scheduler);
        profile.setSpec(spec);
        return profile;
    }
}
