package dev.schedulerops.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.commons.support.AnnotationSupport;

/** How a test waits for ./test's background build, and the class order that puts the waiting classes last, by stage. */
class BackgroundBuildTest {
    private static final Duration POLL = Duration.ofMillis(20);

    @TempDir
    Path dir;

    @Test
    void waitsUntilTheStageIsFinishedThenReturns() throws Exception {
        Path status = Files.writeString(dir.resolve("status"), "finished kube-router\n");
        assertWaitsUntilAppended("prometheus", status, "finished schedulers\nfinished prometheus\n");
    }

    @Test
    void stopsWaitingWhenItsStageFailsOrTheBuildEnds() throws Exception {
        Path status = Files.writeString(dir.resolve("status"), "finished kube-router\nfailed schedulers (exit 1)\n");
        assertThat(CompletableFuture.supplyAsync(() -> BackgroundBuild.await("schedulers", status, inAMinute(), POLL))
                        .get(10, TimeUnit.SECONDS))
                .as("a failed stage is not finished")
                .isFalse();

        // Another stage's failure does not end the wait; the build's end does.
        assertWaitsUntilAppended("argocd", status, "finished flux\ndone\n");
    }

    @Test
    void givesUpAfterItsLimit() throws Exception {
        Path status = Files.writeString(dir.resolve("status"), "finished kube-router\n");
        long started = System.nanoTime();
        assertThat(BackgroundBuild.await(
                        "argocd", status, started + Duration.ofMillis(200).toNanos(), POLL))
                .isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    /** {@code stage} is still awaited 300 ms on; once {@code appended} is in the status file, the wait ends finished. */
    private static void assertWaitsUntilAppended(String stage, Path status, String appended) throws Exception {
        CompletableFuture<Boolean> waiting =
                CompletableFuture.supplyAsync(() -> BackgroundBuild.await(stage, status, inAMinute(), POLL));
        Thread.sleep(300);
        assertThat(waiting).as("%s is still awaited", stage).isNotDone();

        Files.writeString(status, appended, StandardOpenOption.APPEND);
        assertThat(waiting.get(10, TimeUnit.SECONDS)).as("%s finished", stage).isTrue();
    }

    private static long inAMinute() {
        return System.nanoTime() + Duration.ofMinutes(1).toNanos();
    }

    @AwaitsBackgroundBuild(BackgroundBuild.ARGOCD)
    static class NeedsArgoCd {}

    @AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
    static class NeedsSchedulers {}

    @Tag("real-node")
    @AwaitsBackgroundBuild(BackgroundBuild.PROMETHEUS)
    static class RealNodeNeedsPrometheus {}

    @Tag("real-node")
    static class RealNodeOnly {}

    static class Plain {}

    @AwaitsBackgroundBuild("helm")
    static class NeedsNoStage {}

    @Test
    void theClassesThatWaitRunLastByStageAndTheOthersKeepTheirOrder() {
        List<ClassDescriptor> classes = new ArrayList<>(Stream.of(
                        NeedsArgoCd.class,
                        Plain.class,
                        NeedsSchedulers.class,
                        RealNodeNeedsPrometheus.class,
                        RealNodeOnly.class)
                .map(BackgroundBuildTest::descriptor)
                .toList());
        new BackgroundBuildLast().orderClasses(context(classes));
        assertThat(classes.stream().map(ClassDescriptor::getTestClass).toList())
                .containsExactly(
                        Plain.class,
                        RealNodeOnly.class,
                        RealNodeNeedsPrometheus.class,
                        NeedsArgoCd.class,
                        NeedsSchedulers.class);
    }

    @Test
    void aClassThatAwaitsAStageTheBuildDoesNotHaveIsAnError() {
        List<ClassDescriptor> classes =
                new ArrayList<>(List.of(descriptor(Plain.class), descriptor(NeedsNoStage.class)));
        assertThatThrownBy(() -> new BackgroundBuildLast().orderClasses(context(classes)))
                .hasMessageContaining("awaits helm, which is not a background-build stage");
    }

    @Test
    void aClassThatAwaitsAStageCarriesTheTagTheTiersSelectBy() {
        // JUnit finds tags as this does, through meta-annotations.
        assertThat(AnnotationSupport.findRepeatableAnnotations(RealNodeNeedsPrometheus.class, Tag.class))
                .extracting(Tag::value)
                .containsExactlyInAnyOrder("real-node", BackgroundBuild.TAG);
    }

    /** The order here is ./test's lanes one after the other: a class ranked before its stage's would wait. */
    @Test
    void theStagesAreTheOnesTestBuildsInItsLanesOrder() throws Exception {
        Path script = E2eSettings.repoRoot().resolve("test");
        Matcher lanes = Pattern.compile("(?m)^background_lanes=\\(([^)]*)\\)$").matcher(Files.readString(script));
        assertThat(lanes.find()).as("background_lanes=(...) in %s", script).isTrue();
        assertThat(List.of(lanes.group(1).replace("\"", " ").trim().split("\\s+")))
                .isEqualTo(BackgroundBuild.STAGES);
    }

    private static ClassOrdererContext context(List<ClassDescriptor> classes) {
        return new ClassOrdererContext() {
            @Override
            public List<? extends ClassDescriptor> getClassDescriptors() {
                return classes;
            }

            @Override
            public Optional<String> getConfigurationParameter(String key) {
                return Optional.empty();
            }
        };
    }

    private static ClassDescriptor descriptor(Class<?> type) {
        return new ClassDescriptor() {
            @Override
            public Class<?> getTestClass() {
                return type;
            }

            @Override
            public String getDisplayName() {
                return type.getSimpleName();
            }

            @Override
            public boolean isAnnotated(Class<? extends java.lang.annotation.Annotation> annotation) {
                return type.isAnnotationPresent(annotation);
            }

            @Override
            public <A extends java.lang.annotation.Annotation> Optional<A> findAnnotation(Class<A> annotation) {
                return AnnotationSupport.findAnnotation(type, annotation);
            }

            @Override
            public <A extends java.lang.annotation.Annotation> List<A> findRepeatableAnnotations(Class<A> annotation) {
                return AnnotationSupport.findRepeatableAnnotations(type, annotation);
            }
        };
    }
}
