package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.KubernetesBinaries;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Rejected;
import dev.schedulerops.e2e.support.SchedulerConfigAcceptance.Verdict;
import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.fuzz.GeneratedProfiles;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The profile fuzzer's other half: generated profiles (the operator's {@code GeneratedProfiles.plausible()}, the same
 * generator ProfileFuzzTest uses) that the operator accepts and renders must give a KubeSchedulerConfiguration the
 * real kube-scheduler binary accepts: otherwise the operator would roll out a crash-looping scheduler. Profiles the
 * operator refuses are skipped (ProfileFuzzTest checks their messages). Needs only the kube-scheduler binary of
 * {@code e2e/cluster build}, no cluster. {@code -Dfuzz.e2e.profiles=N} (default 40) sets how many; the sample is random
 * each run. With {@code -Dfuzz.report=FILE} (bench/fuzz) a Markdown section is appended to FILE.
 */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
class GeneratedProfilesAcceptedBySchedulerTest {
    private static final SchedulerConfigAcceptance ACCEPTANCE = SchedulerConfigAcceptance.usingBuiltBinaries();
    private static final ClusterFacts FACTS =
            ClusterFacts.forVersion(KubernetesBinaries.locate().kubernetesVersion());

    @Test
    void everyGeneratedProfileTheOperatorRendersIsAcceptedByTheRealScheduler() throws Exception {
        int wanted = Integer.getInteger("fuzz.e2e.profiles", 40);
        // jqwik's generators outside a property: a new seed each run, printed; -Dfuzz.seed=N draws the same again.
        GeneratedProfiles.Sample sample = GeneratedProfiles.seeded(GeneratedProfiles.plausible());
        java.util.Iterator<String> samples = sample.documents();
        List<String> rejected = new ArrayList<>();
        int checked = 0;
        int refusedByOperator = 0;
        long started = System.nanoTime();
        for (int drawn = 0; checked < wanted && drawn < wanted * 10; drawn++) {
            String yaml = samples.next();
            SchedulerProfile profile = ProfileYaml.readOne(yaml);
            RenderResult result = ProfileRenderer.render(profile, FACTS);
            if (!(result instanceof RenderResult.Valid valid)) {
                refusedByOperator++;
                continue;
            }
            String config = valid.state().schedulerConfigMap().getData().get(Names.CONFIG_FILE);
            Verdict verdict = ACCEPTANCE.check(config);
            checked++;
            if (verdict instanceof Rejected no) {
                rejected.add(no.message() + "\n--- profile:\n" + yaml + "--- config:\n" + config);
            }
        }

        report(checked, refusedByOperator, rejected.size(), (System.nanoTime() - started) / 1_000_000_000);
        assertThat(rejected)
                .as(
                        "rendered configs kube-scheduler refused (%d checked, %d refused by the operator first; %s)",
                        checked, refusedByOperator, sample.reproduce())
                .isEmpty();
        assertThat(checked).as("profiles the operator rendered").isEqualTo(wanted);
    }

    private static void report(int checked, int refusedByOperator, int rejected, long seconds) throws Exception {
        String section =
                "\n## rendered configs through the real kube-scheduler (GeneratedProfilesAcceptedBySchedulerTest)\n\n"
                        + "- kube-scheduler: v" + KubernetesBinaries.locate().kubernetesVersion()
                        + " (`e2e/cluster build`)\n"
                        + "- profiles rendered and checked: " + checked + "; refused by the operator first (not run): "
                        + refusedByOperator + "\n"
                        + "- configs the real kube-scheduler refused: " + rejected + " (must be 0)\n"
                        + "- seconds: " + seconds + "\n";
        System.out.println(section);
        String file = System.getProperty("fuzz.report", "");
        if (!file.isBlank()) {
            Files.writeString(Path.of(file), section, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }
}
