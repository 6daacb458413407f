package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.render.RenderResult;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Optional;

/** A copy of an {@link ProfileStatuses.Observation} with a few fields changed, for the status tests. */
final class ObservationCopy {
    private long generation;
    private final String schedulerName;
    private RenderResult rendered;
    private Optional<SchedulerNameConflicts.Conflict> conflict;
    private Optional<ApplyFailure> applyFailure;
    private boolean waitingForRolloutSlot;
    private final Deployment extender;
    private final Deployment scheduler;
    private final int labelledNodes;
    private List<Pod> extenderPods;
    private List<Pod> schedulerPods;

    private ObservationCopy(ProfileStatuses.Observation o) {
        generation = o.generation();
        schedulerName = o.schedulerName();
        rendered = o.rendered();
        conflict = o.conflict();
        applyFailure = o.applyFailure();
        waitingForRolloutSlot = o.waitingForRolloutSlot();
        extender = o.extender();
        scheduler = o.scheduler();
        labelledNodes = o.labelledNodes();
        extenderPods = o.extenderPods();
        schedulerPods = o.schedulerPods();
    }

    static ObservationCopy of(ProfileStatuses.Observation o) {
        return new ObservationCopy(o);
    }

    ObservationCopy generation(long value) {
        generation = value;
        return this;
    }

    ObservationCopy rendered(RenderResult value) {
        rendered = value;
        return this;
    }

    ObservationCopy conflict(SchedulerNameConflicts.Conflict value) {
        conflict = Optional.of(value);
        return this;
    }

    ObservationCopy applyFailure(ApplyFailure value) {
        applyFailure = Optional.of(value);
        return this;
    }

    ObservationCopy waitingForRolloutSlot() {
        waitingForRolloutSlot = true;
        return this;
    }

    ObservationCopy pods(List<Pod> extender, List<Pod> scheduler) {
        extenderPods = extender;
        schedulerPods = scheduler;
        return this;
    }

    ProfileStatuses.Observation build() {
        return new ProfileStatuses.Observation(
                generation,
                schedulerName,
                rendered,
                conflict,
                applyFailure,
                waitingForRolloutSlot,
                extender,
                scheduler,
                labelledNodes,
                extenderPods,
                schedulerPods);
    }
}
