package dev.schedulerops.operator.cli;

import dev.schedulerops.operator.preview.Json;
import dev.schedulerops.operator.preview.PodSandbox;
import dev.schedulerops.operator.preview.ResultEnvelope;
import dev.schedulerops.operator.preview.SandboxPlan;
import dev.schedulerops.operator.preview.SandboxPodRenderer;
import dev.schedulerops.operator.preview.SandboxResult;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sandbox prepare|drive}: the steps of a preview's sandbox pod, run by its containers (the operator
 * renders the pod; see SandboxPodRenderer). Not for people: {@code sandbox local} and the kubectl plugin are.
 */
@Command(
        name = "sandbox",
        mixinStandardHelpOptions = true,
        description = {
            "The steps of a preview's sandbox pod (prepare, drive), run by its containers with the plan in "
                    + SandboxPodRenderer.PLAN_ENV + "; 'sandbox local' runs a whole sandbox on this machine."
        },
        subcommands = {LocalSandboxCommand.class})
public final class SandboxCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "STEP", description = "prepare or drive")
    String step;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (step == null) {
            spec.commandLine().usage(spec.commandLine().getErr());
            return 2;
        }
        String planJson = System.getenv(SandboxPodRenderer.PLAN_ENV);
        if (planJson == null || planJson.isBlank()) {
            spec.commandLine().getErr().println("sandbox: " + SandboxPodRenderer.PLAN_ENV + " is not set");
            return 2;
        }
        PodSandbox sandbox = new PodSandbox(Json.read(planJson, SandboxPlan.class));
        try {
            switch (step) {
                case "prepare" -> sandbox.prepare();
                case "drive" -> {
                    try (KubernetesClient live = new KubernetesClientBuilder().build()) {
                        SandboxResult result = sandbox.drive(
                                live,
                                System.getenv(SandboxPodRenderer.POD_NAMESPACE_ENV),
                                System.getenv(SandboxPodRenderer.POD_NAME_ENV));
                        ResultEnvelope.lines(result).forEach(out::println);
                    }
                }
                default -> {
                    spec.commandLine().getErr().println("sandbox: no step '" + step + "' (prepare, drive)");
                    return 2;
                }
            }
            out.flush();
            return 0;
        } catch (java.io.IOException | RuntimeException e) {
            out.println(ResultEnvelope.failure(step + ": " + e.getMessage()));
            out.flush();
            e.printStackTrace(spec.commandLine().getErr());
            return 1;
        }
    }
}
