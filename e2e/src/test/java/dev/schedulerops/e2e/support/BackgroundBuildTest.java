package dev.schedulerops.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a test waits for ./test's background build, and the class order that puts the waiting classes last. */
class BackgroundBuildTest {
    private static final Duration POLL = Duration.ofMillis(20);

    @TempDir
    Path dir;

    @Test
    void waitsUntilTheStageIsFinishedThenReturns() throws Exception {
        Path status = Files.writeString(dir.resolve("status"), "finished kube-router\n");
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(
                () -> BackgroundBuild.await("prometheus", status, Duration.ofMinutes(1), POLL));
        Thread.sleep(300);
        assertThat(waiting).as("prometheus is not finished yet").isNotDone();

        Files.writeString(status, "finished schedulers\nfinished prometheus\n", StandardOpenOption.APPEND);
        waiting.get(10, TimeUnit.SECONDS);
    }

    @Test
    void stopsWaitingWhenTheBuildFailsOrEnds() throws Exception {
        Path failed = Files.writeString(dir.resolve("failed"), "finished kube-router\nfailed schedulers (exit 1)\n");
        CompletableFuture.runAsync(() -> BackgroundBuild.await("argocd", failed, Duration.ofMinutes(1), POLL))
                .get(10, TimeUnit.SECONDS);

        Path done = Files.writeString(dir.resolve("done"), "finished flux\ndone\n");
        CompletableFuture.runAsync(() -> BackgroundBuild.await("argocd", done, Duration.ofMinutes(1), POLL))
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void givesUpAfterItsLimit() throws Exception {
        Path status = Files.writeString(dir.resolve("status"), "finished kube-router\n");
        long started = System.nanoTime();
        BackgroundBuild.await("argocd", status, Duration.ofMillis(200), POLL);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @Tag(BackgroundBuild.TAG)
    static class NeedsTools {}

    @Tag("real-node")
    @Tag(BackgroundBuild.TAG)
    static class RealNodeNeedsTools {}

    @Tag("real-node")
    static class RealNodeOnly {}

    static class Plain {}

    @Test
    void theClassesThatWaitRunLastAndEachGroupKeepsItsOrder() {
        List<ClassDescriptor> classes = new ArrayList<>(List.of(
                descriptor(NeedsTools.class),
                descriptor(Plain.class),
                descriptor(RealNodeNeedsTools.class),
                descriptor(RealNodeOnly.class)));
        new BackgroundBuildLast().orderClasses(new ClassOrdererContext() {
            @Override
            public List<? extends ClassDescriptor> getClassDescriptors() {
                return classes;
            }

            @Override
            public Optional<String> getConfigurationParameter(String key) {
                return Optional.empty();
            }
        });
        assertThat(classes.stream().map(ClassDescriptor::getTestClass).toList())
                .containsExactly(Plain.class, RealNodeOnly.class, NeedsTools.class, RealNodeNeedsTools.class);
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
                return Optional.ofNullable(type.getAnnotation(annotation));
            }

            @Override
            public <A extends java.lang.annotation.Annotation> List<A> findRepeatableAnnotations(Class<A> annotation) {
                return List.of(type.getAnnotationsByType(annotation));
            }
        };
    }
}
