package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.PreviewStatus;
import dev.schedulerops.operator.api.SchedulerProfilePreview;
import dev.schedulerops.operator.preview.Json;
import dev.schedulerops.operator.preview.PreviewReport;
import dev.schedulerops.operator.preview.PreviewTable;
import dev.schedulerops.operator.preview.Receipt;
import dev.schedulerops.operator.preview.ResultEnvelope;
import dev.schedulerops.operator.preview.SandboxPlan;
import dev.schedulerops.operator.preview.SandboxPodRenderer;
import dev.schedulerops.operator.preview.SandboxResult;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * How a sandbox pod ended, read from its status and its containers' logs: the driver printed a result
 * ({@link ResultEnvelope}), a step printed its failure, or a container ended without saying why (its log's tail is
 * quoted). Empty while the sandbox runs.
 *
 * @param result the sandbox's result, or null when it failed
 * @param failure why it failed, or null
 */
record SandboxOutcome(SandboxResult result, String failure) {
    /** How much of a log's end a failure quotes. */
    static final int TAIL = 800;

    /**
     * @param logs a container's log by its name
     */
    static Optional<SandboxOutcome> of(Pod pod, Function<String, String> logs) {
        Optional<ContainerStatus> driver = status(pod, SandboxPodRenderer.DRIVER, false);
        if (driver.isPresent() && driver.get().getState().getTerminated() != null) {
            return Optional.of(
                    read(SandboxPodRenderer.DRIVER, driver.get().getState().getTerminated(), logs));
        }
        for (String step : List.of(SandboxPodRenderer.PREPARE)) {
            Optional<ContainerStatus> s = status(pod, step, true);
            ContainerStateTerminated ended =
                    s.map(c -> c.getState().getTerminated()).orElse(null);
            if (ended != null && ended.getExitCode() != null && ended.getExitCode() != 0) {
                return Optional.of(read(step, ended, logs));
            }
        }
        if (pod.getStatus() != null && "Failed".equals(pod.getStatus().getPhase())) {
            return Optional.of(new SandboxOutcome(
                    null,
                    "the sandbox pod failed: " + pod.getStatus().getReason() + " "
                            + pod.getStatus().getMessage()));
        }
        return Optional.empty();
    }

    private static SandboxOutcome read(
            String container, ContainerStateTerminated ended, Function<String, String> logs) {
        String log = logs.apply(container);
        Optional<ResultEnvelope.Read> read = ResultEnvelope.read(log);
        if (read.isPresent() && read.get() instanceof ResultEnvelope.Found found) {
            return new SandboxOutcome(found.result(), null);
        }
        if (read.isPresent() && read.get() instanceof ResultEnvelope.Failed failed) {
            return new SandboxOutcome(null, failed.message());
        }
        String tail = log.length() > TAIL ? "..." + log.substring(log.length() - TAIL) : log;
        return new SandboxOutcome(
                null,
                "the sandbox's " + container + " step exited with " + ended.getExitCode() + " without a result"
                        + (tail.isBlank() ? "" : ": " + tail.strip()));
    }

    private static Optional<ContainerStatus> status(Pod pod, String name, boolean init) {
        if (pod.getStatus() == null) {
            return Optional.empty();
        }
        List<ContainerStatus> statuses = init
                ? pod.getStatus().getInitContainerStatuses()
                : pod.getStatus().getContainerStatuses();
        return statuses == null
                ? Optional.empty()
                : statuses.stream().filter(s -> name.equals(s.getName())).findFirst();
    }

    /** Which containers run, for a timeout's message (where the sandbox was when time ran out). */
    static String progress(Pod pod) {
        List<String> running = new ArrayList<>();
        List<ContainerStatus> all = new ArrayList<>();
        if (pod.getStatus() != null) {
            if (pod.getStatus().getInitContainerStatuses() != null) {
                all.addAll(pod.getStatus().getInitContainerStatuses());
            }
            if (pod.getStatus().getContainerStatuses() != null) {
                all.addAll(pod.getStatus().getContainerStatuses());
            }
        }
        for (ContainerStatus s : all) {
            if (s.getState() != null && s.getState().getRunning() != null) {
                running.add(s.getName());
            }
        }
        return running.isEmpty() ? "no container running yet" : "running: " + String.join(", ", running);
    }

    /** The preview's status for this outcome. */
    UpdateControl<SchedulerProfilePreview> applyTo(SchedulerProfilePreview preview, PreviewReconciler reconciler) {
        if (result == null) {
            return reconciler.over(preview, PreviewStatus.FAILED, failure);
        }
        PreviewStatus status = preview.getStatus();
        if (result.mode() == SandboxPlan.Mode.EXPLAIN) {
            Receipt receipt = Receipt.of(result);
            status.setReport(receipt.text());
            status.setResult(Json.tree(Json.write(receipt)));
            return reconciler.over(preview, PreviewStatus.SUCCEEDED, "explained " + receipt.pod());
        }
        PreviewReport report = PreviewReport.of(result);
        status.setVerdict(report.verdict());
        status.setReport(PreviewTable.render(report));
        status.setResult(Json.tree(Json.write(report)));
        return reconciler.over(preview, PreviewStatus.SUCCEEDED, report.verdict() + ": " + report.verdictMessage());
    }
}
