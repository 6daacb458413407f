package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfileStatus;
import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.render.DesiredState;
import dev.schedulerops.operator.render.RenderResult;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProfileStatusesTest {
    static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");
    static final Instant T1 = Instant.parse("2024-05-01T10:05:00Z");

    static ProfileStatuses.Observation valid(Deployment extender, Deployment scheduler, String desiredHash) {
        return new ProfileStatuses.Observation(
                7,
                "sched",
                new RenderResult.Valid(new DesiredState(
                        new Names("p", "ops"), List.of(), List.of(), "", desiredHash, "ks:v1", "ext:v1")),
                Optional.empty(),
                Optional.empty(),
                false,
                extender,
                scheduler,
                3,
                List.of(),
                List.of());
    }

    static Condition condition(SchedulerProfileStatus status, String type) {
        return ProfileStatuses.find(status.getConditions(), type).orElseThrow();
    }

    static ProfileStatuses.Observation validWithTls(TlsMode mode) {
        return ObservationCopy.of(
                        valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", true), "h1"))
                .rendered(new RenderResult.Valid(new DesiredState(
                        new Names("p", "ops"), List.of(), List.of(), "", "h1", "ks:v1", "ext:v1", mode, true, null)))
                .build();
    }

    static ProfileStatuses.Observation validWithLabelKey(String labelKey) {
        return ObservationCopy.of(
                        valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", true), "h1"))
                .rendered(new RenderResult.Valid(new DesiredState(
                        new Names("p", "ops"),
                        List.of(),
                        List.of(),
                        "",
                        "h1",
                        "ks:v1",
                        "ext:v1",
                        TlsMode.MUTUAL,
                        true,
                        labelKey)))
                .build();
    }

    @Test
    void aLabelKeyANodeMaySetOnItselfIsAWarningThatNamesTheSafePrefix() {
        SchedulerProfileStatus status = ProfileStatuses.compute(null, validWithLabelKey("priority.lixueduan.com"), T0);
        Condition unprotected = condition(status, "LabelKeyUnprotected");
        assertThat(unprotected.getStatus()).isEqualTo("True");
        assertThat(unprotected.getReason()).isEqualTo("KubeletMaySetLabel");
        assertThat(unprotected.getObservedGeneration()).isEqualTo(7);
        assertThat(unprotected.getMessage())
                .contains("spec.labelKey priority.lixueduan.com")
                .contains("kubelet may set on its own Node")
                .contains("node-restriction.kubernetes.io/priority.lixueduan.com");
        assertThat(condition(status, "Ready").getStatus())
                .as("a warning, not a failure")
                .isEqualTo("True");
        assertThat(status.getConditions()).extracting(Condition::getType).doesNotContain("Stalled", "Reconciling");
    }

    @Test
    void aLabelKeyOnlyAdministratorsMaySetAddsNoWarning() {
        for (String key : List.of("node-restriction.kubernetes.io/priority", "example.kubernetes.io/rank")) {
            SchedulerProfileStatus status = ProfileStatuses.compute(null, validWithLabelKey(key), T0);
            assertThat(status.getConditions())
                    .as(key)
                    .extracting(Condition::getType)
                    .doesNotContain("LabelKeyUnprotected");
        }
    }

    @Test
    void aProfileWaitingForARolloutSlotSaysSoAndKeepsReportingWhatRuns() {
        ProfileStatuses.Observation o = validWithTls(TlsMode.MUTUAL);
        ProfileStatuses.Observation waiting =
                ObservationCopy.of(o).waitingForRolloutSlot().build();

        SchedulerProfileStatus status = ProfileStatuses.compute(null, waiting, T0);

        assertThat(condition(status, "Ready").getStatus()).isEqualTo("False");
        assertThat(condition(status, "Ready").getReason()).isEqualTo("WaitingForRolloutSlot");
        assertThat(condition(status, "Ready").getMessage())
                .contains("--max-concurrent-rollouts")
                .contains("left as they are until its turn");
        assertThat(condition(status, "Reconciling").getReason()).isEqualTo("WaitingForRolloutSlot");
        assertThat(status.getConditions()).extracting(Condition::getType).doesNotContain("Stalled");
        assertThat(condition(status, "ExtenderAvailable").getStatus()).isEqualTo("True");
        assertThat(condition(status, "SchedulerAvailable").getStatus()).isEqualTo("True");
    }

    @Test
    void anUnsupportedClusterVersionIsItsOwnReasonWithoutTheInvalidProfileWording() {
        ProfileStatuses.Observation o = validWithTls(TlsMode.MUTUAL);
        ProfileStatuses.Observation unsupported = ObservationCopy.of(o)
                .rendered(new RenderResult.Invalid(
                        List.of("The cluster runs Kubernetes 1.40, ..."),
                        RenderResult.Refusal.UNSUPPORTED_KUBERNETES_VERSION))
                .build();

        SchedulerProfileStatus status = ProfileStatuses.compute(null, unsupported, T0);

        for (String type : List.of("ConfigValid", "Ready", "Stalled")) {
            assertThat(condition(status, type).getReason()).isEqualTo("UnsupportedKubernetesVersion");
        }
        assertThat(condition(status, "Ready").getMessage()).startsWith("The cluster runs Kubernetes 1.40");
    }

    @Test
    void mutualTlsAddsNoWarning() {
        SchedulerProfileStatus status = ProfileStatuses.compute(null, validWithTls(TlsMode.MUTUAL), T0);
        assertThat(status.getConditions()).extracting(Condition::getType).doesNotContain("ExtenderOpen");
        assertThat(condition(status, "Ready").getStatus()).isEqualTo("True");
    }

    @Test
    void disabledTlsSaysTheExtenderIsOpenToAnyPodAndHowToClose() {
        SchedulerProfileStatus status = ProfileStatuses.compute(null, validWithTls(TlsMode.DISABLED), T0);
        Condition open = condition(status, "ExtenderOpen");
        assertThat(open.getStatus()).isEqualTo("True");
        assertThat(open.getReason()).isEqualTo("TLSDisabled");
        assertThat(open.getMessage()).contains("any pod").contains("mode: Mutual");
        assertThat(condition(status, "Ready").getStatus())
                .as("a warning, not a failure")
                .isEqualTo("True");
    }

    @Test
    void serverTlsSaysTheCallerIsNotAuthenticated() {
        Condition open = condition(ProfileStatuses.compute(null, validWithTls(TlsMode.SERVER), T0), "ExtenderOpen");
        assertThat(open.getReason()).isEqualTo("ClientNotAuthenticated");
        assertThat(open.getMessage())
                .contains("does not authenticate its caller")
                .contains("mode: Mutual");
    }

    @Test
    void everythingAvailableIsReady() {
        SchedulerProfileStatus status = ProfileStatuses.compute(
                null, valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", true), "h1"), T0);

        assertThat(condition(status, "Ready").getStatus()).isEqualTo("True");
        assertThat(condition(status, "Ready").getReason()).isEqualTo("Available");
        assertThat(condition(status, "ExtenderAvailable").getStatus()).isEqualTo("True");
        assertThat(condition(status, "SchedulerAvailable").getStatus()).isEqualTo("True");
        assertThat(condition(status, "ConfigValid").getStatus()).isEqualTo("True");
        assertThat(status.getConditions()).allSatisfy(c -> {
            assertThat(c.getObservedGeneration()).isEqualTo(7L);
            assertThat(c.getLastTransitionTime()).isEqualTo("2024-05-01T10:00:00Z");
        });
        assertThat(status.getObservedGeneration()).isEqualTo(7L);
        assertThat(status.getConfigHash()).isEqualTo("h1");
        assertThat(status.getSchedulerImage()).isEqualTo("ks:v1");
        assertThat(status.getExtenderImage()).isEqualTo("ext:v1");
        assertThat(status.getSchedulerName()).isEqualTo("sched");
        assertThat(status.getLabelledNodes()).isEqualTo(3);
        assertThat(status.getConditions()).extracting(Condition::getType).doesNotContain("Reconciling", "Stalled");
    }

    @Test
    void anUnavailableExtenderMeansWaitingForExtender() {
        SchedulerProfileStatus status = ProfileStatuses.compute(null, valid(null, null, "h1"), T0);

        assertThat(condition(status, "Ready").getStatus()).isEqualTo("False");
        assertThat(condition(status, "Ready").getReason()).isEqualTo("WaitingForExtender");
        assertThat(condition(status, "ExtenderAvailable").getReason()).isEqualTo("NotFound");
        assertThat(condition(status, "SchedulerAvailable").getStatus()).isEqualTo("False");
        assertThat(status.getConfigHash()).isNull();
        // kstatus (Flux) reads Reconciling, not Ready.
        assertThat(condition(status, "Reconciling").getStatus()).isEqualTo("True");
        assertThat(condition(status, "Reconciling").getReason()).isEqualTo("WaitingForExtender");
        assertThat(status.getConditions()).extracting(Condition::getType).doesNotContain("Stalled");
    }

    static ProfileStatuses.Observation withPods(
            ProfileStatuses.Observation o, List<Pod> extenderPods, List<Pod> schedulerPods) {
        return ObservationCopy.of(o).pods(extenderPods, schedulerPods).build();
    }

    /** A pod whose one container waits with {@code reason}, as the kubelet reports it. */
    static Pod waiting(String pod, String container, String image, String reason) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(pod)
                .withCreationTimestamp("2024-05-01T10:00:00Z")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName(container)
                .withImage(image)
                .endContainer()
                .endSpec()
                .withNewStatus()
                .addNewContainerStatus()
                .withName(container)
                .withReady(false)
                .withNewState()
                .withNewWaiting()
                .withReason(reason)
                .endWaiting()
                .endState()
                .endContainerStatus()
                .endStatus()
                .build();
    }

    @Test
    void anExtenderPodFailureIsTheReasonReadyGives() {
        Deployment unavailable = Deployments.rolledOut("p-extender", 1)
                .editStatus()
                .withAvailableReplicas(0)
                .endStatus()
                .build();
        Pod pulling = waiting("p-extender-1", "extender", "x:1", "ImagePullBackOff");

        SchedulerProfileStatus status = ProfileStatuses.compute(
                null, withPods(valid(unavailable, null, "h1"), List.of(pulling), List.of()), T0);

        Condition ready = condition(status, "Ready");
        assertThat(ready.getReason()).isEqualTo("ImagePullBackOff");
        assertThat(ready.getMessage())
                .startsWith("The extender cannot run: container extender of pod p-extender-1")
                .contains("x:1");
        assertThat(condition(status, "ExtenderAvailable").getReason()).isEqualTo("ImagePullBackOff");
        assertThat(condition(status, "ExtenderAvailable").getMessage())
                .contains("0 of 1 replicas available", "cannot pull image x:1");
        assertThat(condition(status, "Reconciling").getReason())
                .as("kubelet keeps retrying: not Stalled")
                .isEqualTo("ImagePullBackOff");
    }

    @Test
    void aSchedulerPodFailureIsTheReasonReadyGives() {
        Pod crashing = waiting("p-scheduler-1", "kube-scheduler", "ks:v1", "CrashLoopBackOff");
        Pod pullingButAvailable = waiting("p-extender-9", "extender", "x:1", "ImagePullBackOff");

        SchedulerProfileStatus status = ProfileStatuses.compute(
                null,
                withPods(
                        valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", false), "h1"),
                        List.of(pullingButAvailable),
                        List.of(crashing)),
                T0);

        assertThat(condition(status, "Ready").getReason()).isEqualTo("CrashLoopBackOff");
        assertThat(condition(status, "Ready").getMessage())
                .isEqualTo("The scheduler cannot run: container kube-scheduler of pod p-scheduler-1 is in"
                        + " CrashLoopBackOff: it keeps exiting");
        assertThat(condition(status, "SchedulerAvailable").getReason()).isEqualTo("CrashLoopBackOff");
        assertThat(condition(status, "ExtenderAvailable").getStatus()).isEqualTo("True");
        assertThat(condition(status, "ExtenderAvailable").getReason())
                .as("an available Deployment's pods are not read")
                .isEqualTo("Available");
    }

    @Test
    void aSchedulerPodWhoseSidecarCannotRunIsStalled() {
        // Its release-lease without restartPolicy: Always, as an API server with SidecarContainers off stores it.
        Pod stuck = new PodBuilder(waiting("p-scheduler-1", "kube-scheduler", "ks:v1", "PodInitializing"))
                .editSpec()
                .addNewInitContainer()
                .withName(Names.RELEASE_LEASE_CONTAINER)
                .endInitContainer()
                .endSpec()
                .build();

        SchedulerProfileStatus status = ProfileStatuses.compute(
                null,
                withPods(
                        valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", false), "h1"),
                        List.of(),
                        List.of(stuck)),
                T0);

        assertThat(condition(status, "Ready").getReason()).isEqualTo(PodTrouble.REASON_NO_NATIVE_SIDECARS);
        assertThat(condition(status, "Stalled").getStatus())
                .as("no kubelet retry starts it: kstatus tools should stop waiting")
                .isEqualTo("True");
        assertThat(status.getConditions()).extracting(Condition::getType).doesNotContain("Reconciling");
    }

    @Test
    void aSchedulerOnAnOlderConfigMeansRollingOutScheduler() {
        SchedulerProfileStatus status = ProfileStatuses.compute(
                null,
                valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("old", true), "new"),
                T0);

        assertThat(condition(status, "Ready").getReason()).isEqualTo("RollingOutScheduler");
        assertThat(condition(status, "Ready").getMessage()).contains("new");
        // The status reports the config the scheduler pods actually run with.
        assertThat(status.getConfigHash()).isEqualTo("old");
    }

    @Test
    void aSchedulerStillRollingOutIsNotReady() {
        SchedulerProfileStatus status = ProfileStatuses.compute(
                null, valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", false), "h1"), T0);

        assertThat(condition(status, "Ready").getReason()).isEqualTo("RollingOutScheduler");
        assertThat(condition(status, "SchedulerAvailable").getReason()).isEqualTo("Progressing");
    }

    @Test
    void anInvalidProfileSaysWhyAndKeepsTheImagesInUse() {
        SchedulerProfileStatus before = ProfileStatuses.compute(
                null, valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", true), "h1"), T0);
        ProfileStatuses.Observation invalid = ObservationCopy.of(
                        valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", true), "h1"))
                .generation(8)
                .rendered(new RenderResult.Invalid(List.of("plugin Foo is unknown", "weight must be positive")))
                .build();

        SchedulerProfileStatus status = ProfileStatuses.compute(before, invalid, T1);

        Condition configValid = condition(status, "ConfigValid");
        assertThat(configValid.getStatus()).isEqualTo("False");
        assertThat(configValid.getReason()).isEqualTo("InvalidConfig");
        assertThat(configValid.getMessage()).contains("plugin Foo is unknown; weight must be positive");
        assertThat(condition(status, "Ready").getReason()).isEqualTo("InvalidConfig");
        assertThat(condition(status, "Ready").getMessage()).isEqualTo(configValid.getMessage());
        assertThat(status.getSchedulerImage()).isEqualTo("ks:v1");
        assertThat(status.getExtenderImage()).isEqualTo("ext:v1");
        assertThat(status.getConfigHash()).isEqualTo("h1");
        assertThat(status.getObservedGeneration()).isEqualTo(8L);
        // What still runs is still reported as available.
        assertThat(condition(status, "ExtenderAvailable").getStatus()).isEqualTo("True");
        // kstatus (Flux) reports a Stalled resource as failed.
        assertThat(condition(status, "Stalled").getStatus()).isEqualTo("True");
        assertThat(condition(status, "Stalled").getReason()).isEqualTo("InvalidConfig");
        assertThat(status.getConditions()).extracting(Condition::getType).doesNotContain("Reconciling");
    }

    @Test
    void aConflictNamesTheHolder() {
        ProfileStatuses.Observation conflict = new ProfileStatuses.Observation(
                1,
                "shared",
                valid(null, null, "h1").rendered(),
                Optional.of(new SchedulerNameConflicts.Conflict("shared", "team-a/first")),
                Optional.empty(),
                false,
                null,
                null,
                0,
                List.of(),
                List.of());

        SchedulerProfileStatus status = ProfileStatuses.compute(null, conflict, T0);

        assertThat(condition(status, "ConfigValid").getReason()).isEqualTo("SchedulerNameConflict");
        assertThat(condition(status, "ConfigValid").getMessage())
                .contains("team-a/first")
                .contains("'shared'");
        assertThat(condition(status, "Ready").getReason()).isEqualTo("SchedulerNameConflict");
    }

    @Test
    void transitionTimesChangeOnlyWithTheConditionStatus() {
        SchedulerProfileStatus waiting =
                ProfileStatuses.compute(null, valid(Deployments.available("p-extender"), null, "h1"), T0);
        SchedulerProfileStatus ready = ProfileStatuses.compute(
                waiting,
                valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", true), "h1"),
                T1);

        assertThat(condition(ready, "Ready").getLastTransitionTime()).isEqualTo("2024-05-01T10:05:00Z");
        assertThat(condition(ready, "ExtenderAvailable").getLastTransitionTime())
                .isEqualTo("2024-05-01T10:00:00Z");
        assertThat(condition(ready, "ConfigValid").getLastTransitionTime()).isEqualTo("2024-05-01T10:00:00Z");
    }

    @Test
    void recomputingFromUnchangedObservationsGivesAnEqualStatus() {
        ProfileStatuses.Observation observation =
                valid(Deployments.available("p-extender"), Deployments.schedulerWithHash("h1", true), "h1");
        SchedulerProfileStatus first = ProfileStatuses.compute(null, observation, T0);

        SchedulerProfileStatus second = ProfileStatuses.compute(first, observation, T1);

        assertThat(second).isEqualTo(first);
    }

    @Test
    void aRefusedApplyIsReportedAsStalledWithTheObjectAndTheServersReason() {
        KubernetesClientException refused = new KubernetesClientException(new StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage("deployments.apps \"p-extender\" is forbidden: exceeded quota: q")
                .build());
        ApplyFailure failure = ApplyFailure.of(Deployments.available("p-extender"), refused);
        ProfileStatuses.Observation o = valid(Deployments.available("p-extender"), null, "h1");
        ProfileStatuses.Observation failed =
                ObservationCopy.of(o).applyFailure(failure).build();

        SchedulerProfileStatus status = ProfileStatuses.compute(null, failed, T0);

        assertThat(condition(status, "Ready").getStatus()).isEqualTo("False");
        assertThat(condition(status, "Ready").getReason()).isEqualTo("ApplyFailed");
        assertThat(condition(status, "Ready").getMessage())
                .isEqualTo("Could not apply Deployment ns/p-extender (HTTP 403): deployments.apps"
                        + " \"p-extender\" is forbidden: exceeded quota: q");
        assertThat(condition(status, "ConfigValid").getStatus()).isEqualTo("True");
        assertThat(condition(status, "Stalled").getStatus()).isEqualTo("True");
        assertThat(condition(status, "Stalled").getReason()).isEqualTo("ApplyFailed");
        assertThat(status.getConditions()).extracting(Condition::getType).doesNotContain("Reconciling");
    }
}
