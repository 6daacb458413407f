package dev.schedulerops.operator.cli;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ApiServerEndpoint;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ImagePolicy;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.render.Yaml;
import dev.schedulerops.operator.runtime.OperatorConfig;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `render -f PROFILE.yaml`: prints every object a profile becomes, like `helm template`, without a cluster. */
@Command(
        name = "render",
        mixinStandardHelpOptions = true,
        description = "Print the objects SchedulerProfiles become, as a YAML stream, without touching a cluster.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:rendered", "1:a profile is invalid or a file cannot be read", "2:bad usage"})
public final class RenderCommand implements Callable<Integer> {
    public static final String DEFAULT_KUBERNETES_VERSION = "1.33.13";

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = {"-f", "--filename"},
            required = true,
            paramLabel = "FILE",
            description = "A YAML file holding one or more SchedulerProfiles; '-' reads standard input. Repeatable.")
    List<Path> files;

    @Option(
            names = "--kube-version",
            paramLabel = "VERSION",
            defaultValue = DEFAULT_KUBERNETES_VERSION,
            description = "The cluster's Kubernetes version: picks the kube-scheduler image and the plugin rules"
                    + " (default: ${DEFAULT-VALUE}).")
    String kubeVersion;

    @Option(
            names = {"-n", "--workload-namespace"},
            paramLabel = "NAMESPACE",
            defaultValue = ClusterFacts.DEFAULT_WORKLOAD_NAMESPACE,
            description = "The operator's workload namespace, where the namespaced objects go (default:"
                    + " ${DEFAULT-VALUE}).")
    String workloadNamespace;

    @Option(
            names = "--allowed-image-repositories",
            paramLabel = "REPO[,REPO...]",
            description = "Image repositories (or prefixes ending in /) profiles may name, as the operator setting"
                    + " SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES (default: the extender image's repository and"
                    + " registry.k8s.io/kube-scheduler).")
    String allowedImageRepositories;

    @Option(
            names = "--api-server",
            paramLabel = "ADDRESS:PORT",
            description = "Where pods reach the API server (the kubernetes Service's EndpointSlice: kubectl -n default"
                    + " get endpointslice kubernetes), which the extenders' egress policy admits. Repeatable. Unset:"
                    + " the egress of an extender that uses the API is left open.")
    List<String> apiServer;

    @Option(
            names = "--extender-image",
            paramLabel = "IMAGE",
            description = "The default extender image (default: the bundled one of this version).")
    String extenderImage;

    @Option(
            names = "--operator-image",
            paramLabel = "IMAGE",
            description =
                    "The operator's image, as its setting SCHEDULEROPS_OPERATOR_IMAGE: it runs the scheduler pods'"
                            + " init container await-extender and sidecar release-lease (default: this version's operator"
                            + " image).")
    String operatorImage;

    @Option(
            names = "--release-lease-sidecar",
            arity = "1",
            defaultValue = "true",
            paramLabel = "true|false",
            description = "As the operator's setting SCHEDULEROPS_RELEASE_LEASE_SIDECAR: whether scheduler pods run the"
                    + " release-lease native sidecar (default true).")
    boolean releaseLeaseSidecar;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ClusterFacts facts = ClusterFacts.forVersion(kubeVersion).withWorkloadNamespace(workloadNamespace);
        if (extenderImage != null) {
            facts = facts.withExtenderImage(extenderImage);
        }
        if (operatorImage != null) {
            facts = facts.withOperatorImage(operatorImage);
        }
        facts = facts.withReleaseLeaseSidecar(releaseLeaseSidecar);
        if (apiServer != null) {
            try {
                facts = facts.withApiServer(
                        apiServer.stream().map(ApiServerEndpoint::parse).toList());
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--api-server: " + e.getMessage());
            }
        }
        facts = facts.withImages(
                allowedImageRepositories == null
                        ? ImagePolicy.defaults(facts.extenderImage(), facts.schedulerImageRepository())
                        : new ImagePolicy(OperatorConfig.namespaces(allowedImageRepositories)));
        List<String> problems = new ArrayList<>();
        StringBuilder rendered = new StringBuilder();
        for (Path file : files) {
            List<SchedulerProfile> profiles;
            try {
                profiles = read(file);
            } catch (ProfileYaml.InvalidProfileFileException e) {
                problems.addAll(e.problems());
                continue;
            } catch (IOException e) {
                problems.add(file + ": cannot read: " + e.getMessage());
                continue;
            }
            for (SchedulerProfile profile : profiles) {
                // Profiles are cluster-scoped: the API server drops a namespace, and so does render.
                profile.getMetadata().setNamespace(null);
                String id = "SchedulerProfile " + profile.getMetadata().getName();
                RenderResult result = ProfileRenderer.render(profile, facts);
                if (result instanceof RenderResult.Invalid invalid) {
                    invalid.errors().forEach(e -> problems.add(file + ": " + id + ": " + e));
                } else if (result instanceof RenderResult.Valid valid) {
                    for (HasMetadata object : valid.state().all()) {
                        rendered.append("---\n# Source: ").append(id).append('\n');
                        rendered.append(Yaml.write(object));
                    }
                }
            }
        }
        if (!problems.isEmpty()) {
            problems.forEach(err::println);
            err.flush();
            return 1;
        }
        out.print(rendered);
        out.flush();
        return 0;
    }

    private static List<SchedulerProfile> read(Path file) throws IOException {
        if (file.toString().equals("-")) {
            return ProfileYaml.readAll("<stdin>", new String(System.in.readAllBytes(), StandardCharsets.UTF_8));
        }
        return ProfileYaml.readAll(file);
    }
}
