package dev.schedulerops.operator.reconcile;

import static dev.schedulerops.operator.reconcile.UnscheduledPodsTest.OLD_ENOUGH;
import static dev.schedulerops.operator.reconcile.UnscheduledPodsTest.condition;
import static dev.schedulerops.operator.reconcile.UnscheduledPodsTest.pod;
import static dev.schedulerops.operator.reconcile.UnscheduledPodsTest.profile;
import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfile;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class UnscheduledPodWatchTest {
    private static final Duration GRACE = Duration.ofSeconds(60);
    private final List<Pod> pods = new CopyOnWriteArrayList<>();
    private final List<SchedulerProfile> profiles = new CopyOnWriteArrayList<>();
    private final List<String> recorded = new ArrayList<>();
    private final ProfileMetrics metrics = new ProfileMetrics();
    private PodEvents.Outcome nextOutcome = PodEvents.Outcome.RECORDED;
    private Instant now = UnscheduledPodsTest.NOW;
    private final Set<String> ignored = new java.util.HashSet<>();

    /** Looks once, then again after the grace: a cause is told only once it has lasted that long. */
    private void lookAcrossTheGrace(UnscheduledPodWatch watch) {
        watch.look();
        now = now.plus(GRACE);
        watch.look();
    }

    private UnscheduledPodWatch watch() {
        return new UnscheduledPodWatch(
                () -> List.copyOf(pods),
                () -> List.copyOf(profiles),
                Set::of,
                (pod, diagnosis) -> {
                    recorded.add(pod.getMetadata().getName() + ":" + diagnosis.cause());
                    return nextOutcome;
                },
                metrics,
                new UnscheduledPodWatch.Settings(true, GRACE, ignored),
                true,
                new Clock() {
                    @Override
                    public ZoneOffset getZone() {
                        return ZoneOffset.UTC;
                    }

                    @Override
                    public Clock withZone(java.time.ZoneId zone) {
                        return this;
                    }

                    @Override
                    public Instant instant() {
                        return now;
                    }
                });
    }

    private static Pod pod(String name, String uid, String schedulerName) {
        Pod pod = UnscheduledPodsTest.pod(schedulerName, OLD_ENOUGH);
        pod.getMetadata().setName(name);
        pod.getMetadata().setUid(uid);
        return pod;
    }

    @Test
    void eachPodIsToldOncePerCauseAndAgainWhenTheCauseChanges() {
        UnscheduledPodWatch watch = watch();
        pods.add(pod("web-0", "u0", "gpu-scheduler"));
        profiles.add(profile("gpu", "gpu-scheduler", condition("Ready", "False", "WaitingForExtender", "not yet")));

        watch.look();
        assertThat(recorded).as("within the grace of the cause").isEmpty();
        now = now.plus(GRACE);
        watch.look();
        watch.look();
        assertThat(recorded).containsExactly("web-0:PROFILE_NOT_READY");
        assertThat(metrics.podWarnings(UnscheduledPods.Cause.PROFILE_NOT_READY)).isEqualTo(1);
        assertThat(metrics.unscheduledPods(UnscheduledPods.Cause.PROFILE_NOT_READY))
                .isEqualTo(1);

        SchedulerProfile gpu = profiles.remove(0);
        watch.deleted(gpu);
        lookAcrossTheGrace(watch);
        watch.look();
        assertThat(recorded).containsExactly("web-0:PROFILE_NOT_READY", "web-0:PROFILE_DELETED");
        assertThat(metrics.unscheduledPods(UnscheduledPods.Cause.PROFILE_NOT_READY))
                .isZero();
        assertThat(metrics.unscheduledPods(UnscheduledPods.Cause.PROFILE_DELETED))
                .isEqualTo(1);
    }

    @Test
    void aPodThatGetsItsSchedulerIsNoLongerCounted() {
        UnscheduledPodWatch watch = watch();
        pods.add(pod("web-0", "u0", "gpu-scheduler"));
        profiles.add(profile("gpu", "gpu-scheduler", condition("Ready", "False", "WaitingForExtender", "not yet")));
        lookAcrossTheGrace(watch);

        profiles.set(0, profile("gpu", "gpu-scheduler", condition("Ready", "True", "Available", "ok")));
        watch.look();

        assertThat(recorded).containsExactly("web-0:PROFILE_NOT_READY");
        assertThat(metrics.unscheduledPods(UnscheduledPods.Cause.PROFILE_NOT_READY))
                .isZero();
    }

    @Test
    void aFailedEventIsTriedAgainAndADuplicateIsNotCountedTwice() {
        UnscheduledPodWatch watch = watch();
        pods.add(pod("web-0", "u0", "nobody"));

        nextOutcome = PodEvents.Outcome.FAILED;
        lookAcrossTheGrace(watch);
        nextOutcome = PodEvents.Outcome.ALREADY_RECORDED;
        watch.look();
        watch.look();

        assertThat(recorded).containsExactly("web-0:NO_SCHEDULER", "web-0:NO_SCHEDULER");
        assertThat(metrics.podWarnings(UnscheduledPods.Cause.NO_SCHEDULER))
                .as("another replica or an earlier run recorded it")
                .isZero();
    }

    @Test
    void oneLookRecordsAtMostItsShareAndTheRestFollowOnTheNext() {
        UnscheduledPodWatch watch = watch();
        int many = UnscheduledPodWatch.MAX_EVENTS_PER_LOOK + 20;
        for (int i = 0; i < many; i++) {
            pods.add(pod("web-" + i, "u" + i, "nobody"));
        }

        lookAcrossTheGrace(watch);
        assertThat(recorded).hasSize(UnscheduledPodWatch.MAX_EVENTS_PER_LOOK);
        assertThat(metrics.unscheduledPods(UnscheduledPods.Cause.NO_SCHEDULER)).isEqualTo(many);
        watch.look();
        assertThat(recorded).hasSize(many).doesNotHaveDuplicates();
    }

    @Test
    void aPodThatLeavesAndComesBackWithANewUidIsToldAgain() {
        UnscheduledPodWatch watch = watch();
        pods.add(pod("web-0", "u0", "nobody"));
        lookAcrossTheGrace(watch);
        pods.clear();
        watch.look();
        pods.add(pod("web-0", "u1", "nobody"));
        lookAcrossTheGrace(watch);

        assertThat(recorded).containsExactly("web-0:NO_SCHEDULER", "web-0:NO_SCHEDULER");
    }

    @Test
    void aCauseMustLastTheGraceEvenForAPodThatHasWaitedLong() {
        UnscheduledPodWatch watch = watch();
        pods.add(pod("web-0", "u0", "gpu-scheduler"));
        profiles.add(profile("gpu", "gpu-scheduler", condition("Ready", "True", "Available", "ok")));
        watch.look();

        // Its scheduler pod restarts: not Ready for a moment, and Ready again before the grace is over.
        profiles.set(0, profile("gpu", "gpu-scheduler", condition("Ready", "False", "RollingOutScheduler", "x")));
        watch.look();
        now = now.plus(GRACE.dividedBy(2));
        profiles.set(0, profile("gpu", "gpu-scheduler", condition("Ready", "True", "Available", "ok")));
        watch.look();
        now = now.plus(GRACE);
        watch.look();

        assertThat(recorded).isEmpty();
        assertThat(metrics.unscheduledPods(UnscheduledPods.Cause.PROFILE_NOT_READY))
                .isZero();
    }

    @Test
    void podsOfIgnoredSchedulersAreNeverTold() {
        ignored.add("volcano");
        UnscheduledPodWatch watch = watch();
        pods.add(pod("job-0", "u0", "volcano"));
        pods.add(pod("web-0", "u1", "nobody"));

        lookAcrossTheGrace(watch);

        assertThat(recorded).containsExactly("web-0:NO_SCHEDULER");
    }

    @Test
    void nothingIsLookedAtWhileTheInformerDoesNotRun() {
        UnscheduledPodWatch watch = new UnscheduledPodWatch(
                () -> null,
                () -> List.copyOf(profiles),
                Set::of,
                (pod, diagnosis) -> {
                    throw new AssertionError("no event on a standby");
                },
                metrics,
                new UnscheduledPodWatch.Settings(true, GRACE),
                true,
                Clock.systemUTC());
        watch.look();
        assertThat(metrics.unscheduledPods(UnscheduledPods.Cause.NO_SCHEDULER)).isZero();
    }
}
