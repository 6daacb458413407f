package dev.schedulerops.operator.cli;

import dev.schedulerops.operator.api.SchedulerProfile;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code explain pod NAMESPACE/NAME}: why a pod is (not) scheduled, read with the current kubeconfig (read only: the
 * pod, its events, the SchedulerProfiles and the nodes). The same diagnosis the operator records as a Warning event on
 * the pod, plus the scheduler's last reasons, the labelled nodes and what to change.
 */
@Command(
        name = "explain",
        mixinStandardHelpOptions = true,
        description = {
            "Explain why a pod is Pending: its scheduler, the SchedulerProfile's status, the scheduler's last reasons,"
                    + " the nodes carrying the profile's label, and what to change.",
            "Reads with the current kubeconfig (KUBECONFIG or ~/.kube/config): get pods, list events in the pod's"
                    + " namespace, list schedulerprofiles and nodes. With previews on, also asks for a receipt"
                    + " (creates, reads and deletes one SchedulerProfilePreview)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:explained", "1:the pod or the cluster cannot be read", "2:bad usage"})
public final class ExplainCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "pod", description = "What to explain: only pod is supported.")
    String kind;

    @Parameters(index = "1", paramLabel = "NAMESPACE/NAME", description = "The pod.")
    String ref;

    @picocli.CommandLine.Option(
            names = "--receipt",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Also ask the operator for a receipt (previews turned on, deploy/previews): the pod replayed"
                    + " in a sandbox, each node's verdict and each plugin's score (default: on; --no-receipt: off).")
    boolean receipt;

    @picocli.CommandLine.Option(
            names = "--receipt-timeout",
            defaultValue = "300",
            paramLabel = "SECONDS",
            description = "How long the receipt's sandbox may run (default: ${DEFAULT-VALUE}).")
    int receiptTimeoutSeconds;

    private final Supplier<KubernetesClient> clients;

    /** Reads with the current kubeconfig. */
    public ExplainCommand() {
        this(() -> new KubernetesClientBuilder().build());
    }

    /** @param clients a new client for each run (it is closed after) */
    public ExplainCommand(Supplier<KubernetesClient> clients) {
        this.clients = clients;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!"pod".equals(kind) && !"pods".equals(kind) && !"po".equals(kind)) {
            err.println("explain: only pods can be explained, not '" + kind + "'");
            return 2;
        }
        int slash = ref.indexOf('/');
        if (slash <= 0 || slash == ref.length() - 1 || ref.indexOf('/', slash + 1) >= 0) {
            err.println("explain: give the pod as NAMESPACE/NAME, not '" + ref + "'");
            return 2;
        }
        String namespace = ref.substring(0, slash);
        String name = ref.substring(slash + 1);
        try (KubernetesClient client = clients.get()) {
            Pod pod = client.pods().inNamespace(namespace).withName(name).get();
            if (pod == null) {
                err.println("explain: pod " + namespace + "/" + name + " not found");
                return 1;
            }
            List<Event> events = client.v1()
                    .events()
                    .inNamespace(namespace)
                    .withField("involvedObject.uid", pod.getMetadata().getUid())
                    .list()
                    .getItems();
            List<SchedulerProfile> profiles =
                    client.resources(SchedulerProfile.class).list().getItems();
            List<Node> nodes = client.nodes().list().getItems();
            out.print(PodExplanation.render(pod, profiles, events, nodes, Instant.now()));
            out.flush();
            String schedulerName = pod.getSpec().getSchedulerName();
            var profile = dev.schedulerops.operator.reconcile.UnscheduledPods.profileFor(
                    schedulerName == null ? dev.schedulerops.operator.model.Names.DEFAULT_SCHEDULER : schedulerName,
                    profiles);
            if (receipt && profile.isPresent()) {
                out.println();
                out.println("Receipt (a sandbox replay of this pod under its profile as it runs)");
                out.flush();
                String answer = ReceiptRequest.ask(
                        client,
                        namespace,
                        name,
                        profile.get().getMetadata().getName(),
                        java.time.Duration.ofSeconds(receiptTimeoutSeconds));
                out.print(answer.endsWith("\n") ? answer : answer + "\n");
                out.flush();
            }
            return 0;
        } catch (KubernetesClientException e) {
            err.println("explain: could not read the cluster: " + e.getMessage());
            return 1;
        }
    }
}
