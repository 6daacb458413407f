package dev.schedulerops.operator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ImagePolicy;
import dev.schedulerops.operator.preview.Json;
import dev.schedulerops.operator.preview.LocalSandbox;
import dev.schedulerops.operator.preview.PreviewPlanner;
import dev.schedulerops.operator.preview.PreviewReport;
import dev.schedulerops.operator.preview.PreviewTable;
import dev.schedulerops.operator.preview.Receipt;
import dev.schedulerops.operator.preview.SamplePods;
import dev.schedulerops.operator.preview.SandboxException;
import dev.schedulerops.operator.preview.SandboxPlan;
import dev.schedulerops.operator.preview.SandboxResult;
import dev.schedulerops.operator.runtime.OperatorConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sandbox local}: a preview or a receipt with the sandbox's components run as processes on this machine, from
 * binaries given (etcd, kube-apiserver and kube-scheduler of the cluster's minor, the extender jar), reading the
 * cluster of the current kubeconfig. For tests, benchmarks and developers; users run the in-cluster form (the kubectl
 * plugin), which runs the profile's own images.
 */
@Command(
        name = "local",
        mixinStandardHelpOptions = true,
        description = {
            "Preview a SchedulerProfile change (-f), or explain a pod (--explain), in a sandbox run as local processes:"
                    + " etcd, kube-apiserver and kube-scheduler from --bin-dir and the extender jar. Reads the cluster"
                    + " of the current kubeconfig (list only); writes nothing to it."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:previewed: no pod that schedules today becomes unschedulable (or explained)",
            "1:the proposal leaves unschedulable a pod that schedules today",
            "2:bad usage",
            "3:the proposal is refused (the operator would refuse it too)",
            "4:the sandbox failed or the cluster cannot be read"
        })
public final class LocalSandboxCommand implements Callable<Integer> {
    static final int FAIL = 1;
    static final int USAGE = 2;
    static final int REFUSED = 3;
    static final int BROKEN = 4;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @ArgGroup(multiplicity = "1")
    What what;

    static final class What {
        @Option(
                names = {"-f", "--filename"},
                paramLabel = "FILE",
                description = "The proposed SchedulerProfile (new, or a change of one of that name).")
        Path proposal;

        @Option(names = "--explain", paramLabel = "NAMESPACE/NAME", description = "A pod to explain instead.")
        String explain;
    }

    @Option(names = "--pods", paramLabel = "FILE", description = "Sample pods to place instead of the profile's own.")
    Path pods;

    @Option(
            names = "--bin-dir",
            required = true,
            paramLabel = "DIR",
            description = "etcd, kube-apiserver, kube-scheduler.")
    Path binDir;

    @Option(names = "--extender-jar", required = true, paramLabel = "JAR", description = "The extender's jar.")
    Path extenderJar;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            description = "Where the sandbox keeps its files (deleted after).")
    Path workDir;

    @Option(names = "--keep-work-dir", description = "Leave the work directory (the components' logs) in place.")
    boolean keepWorkDir;

    @Option(
            names = {"-o", "--output"},
            defaultValue = "table",
            paramLabel = "FORMAT",
            description = "table (default) or json.")
    String output;

    @Option(names = "--timeout", defaultValue = "600", paramLabel = "SECONDS", description = "The whole sandbox.")
    int timeoutSeconds;

    @Option(names = "--workload-namespace", defaultValue = ClusterFacts.DEFAULT_WORKLOAD_NAMESPACE, paramLabel = "NS")
    String workloadNamespace;

    @Option(names = "--allowed-image-repositories", paramLabel = "REPO[,REPO...]")
    String allowedImageRepositories;

    @Option(names = "--extender-image", paramLabel = "IMAGE")
    String extenderImage;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!output.equals("table") && !output.equals("json")) {
            err.println("sandbox local: -o is table or json, not " + output);
            return USAGE;
        }
        try (KubernetesClient live = new KubernetesClientBuilder().build()) {
            ClusterFacts facts = facts(live);
            SandboxPlan.Limits limits = new SandboxPlan.Limits(timeoutSeconds, 30, 100);
            PreviewPlanner.Outcome outcome;
            if (what.explain != null) {
                String[] ref = what.explain.split("/", 2);
                if (ref.length != 2 || ref[0].isEmpty() || ref[1].isEmpty()) {
                    err.println("sandbox local: give the pod as NAMESPACE/NAME, not " + what.explain);
                    return USAGE;
                }
                var pod = live.pods().inNamespace(ref[0]).withName(ref[1]).get();
                if (pod == null) {
                    err.println("sandbox local: pod " + what.explain + " not found");
                    return BROKEN;
                }
                String schedulerName = pod.getSpec().getSchedulerName();
                Optional<SchedulerProfile> profile = live.resources(SchedulerProfile.class).list().getItems().stream()
                        .filter(p -> p.effectiveSchedulerName().equals(schedulerName))
                        .findFirst();
                if (profile.isEmpty()) {
                    err.println("sandbox local: no SchedulerProfile has schedulerName " + schedulerName);
                    return BROKEN;
                }
                outcome = PreviewPlanner.explain(profile.get(), ref[0], ref[1], facts, limits);
            } else {
                List<SchedulerProfile> proposals = ProfileYaml.readAll(what.proposal);
                if (proposals.size() != 1) {
                    err.println("sandbox local: " + what.proposal + " must hold one SchedulerProfile, it holds "
                            + proposals.size());
                    return USAGE;
                }
                SchedulerProfile proposal = proposals.get(0);
                Optional<SchedulerProfile> current = Optional.ofNullable(live.resources(SchedulerProfile.class)
                        .withName(proposal.getMetadata().getName())
                        .get());
                List<JsonNode> samples =
                        pods == null ? List.of() : SamplePods.read(pods.toString(), Files.readString(pods));
                outcome = PreviewPlanner.preview(proposal, current, samples, facts, limits);
            }
            if (outcome instanceof PreviewPlanner.Refused refused) {
                err.println("refused (" + refused.reason() + "):");
                refused.messages().forEach(m -> err.println("  " + m));
                return REFUSED;
            }
            SandboxPlan plan = ((PreviewPlanner.Planned) outcome).plan();
            Path dir = workDir != null ? workDir : Files.createTempDirectory("schedulerops-sandbox-");
            SandboxResult result;
            try (LocalSandbox sandbox =
                    new LocalSandbox(LocalSandbox.Binaries.in(binDir, extenderJar), plan, dir, keepWorkDir)) {
                result = sandbox.run(live);
            }
            return print(result, out);
        } catch (ProfileYaml.InvalidProfileFileException e) {
            e.problems().forEach(err::println);
            return USAGE;
        } catch (IOException e) {
            err.println("sandbox local: " + e.getMessage());
            return USAGE;
        } catch (SandboxException | KubernetesClientException e) {
            err.println("sandbox local: " + e.getMessage());
            return BROKEN;
        }
    }

    private int print(SandboxResult result, PrintWriter out) {
        if (result.mode() == SandboxPlan.Mode.EXPLAIN) {
            Receipt receipt = Receipt.of(result);
            out.print(output.equals("json") ? Json.write(receipt) + "\n" : receipt.text());
            out.flush();
            return 0;
        }
        PreviewReport report = PreviewReport.of(result);
        out.print(output.equals("json") ? Json.write(report) + "\n" : PreviewTable.render(report));
        out.flush();
        return report.verdict().equals(PreviewReport.PASS) ? 0 : FAIL;
    }

    private ClusterFacts facts(KubernetesClient live) {
        var version = live.getKubernetesVersion();
        ClusterFacts facts = ClusterFacts.forVersion(version.getGitVersion()).withWorkloadNamespace(workloadNamespace);
        if (extenderImage != null) {
            facts = facts.withExtenderImage(extenderImage);
        }
        return facts.withImages(
                allowedImageRepositories == null
                        ? ImagePolicy.defaults(facts.extenderImage(), facts.schedulerImageRepository())
                        : new ImagePolicy(OperatorConfig.namespaces(allowedImageRepositories)));
    }
}
