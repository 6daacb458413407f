package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.SchedulerVersions;
import dev.schedulerops.operator.preview.SchedulerLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A preview reads the scores from its sandbox kube-scheduler's log, at level 10 for schedule_one.go only: every
 * supported release must log the messages it reads ({@link SchedulerLog#MESSAGES}) from that file, or its receipts and
 * ties would be empty. Read from each release's Kubernetes sources in the Go module cache.
 */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
class SchedulerLogSourcesTest {
    static Stream<SchedulerVersions.Release> releases() {
        return SchedulerVersions.built().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("releases")
    void scheduleOneLogsEveryMessageThePreviewReads(SchedulerVersions.Release release) throws Exception {
        Path scheduleOne = release.kubernetesSources().resolve("pkg/scheduler/schedule_one.go");
        assertThat(scheduleOne)
                .as("the Kubernetes sources of %s (e2e/cluster build-schedulers downloads them)", release)
                .isRegularFile();
        String source = Files.readString(scheduleOne);
        for (String message : SchedulerLog.MESSAGES) {
            assertThat(source).as("%s logs \"%s\"", release, message).contains("\"" + message + "\"");
        }
    }
}
