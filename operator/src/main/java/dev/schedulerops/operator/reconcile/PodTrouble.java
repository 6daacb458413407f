package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Why a component's pods do not run, read from their status the way a person would read {@code kubectl describe
 * pod}: the reason the profile's status and a Warning event give when a Deployment is not available.
 *
 * <p>The reasons are built to stay the same while the failure does: kubelet's alternation between {@code ErrImagePull}
 * and {@code ImagePullBackOff} is one reason, and no restart counts go into a message. A crash loop's message quotes
 * the end of the container's log, which may change with each crash (timestamps): the status is then patched once per
 * kubelet back-off, and the Warning event is announced only when the reason changes.
 *
 * @param reason one of the {@code REASON_*} constants: the condition reason and the event reason
 * @param pod the pod the message is about
 * @param message what is wrong and, where there is one, the field to change
 */
public record PodTrouble(String reason, String pod, String message) {
    public static final String REASON_IMAGE_PULL = "ImagePullBackOff";
    public static final String REASON_CRASH_LOOP = "CrashLoopBackOff";
    public static final String REASON_OOM_KILLED = "OOMKilled";
    public static final String REASON_UNSCHEDULABLE = "Unschedulable";
    public static final String REASON_CONTAINER_CONFIG = "CreateContainerConfigError";
    public static final String REASON_NO_NATIVE_SIDECARS = "NativeSidecarsUnsupported";

    /** Every reason this class gives; the status recorder announces a change into one of them as a Warning. */
    public static final Set<String> REASONS = Set.of(
            REASON_IMAGE_PULL,
            REASON_CRASH_LOOP,
            REASON_OOM_KILLED,
            REASON_UNSCHEDULABLE,
            REASON_CONTAINER_CONFIG,
            REASON_NO_NATIVE_SIDECARS);

    /**
     * How the kubelet's Initialized condition names the init containers it still waits for ("containers with
     * incomplete status: [a b]"); unknown ones, after a kubelet restart, are listed apart.
     */
    private static final String INCOMPLETE_INIT = "containers with incomplete status:";

    /** The tail of a termination message kept: the error is at the end, and an event holds 1 KiB in all. */
    static final int TERMINATION_MESSAGE_TAIL = 600;

    private static final Set<String> IMAGE_PULL_WAITING =
            Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "RegistryUnavailable");
    private static final Set<String> CONFIG_WAITING =
            Set.of("CreateContainerConfigError", "CreateContainerError", "RunContainerError");

    /**
     * The trouble of the newest pod that has one, among {@code pods} (one component's), or empty when none of them
     * shows a known failure (they may simply be starting).
     *
     * @param resourcesField the profile field that sets the component's resources, named in the OOMKilled hint
     */
    public static Optional<PodTrouble> of(List<Pod> pods, String resourcesField) {
        return pods.stream()
                .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                .sorted(Comparator.comparing(
                                (Pod pod) -> String.valueOf(pod.getMetadata().getCreationTimestamp()))
                        .thenComparing(pod -> pod.getMetadata().getName())
                        .reversed())
                .map(pod -> of(pod, resourcesField))
                .flatMap(Optional::stream)
                .findFirst();
    }

    /** The trouble of one pod: unschedulable first, then by container, the most telling failure first. */
    static Optional<PodTrouble> of(Pod pod, String resourcesField) {
        String name = pod.getMetadata().getName();
        Optional<PodTrouble> unschedulable = unschedulable(pod, name);
        if (unschedulable.isPresent()) {
            return unschedulable;
        }
        Optional<PodTrouble> noSidecars = sidecarRunAsInitContainer(pod, name);
        if (noSidecars.isPresent()) {
            return noSidecars;
        }
        return containerStatuses(pod).stream()
                .flatMap(status -> container(pod, status.getName())
                        .flatMap(container -> ofContainer(name, container, status, resourcesField))
                        .stream())
                .min(Comparator.comparingInt(t -> precedence(t.reason())));
    }

    private static Optional<PodTrouble> unschedulable(Pod pod, String name) {
        return falseCondition(pod, "PodScheduled")
                .filter(condition -> REASON_UNSCHEDULABLE.equals(condition.getReason()))
                .map(condition -> new PodTrouble(
                        REASON_UNSCHEDULABLE,
                        name,
                        "pod " + name + " cannot be scheduled: " + oneLine(condition.getMessage())
                                + " (check the component's nodeSelector, affinity, tolerations and resources)"));
    }

    /**
     * The scheduler pod's {@code release-lease} sidecar run as an ordinary init container, which never completes, so
     * the pod waits in Init for good. Either the API server dropped its {@code restartPolicy: Always} (the
     * SidecarContainers feature gate is off there), or the node's kubelet does not run native sidecars (before 1.29,
     * or the gate off on the node): that kubelet reports the pod not initialized on {@code release-lease} while
     * {@code release-lease} runs, which a kubelet that runs it as a sidecar never does (it counts a started sidecar as
     * initialized).
     */
    static Optional<PodTrouble> sidecarRunAsInitContainer(Pod pod, String name) {
        Optional<Container> sidecar = container(pod, Names.RELEASE_LEASE_CONTAINER);
        if (sidecar.isEmpty()) {
            return Optional.empty();
        }
        String remedy = "; turn the sidecar off with the operator's setting SCHEDULEROPS_RELEASE_LEASE_SIDECAR=false"
                + " (Helm value releaseLeaseSidecar: false), or enable native sidecars (kubelet 1.29 or later, the"
                + " SidecarContainers feature gate on)";
        if (!"Always".equals(sidecar.get().getRestartPolicy())) {
            return Optional.of(new PodTrouble(
                    REASON_NO_NATIVE_SIDECARS,
                    name,
                    "pod " + name + " will wait in Init for good: the API server dropped restartPolicy: Always from"
                            + " its init container " + Names.RELEASE_LEASE_CONTAINER
                            + " (its SidecarContainers feature gate is off), so the kubelet waits for that container"
                            + " to complete, and it runs until the pod stops" + remedy));
        }
        boolean running = containerStatuses(pod).stream()
                .filter(s -> Names.RELEASE_LEASE_CONTAINER.equals(s.getName()))
                .anyMatch(s -> s.getState() != null && s.getState().getRunning() != null);
        boolean notInitializedOnIt = falseCondition(pod, "Initialized")
                .map(condition -> incompleteInitContainers(condition.getMessage()))
                .filter(incomplete -> incomplete.contains(Names.RELEASE_LEASE_CONTAINER))
                .isPresent();
        if (!running || !notInitializedOnIt) {
            return Optional.empty();
        }
        return Optional.of(new PodTrouble(
                REASON_NO_NATIVE_SIDECARS,
                name,
                "pod " + name + " waits in Init: its node's kubelet runs the sidecar " + Names.RELEASE_LEASE_CONTAINER
                        + " as an ordinary init container and waits for it to complete, which it does not until the"
                        + " pod stops (the kubelet does not run native sidecars)" + remedy));
    }

    /** The names in the kubelet's "containers with incomplete status: [a b]", or none. */
    static List<String> incompleteInitContainers(String message) {
        int at = message == null ? -1 : message.indexOf(INCOMPLETE_INIT);
        int open = at < 0 ? -1 : message.indexOf('[', at);
        int close = open < 0 ? -1 : message.indexOf(']', open);
        if (close < 0) {
            return List.of();
        }
        return List.of(message.substring(open + 1, close).trim().split("\\s+"));
    }

    /** The pod's condition of {@code type} when its status is False. */
    private static Optional<PodCondition> falseCondition(Pod pod, String type) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getConditions().stream()
                .filter(c -> type.equals(c.getType()) && "False".equals(c.getStatus()))
                .findFirst();
    }

    /**
     * What a person can do about an OOM kill: raise the component's limit, except for the scheduler pod's init
     * container and sidecar, whose limits the operator sets (no profile field reaches them).
     */
    private static String oomRemedy(Container container, String resourcesField) {
        return Names.AWAIT_EXTENDER_CONTAINER.equals(container.getName())
                        || Names.RELEASE_LEASE_CONTAINER.equals(container.getName())
                ? "the operator sets that limit for its container " + container.getName() + " (no profile field"
                        + " changes it): report this to the schedulerops project with the node's kernel and container"
                        + " runtime"
                : "raise " + resourcesField + ".limits.memory";
    }

    private static Optional<PodTrouble> ofContainer(
            String pod, Container container, ContainerStatus status, String resourcesField) {
        String where = "container " + container.getName() + " of pod " + pod;
        ContainerStateTerminated last =
                status.getLastState() == null ? null : status.getLastState().getTerminated();
        ContainerStateTerminated now =
                status.getState() == null ? null : status.getState().getTerminated();
        ContainerStateWaiting waiting =
                status.getState() == null ? null : status.getState().getWaiting();
        String waitingReason = waiting == null ? null : waiting.getReason();

        boolean ready = Boolean.TRUE.equals(status.getReady());
        // A ready container's last termination is history (kubelet keeps it until the next one): only a container
        // that is not ready now is in trouble.
        if (isOomKilled(now) || (!ready && isOomKilled(last))) {
            return Optional.of(new PodTrouble(
                    REASON_OOM_KILLED,
                    pod,
                    where + " was OOMKilled: it used more than its memory limit ("
                            + memoryLimit(container).orElse("none set") + "); "
                            + oomRemedy(container, resourcesField)));
        }
        // A crashing container is waiting in CrashLoopBackOff, or has just exited, or runs again for a moment after
        // a restart: the termination it last had is the same in all three, so the message does not flap.
        ContainerStateTerminated crash = now != null ? now : last;
        boolean crashed = crash != null && crash.getExitCode() != null && crash.getExitCode() != 0 && !ready;
        if ("CrashLoopBackOff".equals(waitingReason) || crashed) {
            String exit = crash == null
                    ? "it keeps exiting"
                    : "it keeps exiting, last with exit code " + crash.getExitCode()
                            + (crash.getReason() == null ? "" : " (" + crash.getReason() + ")");
            String said = crash == null ? "" : tail(crash.getMessage());
            return Optional.of(new PodTrouble(
                    REASON_CRASH_LOOP,
                    pod,
                    where + " is in CrashLoopBackOff: " + exit
                            + (said.isEmpty() ? "" : "; its last termination message: " + said)));
        }
        if (waitingReason == null) {
            return Optional.empty();
        }
        if (IMAGE_PULL_WAITING.contains(waitingReason)) {
            return Optional.of(new PodTrouble(
                    REASON_IMAGE_PULL,
                    pod,
                    where + " cannot pull image " + container.getImage()
                            + ": check the image name and tag, that the registry is reachable from the node, and"
                            + " imagePullSecrets for a private registry"));
        }
        if (CONFIG_WAITING.contains(waitingReason)) {
            return Optional.of(new PodTrouble(
                    REASON_CONTAINER_CONFIG,
                    pod,
                    where + " cannot be created (" + waitingReason + "): " + oneLine(waiting.getMessage())));
        }
        return Optional.empty();
    }

    private static int precedence(String reason) {
        return switch (reason) {
            case REASON_OOM_KILLED -> 0;
            case REASON_CRASH_LOOP -> 1;
            case REASON_CONTAINER_CONFIG -> 2;
            default -> 3;
        };
    }

    private static boolean isOomKilled(ContainerStateTerminated terminated) {
        return terminated != null && REASON_OOM_KILLED.equals(terminated.getReason());
    }

    private static List<ContainerStatus> containerStatuses(Pod pod) {
        if (pod.getStatus() == null) {
            return List.of();
        }
        return both(pod.getStatus().getInitContainerStatuses(), pod.getStatus().getContainerStatuses())
                .toList();
    }

    private static Optional<Container> container(Pod pod, String name) {
        if (pod.getSpec() == null) {
            return Optional.empty();
        }
        return both(pod.getSpec().getInitContainers(), pod.getSpec().getContainers())
                .filter(c -> name.equals(c.getName()))
                .findFirst();
    }

    /** Init containers' entries, then the containers', either list possibly null. */
    private static <T> Stream<T> both(List<T> init, List<T> main) {
        return Stream.of(init, main).filter(list -> list != null).flatMap(List::stream);
    }

    private static Optional<String> memoryLimit(Container container) {
        if (container.getResources() == null || container.getResources().getLimits() == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(container.getResources().getLimits().get("memory"))
                .map(Quantity::toString);
    }

    /** The end of a multi-line message on one line: where a crashing process writes its error. */
    static String tail(String message) {
        String line = oneLine(message);
        return line.length() <= TERMINATION_MESSAGE_TAIL
                ? line
                : "..." + line.substring(line.length() - TERMINATION_MESSAGE_TAIL);
    }

    private static String oneLine(String message) {
        return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", " | ");
    }
}
