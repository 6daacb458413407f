package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PodTroubleTest {
    private static final String FIELD = "spec.extender.resources";

    private static PodBuilder pod(String name, String created) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withCreationTimestamp(created)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("extender")
                .withImage("registry.example.com/extender:9.9")
                .withNewResources()
                .withLimits(Map.of("memory", new Quantity("64Mi")))
                .endResources()
                .endContainer()
                .endSpec();
    }

    private static Pod withStatus(PodBuilder pod, ContainerStatus status) {
        return pod.withNewStatus().withContainerStatuses(status).endStatus().build();
    }

    private static ContainerStatusBuilder status() {
        return new ContainerStatusBuilder().withName("extender").withRestartCount(3);
    }

    /**
     * The trouble found in {@code pods}, after checking that the operator's cache (LeanItemStore, which keeps little of
     * a pod's spec) gives the same: the reconciler only ever sees the cached copies.
     */
    private static Optional<PodTrouble> troubleOf(Pod... pods) {
        Optional<PodTrouble> trouble = PodTrouble.of(List.of(pods), FIELD);
        LeanItemStore<Pod> cache = new LeanItemStore<>();
        List<Pod> cached = java.util.Arrays.stream(pods)
                .map(pod -> {
                    Pod copy = new PodBuilder(pod).build();
                    cache.put(cache.getKey(copy), copy);
                    return cache.get(cache.getKey(copy));
                })
                .toList();
        assertThat(PodTrouble.of(cached, FIELD)).as("from the cache").isEqualTo(trouble);
        return trouble;
    }

    @Test
    void bothImagePullWaitingReasonsAreOneReasonNamingTheImage() {
        for (String waiting : List.of("ErrImagePull", "ImagePullBackOff")) {
            Pod pod = withStatus(
                    pod("p-1", "2026-11-23T10:00:00Z"),
                    status().withNewState()
                            .withNewWaiting()
                            .withReason(waiting)
                            .withMessage("rpc error: " + waiting)
                            .endWaiting()
                            .endState()
                            .build());

            PodTrouble trouble = troubleOf(pod).orElseThrow();

            assertThat(trouble.reason()).isEqualTo("ImagePullBackOff");
            assertThat(trouble.message())
                    .contains("container extender of pod p-1", "registry.example.com/extender:9.9", "imagePullSecrets")
                    .as("the same words on every kubelet retry")
                    .doesNotContain(waiting);
        }
    }

    @Test
    void aCrashLoopQuotesTheEndOfTheLastTerminationMessageAndTheExitCode() {
        String log = "I1123 starting\nE1123 couldn't create scheduler: invalid plugin config\n";
        Pod pod = withStatus(
                pod("p-1", "2026-11-23T10:00:00Z"),
                status().withNewState()
                        .withNewWaiting()
                        .withReason("CrashLoopBackOff")
                        .withMessage("back-off 40s restarting failed container")
                        .endWaiting()
                        .endState()
                        .withNewLastState()
                        .withNewTerminated()
                        .withExitCode(1)
                        .withReason("Error")
                        .withMessage(log)
                        .endTerminated()
                        .endLastState()
                        .build());

        PodTrouble trouble = troubleOf(pod).orElseThrow();

        assertThat(trouble.reason()).isEqualTo("CrashLoopBackOff");
        assertThat(trouble.message())
                .contains("exit code 1 (Error)")
                .contains("I1123 starting | E1123 couldn't create scheduler: invalid plugin config")
                .doesNotContain("back-off 40s", "\n");
    }

    @Test
    void aCrashLoopSaysTheSameWhileWaitingJustExitedOrRunningAgainBriefly() {
        ContainerStatusBuilder crashed = status().withReady(false)
                .withNewLastState()
                .withNewTerminated()
                .withExitCode(2)
                .withMessage("fatal: no config")
                .endTerminated()
                .endLastState();
        Pod waiting = withStatus(
                pod("p-1", "2026-11-23T10:00:00Z"),
                new ContainerStatusBuilder(crashed.build())
                        .withNewState()
                        .withNewWaiting()
                        .withReason("CrashLoopBackOff")
                        .endWaiting()
                        .endState()
                        .build());
        Pod runningAgain = withStatus(
                pod("p-1", "2026-11-23T10:00:00Z"),
                new ContainerStatusBuilder(crashed.build())
                        .withNewState()
                        .withNewRunning()
                        .endRunning()
                        .endState()
                        .build());
        Pod justExited = withStatus(
                pod("p-1", "2026-11-23T10:00:00Z"),
                status().withReady(false)
                        .withNewState()
                        .withNewTerminated()
                        .withExitCode(2)
                        .withMessage("fatal: no config")
                        .endTerminated()
                        .endState()
                        .build());

        assertThat(List.of(troubleOf(waiting), troubleOf(runningAgain), troubleOf(justExited)))
                .allSatisfy(t -> assertThat(t).contains(troubleOf(waiting).orElseThrow()));
        assertThat(troubleOf(waiting).orElseThrow().message()).contains("exit code 2", "fatal: no config");
    }

    /** The kubelet keeps a container's last termination until the next: once ready again, it is history. */
    @ParameterizedTest(name = "last exit {0} ({1})")
    @CsvSource({"1,", "137,OOMKilled"})
    void aReadyContainerIsNoTroubleWhateverItsLastTermination(int exitCode, String reason) {
        Pod recovered = withStatus(
                pod("p-1", "2026-11-23T10:00:00Z"),
                status().withReady(true)
                        .withNewState()
                        .withNewRunning()
                        .endRunning()
                        .endState()
                        .withNewLastState()
                        .withNewTerminated()
                        .withExitCode(exitCode)
                        .withReason(reason)
                        .endTerminated()
                        .endLastState()
                        .build());

        assertThat(troubleOf(recovered))
                .as("during an ordinary rollout the old, running pod is not reported")
                .isEmpty();
    }

    @Test
    void aLongTerminationMessageKeepsItsEnd() {
        String log = "x".repeat(5000) + " the error at the end";

        String kept = PodTrouble.tail(log);

        assertThat(kept)
                .hasSize(PodTrouble.TERMINATION_MESSAGE_TAIL + 3)
                .startsWith("...")
                .endsWith("at the end");
    }

    @Test
    void anOomKillWinsOverTheCrashLoopItCausesAndNamesTheLimitAndTheField() {
        Pod pod = withStatus(
                pod("p-1", "2026-11-23T10:00:00Z"),
                status().withNewState()
                        .withNewWaiting()
                        .withReason("CrashLoopBackOff")
                        .endWaiting()
                        .endState()
                        .withNewLastState()
                        .withNewTerminated()
                        .withExitCode(137)
                        .withReason("OOMKilled")
                        .endTerminated()
                        .endLastState()
                        .build());

        PodTrouble trouble = troubleOf(pod).orElseThrow();

        assertThat(trouble.reason()).isEqualTo("OOMKilled");
        assertThat(trouble.message()).contains("64Mi", "spec.extender.resources.limits.memory");
    }

    @ParameterizedTest
    @ValueSource(strings = {Names.AWAIT_EXTENDER_CONTAINER, Names.RELEASE_LEASE_CONTAINER})
    void anOomKilledInitContainerOrSidecarIsNotBlamedOnTheProfilesLimit(String name) {
        Pod pod = pod("p-1", "2026-11-23T10:00:00Z")
                .editSpec()
                .addNewInitContainer()
                .withName(name)
                .withRestartPolicy(Names.RELEASE_LEASE_CONTAINER.equals(name) ? "Always" : null)
                .withNewResources()
                .withLimits(Map.of("memory", new Quantity("128Mi")))
                .endResources()
                .endInitContainer()
                .endSpec()
                .withNewStatus()
                .addNewInitContainerStatus()
                .withName(name)
                .withRestartCount(2)
                .withNewLastState()
                .withNewTerminated()
                .withExitCode(137)
                .withReason("OOMKilled")
                .endTerminated()
                .endLastState()
                .endInitContainerStatus()
                .endStatus()
                .build();

        PodTrouble trouble = troubleOf(pod).orElseThrow();

        assertThat(trouble.reason()).isEqualTo("OOMKilled");
        assertThat(trouble.message())
                .contains("container " + name, "128Mi", "the operator sets that limit")
                .doesNotContain(FIELD);
    }

    /**
     * A scheduler pod on its node after await-extender completed: release-lease running, kube-scheduler not started;
     * the Initialized condition as the kubelet writes it ({@code GeneratePodInitializedCondition}).
     */
    private static Pod schedulerPodWithSidecar(String restartPolicy, boolean initialized) {
        Pod waiting = ProfileStatusesTest.waiting(
                "p-scheduler-1", "kube-scheduler", "ks:v1", initialized ? "ContainerCreating" : "PodInitializing");
        return new PodBuilder(waiting)
                .editSpec()
                .addNewInitContainer()
                .withName(Names.AWAIT_EXTENDER_CONTAINER)
                .endInitContainer()
                .addNewInitContainer()
                .withName(Names.RELEASE_LEASE_CONTAINER)
                .withRestartPolicy(restartPolicy)
                .endInitContainer()
                .endSpec()
                .editStatus()
                .addNewCondition()
                .withType("Initialized")
                .withStatus(initialized ? "True" : "False")
                .withReason(initialized ? null : "ContainersNotInitialized")
                .withMessage(
                        initialized
                                ? null
                                : "containers with incomplete status: [" + Names.RELEASE_LEASE_CONTAINER + "]")
                .endCondition()
                .addNewInitContainerStatus()
                .withName(Names.AWAIT_EXTENDER_CONTAINER)
                .withNewState()
                .withNewTerminated()
                .withExitCode(0)
                .withReason("Completed")
                .endTerminated()
                .endState()
                .endInitContainerStatus()
                .addNewInitContainerStatus()
                .withName(Names.RELEASE_LEASE_CONTAINER)
                .withStarted(initialized)
                .withNewState()
                .withNewRunning()
                .withStartedAt("2026-11-23T10:00:05Z")
                .endRunning()
                .endState()
                .endInitContainerStatus()
                .endStatus()
                .build();
    }

    @Test
    void aKubeletWithoutNativeSidecarsWaitingOnReleaseLeaseSaysHowToTurnTheSidecarOff() {
        PodTrouble trouble = troubleOf(schedulerPodWithSidecar("Always", false)).orElseThrow();

        assertThat(trouble.reason()).isEqualTo(PodTrouble.REASON_NO_NATIVE_SIDECARS);
        assertThat(PodTrouble.REASONS).contains(trouble.reason());
        assertThat(trouble.message())
                .contains(
                        "waits in Init",
                        "does not run native sidecars",
                        "SCHEDULEROPS_RELEASE_LEASE_SIDECAR=false",
                        "releaseLeaseSidecar: false");
    }

    @Test
    void aKubeletRunningReleaseLeaseAsASidecarIsNoTrouble() {
        assertThat(troubleOf(schedulerPodWithSidecar("Always", true))).isEmpty();
    }

    @Test
    void onlyTheKubeletsIncompleteListCountsNotItsUnknownOnesNorASidecarNotYetRunning() {
        Pod unknownAfterRestart = new PodBuilder(schedulerPodWithSidecar("Always", false))
                .editStatus()
                .editFirstCondition()
                .withMessage("containers with unknown status: [" + Names.RELEASE_LEASE_CONTAINER
                        + "], containers with incomplete status: [" + Names.AWAIT_EXTENDER_CONTAINER + "]")
                .endCondition()
                .endStatus()
                .build();
        Pod notYetRunning = new PodBuilder(schedulerPodWithSidecar("Always", false))
                .editStatus()
                .editLastInitContainerStatus()
                .withNewState()
                .withNewWaiting()
                .withReason("ContainerCreating")
                .endWaiting()
                .endState()
                .endInitContainerStatus()
                .endStatus()
                .build();

        assertThat(troubleOf(unknownAfterRestart)).isEmpty();
        assertThat(troubleOf(notYetRunning)).isEmpty();
        assertThat(PodTrouble.incompleteInitContainers(
                        "containers with unknown status: [a], containers with incomplete status: [b release-lease]"))
                .containsExactly("b", "release-lease");
        assertThat(PodTrouble.incompleteInitContainers("containers with unknown status: [release-lease]"))
                .isEmpty();
    }

    @Test
    void aSidecarWhoseRestartPolicyTheApiServerDroppedIsTroubleAtOnce() {
        Pod pod = schedulerPodWithSidecar(null, false);
        Pod justCreated = new PodBuilder(pod).withStatus(null).build();

        for (Pod p : List.of(pod, justCreated)) {
            PodTrouble trouble = troubleOf(p).orElseThrow();
            assertThat(trouble.reason()).isEqualTo(PodTrouble.REASON_NO_NATIVE_SIDECARS);
            assertThat(trouble.message())
                    .contains(
                            "dropped restartPolicy: Always",
                            "SidecarContainers feature gate is off",
                            "SCHEDULEROPS_RELEASE_LEASE_SIDECAR=false");
        }
    }

    @Test
    void anUnschedulablePodGivesTheSchedulersMessage() {
        Pod pod = pod("p-1", "2026-11-23T10:00:00Z")
                .withNewStatus()
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("False")
                .withReason("Unschedulable")
                .withMessage("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.")
                .endCondition()
                .endStatus()
                .build();

        PodTrouble trouble = troubleOf(pod).orElseThrow();

        assertThat(trouble.reason()).isEqualTo("Unschedulable");
        assertThat(trouble.message()).contains("3 node(s) didn't match Pod's node affinity/selector");
    }

    @Test
    void aMissingSecretOrConfigMapIsAContainerConfigError() {
        Pod pod = withStatus(
                pod("p-1", "2026-11-23T10:00:00Z"),
                status().withNewState()
                        .withNewWaiting()
                        .withReason("CreateContainerConfigError")
                        .withMessage("secret \"p-extender-tls\" not found")
                        .endWaiting()
                        .endState()
                        .build());

        assertThat(troubleOf(pod).orElseThrow().message()).contains("secret \"p-extender-tls\" not found");
    }

    @Test
    void aStartingOrRunningPodIsNoTrouble() {
        Pod creating = withStatus(
                pod("p-1", "2026-11-23T10:00:00Z"),
                status().withNewState()
                        .withNewWaiting()
                        .withReason("ContainerCreating")
                        .endWaiting()
                        .endState()
                        .build());
        Pod running = withStatus(
                pod("p-2", "2026-11-23T10:00:00Z"),
                status().withNewState().withNewRunning().endRunning().endState().build());
        Pod noStatus = pod("p-3", "2026-11-23T10:00:00Z").build();

        assertThat(troubleOf(creating, running, noStatus)).isEmpty();
    }

    @Test
    void theNewestTroubledPodSpeaksAndTerminatingPodsAreIgnored() {
        ContainerStatus pulling = status().withNewState()
                .withNewWaiting()
                .withReason("ImagePullBackOff")
                .endWaiting()
                .endState()
                .build();
        ContainerStatus crashing = status().withNewState()
                .withNewWaiting()
                .withReason("CrashLoopBackOff")
                .endWaiting()
                .endState()
                .build();
        Pod old = withStatus(pod("old", "2026-11-23T09:00:00Z"), crashing);
        Pod newer = withStatus(pod("new", "2026-11-23T10:00:00Z"), pulling);
        Pod terminating = withStatus(
                pod("going", "2026-11-23T11:00:00Z")
                        .editMetadata()
                        .withDeletionTimestamp("2026-11-23T11:05:00Z")
                        .endMetadata(),
                crashing);

        PodTrouble trouble = troubleOf(old, terminating, newer).orElseThrow();

        assertThat(trouble.pod()).isEqualTo("new");
        assertThat(trouble.reason()).isEqualTo("ImagePullBackOff");
    }
}
