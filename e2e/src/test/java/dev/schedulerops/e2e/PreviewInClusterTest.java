package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.e2e.support.ServiceAccountTokens;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfilePreview;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.preview.Json;
import dev.schedulerops.operator.preview.PreviewReport;
import dev.schedulerops.operator.preview.PreviewTable;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Previews and receipts as users run them, on the real node: the operator installed from {@code deploy/} with the
 * {@code deploy/previews} component, previews asked with the kubectl plugin ({@code deploy/plugin/kubectl-schedulerops},
 * nothing but kubectl), each answered by a sandbox pod that runs the profile's own kube-scheduler and extender images
 * and kube-apiserver and etcd of the cluster's version as containers on the real node.
 *
 * <p>Fidelity: for each of four changes to a running profile (its weight, Filter to FilterOnlyOne, LeastAllocated to
 * MostAllocated, its labelKey), pods are placed for real under the current configuration, the change is previewed
 * (the profile's current pods), the pods are deleted, the change applied and the same pods created again for real,
 * one at a time as the sandbox places them. The sandbox's current run must put every pod where it is today, and its
 * proposal run every pod where the real scheduler then puts it, but for score ties, where the real node must be one
 * of the tied nodes. With {@code -Dschedulerops.preview.results=FILE} the comparison is written to a results file
 * ({@code bench/preview fidelity}).
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PreviewInClusterTest {
    static final String LABEL = "preview.example.com/rank";
    static final String OTHER_LABEL = "preview.example.com/tier";
    /** Two nodes carry it with the same value: a pod is scored the same on both, a tie. */
    static final String TIE_LABEL = "preview.example.com/twin";

    static final String POOL_KEY = "schedulerops.dev/e2e-pool";
    static final String POOL = "preview";
    static final String PROFILE = "preview-fidelity";
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String PREVIEWS = "schedulerprofilepreviews.schedulerops.dev";
    static final Duration ROLLOUT = Duration.ofMinutes(3);
    static final Duration PLACE = Duration.ofSeconds(60);
    /** Pods per change: more than one node holds, so the changes show (each KWOK node has 4 CPUs). */
    static final int PODS = 6;

    static final String BASE_SPEC =
            """
            labelKey: %s
            verbs: [Filter, Prioritize]
            weight: 1
            extender: {replicas: 1}
            """
                    .formatted(LABEL);

    private Cluster cluster;
    private KubernetesClient client;
    private List<String> nodes;
    private String namespace;
    private Path work;
    private final List<Comparison> comparisons = new ArrayList<>();
    private int changes;
    private final List<String> previewSeconds = new ArrayList<>();

    static void say(String line) {
        System.out.println("[preview] " + line);
        System.out.flush();
    }

    /** One pod of one change: where the sandbox said it would go, and where it went. */
    record Comparison(
            String change,
            String pod,
            String today,
            String current,
            List<String> currentTie,
            String predicted,
            List<String> predictedTie,
            String real) {
        boolean predictedRight() {
            return predictedTie.size() > 1 ? predictedTie.contains(real) : java.util.Objects.equals(predicted, real);
        }

        boolean replayedRight() {
            return currentTie.size() > 1 ? currentTie.contains(today) : java.util.Objects.equals(current, today);
        }
    }

    @BeforeAll
    void install(Cluster cluster) throws IOException {
        this.cluster = cluster;
        this.client = cluster.client();
        RealNode.ensure();
        nodes = cluster.addNodes(4, Map.of(POOL_KEY, POOL));
        client.nodes().list().getItems().forEach(n -> label(n.getMetadata().getName(), LABEL, null));
        client.nodes().list().getItems().forEach(n -> label(n.getMetadata().getName(), OTHER_LABEL, null));
        client.nodes().list().getItems().forEach(n -> label(n.getMetadata().getName(), TIE_LABEL, null));
        // LABEL: 10, 20, 30 and none; OTHER_LABEL: 30, 10, none, 20.
        label(nodes.get(0), LABEL, "10");
        label(nodes.get(1), LABEL, "20");
        label(nodes.get(2), LABEL, "30");
        label(nodes.get(0), OTHER_LABEL, "30");
        label(nodes.get(1), OTHER_LABEL, "10");
        label(nodes.get(3), OTHER_LABEL, "20");
        label(nodes.get(0), TIE_LABEL, "5");
        label(nodes.get(3), TIE_LABEL, "5");
        namespace = cluster.createNamespace("preview", OperatorTests.RESTRICTED)
                .getMetadata()
                .getName();
        work = cluster.workDir("preview");
        Path overlay = work.resolve("overlay");
        Files.createDirectories(overlay);
        Path deploy = cluster.repoRoot().resolve("deploy");
        Files.writeString(
                overlay.resolve("kustomization.yaml"),
                """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - %s
                components:
                  - %s
                """
                        .formatted(overlay.relativize(deploy), overlay.relativize(deploy.resolve("previews"))));
        cluster.kubectl("apply", "--server-side", "-k", overlay.toString())
                .requireSuccess("kubectl apply --server-side -k deploy/ + deploy/previews");
        OperatorTests.awaitTheDeployedOperator(client, ROLLOUT);
        say("The product runs from deploy/ with deploy/previews; KWOK nodes " + nodes + " in pool " + POOL + ".");
    }

    @AfterAll
    void uninstall() {
        if (client == null) {
            return;
        }
        client.resources(SchedulerProfile.class).withName(PROFILE).delete();
        Await.until(
                ROLLOUT,
                "profile " + PROFILE + " is torn down",
                () -> client.resources(SchedulerProfile.class).withName(PROFILE).get() == null);
        // The next class installs deploy/ alone: it must not find the rights previews add.
        cluster.kubectl(
                "delete", "-f", cluster.repoRoot().resolve("deploy/previews").toString(), "--ignore-not-found");
        cluster.kubectl(
                "apply",
                "--server-side",
                "-k",
                cluster.repoRoot().resolve("deploy").toString());
        nodes.forEach(n -> {
            label(n, LABEL, null);
            label(n, OTHER_LABEL, null);
            label(n, TIE_LABEL, null);
        });
        writeResultsIfAsked();
    }

    // --- fidelity: four changes, predicted then real -----------------------------------------------------------

    @Test
    @Order(1)
    void aWeightChangeIsPredictedPodByPod() {
        fidelity("weight 1 -> 20", BASE_SPEC, BASE_SPEC.replace("weight: 1", "weight: 20"));
    }

    @Test
    @Order(2)
    void aVerbChangeIsPredictedPodByPod() {
        fidelity("Filter -> FilterOnlyOne", BASE_SPEC, BASE_SPEC.replace("[Filter, Prioritize]", "[FilterOnlyOne]"));
    }

    @Test
    @Order(3)
    void aScoringStrategyChangeIsPredictedPodByPod() {
        String leastAllocated = BASE_SPEC + scoring("LeastAllocated");
        fidelity("LeastAllocated -> MostAllocated", leastAllocated, BASE_SPEC + scoring("MostAllocated"));
    }

    @Test
    @Order(4)
    void aLabelKeyChangeIsPredictedPodByPod() {
        fidelity("labelKey " + LABEL + " -> " + OTHER_LABEL, BASE_SPEC, BASE_SPEC.replace(LABEL, OTHER_LABEL));
    }

    /**
     * Two empty nodes labelled alike score the same for the first pod: kube-scheduler picks one at random. The
     * preview names both, in each configuration, and the real node is one of them: a tie, never a misprediction.
     */
    @Test
    @Order(5)
    void aTieIsReportedAsATieNamingEveryTiedNode() {
        String twins = BASE_SPEC.replace(LABEL, TIE_LABEL);
        fidelity(
                "a score tie (" + nodes.get(0) + " and " + nodes.get(3) + " alike), weight 1 -> 2",
                twins,
                twins.replace("weight: 1", "weight: 2"),
                1,
                false);
        Comparison tie = comparisons.get(comparisons.size() - 1);
        assertThat(tie.currentTie()).as("the current run's tie").containsExactlyInAnyOrder(nodes.get(0), nodes.get(3));
        assertThat(tie.predictedTie()).as("the proposal's tie").containsExactlyInAnyOrder(nodes.get(0), nodes.get(3));
        assertThat(tie.real()).isIn(nodes.get(0), nodes.get(3));
    }

    static String scoring(String strategy) {
        return """
                pluginConfig:
                  - name: NodeResourcesFit
                    args:
                      scoringStrategy:
                        type: %s
                        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
                """
                .formatted(strategy);
    }

    private void fidelity(String change, String currentSpec, String proposedSpec) {
        fidelity(change, currentSpec, proposedSpec, PODS, true);
    }

    /**
     * @param podCount how many pods are placed
     * @param somePodMoves whether the change must move a pod (a tie's comparison holds whatever the change)
     */
    private void fidelity(String change, String currentSpec, String proposedSpec, int podCount, boolean somePodMoves) {
        String tag = "c" + ++changes;
        applyProfile(currentSpec);
        List<String> pods = new ArrayList<>();
        for (int i = 1; i <= podCount; i++) {
            pods.add(tag + "-pod-" + i);
        }
        Map<String, String> today;
        JsonNode report;
        Map<String, String> real;
        try {
            today = placeForReal(pods);
            say(change + ": today " + today);
            Set<String> before = workloadObjects();
            long start = System.nanoTime();
            Commands.Result json =
                    plugin(kubeconfig(), "preview", "-f", proposal(proposedSpec).toString(), "-o", "json");
            previewSeconds.add(String.format("%.1f", (System.nanoTime() - start) / 1e9));
            assertThat(json.exitCode())
                    .as("exit status of the preview: " + json.stderr())
                    .isIn(0, 1);
            report = Commands.json(json.stdout());
            say(change + ": kubectl schedulerops preview -o json (" + previewSeconds.get(previewSeconds.size() - 1)
                    + " s), as a table:\n" + PreviewTable.render(Json.read(json.stdout(), PreviewReport.class)));
            assertSandboxRemoved(before);

            deletePods(pods);
            applyProfile(proposedSpec);
            real = placeForReal(pods);
            say(change + ": after the change " + real);
        } finally {
            deletePods(pods);
        }

        List<Comparison> mine = new ArrayList<>();
        for (JsonNode row : report.path("rows")) {
            String pod = row.path("pod").asText().substring(namespace.length() + 1);
            mine.add(new Comparison(
                    change,
                    pod,
                    today.get(pod),
                    nodeOf(row.path("current")),
                    Commands.strings(row.at("/current/tiedWith")),
                    nodeOf(row.path("proposal")),
                    Commands.strings(row.at("/proposal/tiedWith")),
                    real.get(pod)));
        }
        comparisons.addAll(mine);
        assertThat(mine).extracting(Comparison::pod).containsExactlyElementsOf(pods);
        assertThat(mine)
                .as("the current configuration's replay puts each pod where it is today (or among the tied nodes)")
                .allMatch(Comparison::replayedRight);
        assertThat(mine)
                .as("the proposal's prediction is where the real scheduler put each pod (or among the tied nodes)")
                .allMatch(Comparison::predictedRight);
        if (somePodMoves) {
            assertThat(mine.stream().filter(c -> !java.util.Objects.equals(c.today(), c.real())))
                    .as("the change moves at least one pod (else the comparison shows nothing)")
                    .isNotEmpty();
        }
    }

    private static String nodeOf(JsonNode outcome) {
        return outcome.path("node").isTextual() ? outcome.path("node").asText() : null;
    }

    // --- receipts ----------------------------------------------------------------------------------------------

    @Test
    @Order(6)
    void aBoundPodsReceiptSaysWhyItIsOnItsNode() {
        applyProfile(BASE_SPEC.replace("weight: 1", "weight: 20"));
        List<String> pods = List.of("receipt-1", "receipt-2");
        Map<String, String> placed = placeForReal(pods);
        Set<String> before = workloadObjects();
        Commands.Result receipt = plugin(kubeconfig(), "explain", "pod", namespace + "/receipt-2");
        say("kubectl schedulerops explain pod " + namespace + "/receipt-2:\n" + receipt.stdout() + receipt.stderr());
        assertThat(receipt.exitCode()).isZero();
        assertThat(receipt.stdout())
                .contains("Receipt for pod " + namespace + "/receipt-2")
                .contains("today:   " + placed.get("receipt-2"))
                .contains("sandbox: " + placed.get("receipt-2") + " (the same node)")
                .contains("NodeResourcesFit", "TaintToleration", "extender (score x weight x 10)", "total")
                .contains(nodes.get(3) + ": rejected by extender: node(s) lack the label \"" + LABEL + "\"");
        Commands.Result json = plugin(kubeconfig(), "explain", "pod", namespace + "/receipt-2", "-o", "json");
        JsonNode r = Commands.json(json.stdout());
        assertThat(r.at("/placement/node").asText()).isEqualTo(placed.get("receipt-2"));
        assertThat(r.at("/placement/scoring/plugins/" + placed.get("receipt-2")).size())
                .isGreaterThan(1);
        assertSandboxRemoved(before);
        deletePods(pods);
    }

    // --- a read-only ServiceAccount's preview writes nothing ---------------------------------------------------

    @Test
    @Order(7)
    void aPreviewByAReadOnlyServiceAccountWritesNothingButItsRequest() throws IOException {
        applyProfile(BASE_SPEC);
        List<String> pods = List.of("ro-1", "ro-2", "ro-3");
        placeForReal(pods);
        String account = "ci-previewer";
        client.serviceAccounts()
                .inNamespace(namespace)
                .resource(new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName(account)
                        .endMetadata()
                        .build())
                .create();
        // What CI gets: the previewer role, and read access to pods and nodes cluster-wide (the admission policy asks).
        cluster.kubectl("create", "clusterrole", "preview-e2e-reader", "--verb=get,list,watch", "--resource=pods,nodes")
                .requireSuccess("clusterrole");
        cluster.kubectl(
                        "create",
                        "clusterrolebinding",
                        "preview-e2e-reader",
                        "--clusterrole=preview-e2e-reader",
                        "--serviceaccount=" + namespace + ":" + account)
                .requireSuccess("clusterrolebinding");
        cluster.kubectl(
                        "create",
                        "clusterrolebinding",
                        "preview-e2e-previewer",
                        "--clusterrole=schedulerops:previewer",
                        "--serviceaccount=" + namespace + ":" + account)
                .requireSuccess("clusterrolebinding");
        try {
            Path kubeconfig = serviceAccountKubeconfig(account);
            assertThat(cluster.kubectl("--kubeconfig", kubeconfig.toString(), "auth", "can-i", "create", "pods", "-A")
                            .stdout()
                            .trim())
                    .isEqualTo("no");
            Map<String, String> before = podNodes();
            Set<String> objectsBefore = workloadObjects();
            Optional<Path> audit = auditLog();
            long auditFrom = audit.map(PreviewInClusterTest::size).orElse(0L);
            Commands.Result preview = plugin(
                    kubeconfig,
                    "preview",
                    "-f",
                    proposal(BASE_SPEC.replace("weight: 1", "weight: 20")).toString());
            say("as " + account + ": exit " + preview.exitCode() + "\n" + preview.stdout() + preview.stderr());
            assertThat(preview.exitCode()).isIn(0, 1);
            assertThat(preview.stdout()).contains("Verdict:");
            Map<String, String> after = podNodes();
            after.keySet().removeIf(k -> k.startsWith(WORKLOAD + "/"));
            before.keySet().removeIf(k -> k.startsWith(WORKLOAD + "/"));
            assertThat(after)
                    .as("no pod outside the workload namespace was created, bound or deleted")
                    .isEqualTo(before);
            if (audit.isPresent()) {
                Map<String, List<String>> writes = writesByUser(audit.get(), auditFrom);
                say("writes in the audit log during the preview, by user: " + writes);
                assertThat(writes.getOrDefault("system:serviceaccount:" + namespace + ":" + account, List.of()))
                        .as("the previewer writes only its request")
                        .allMatch(w -> w.endsWith(" schedulerprofilepreviews")
                                && (w.startsWith("create") || w.startsWith("delete")))
                        .anyMatch(w -> w.startsWith("create"));
                assertThat(writes.getOrDefault(
                                "system:serviceaccount:" + WORKLOAD + ":schedulerops-preview-sandbox", List.of()))
                        .as("the sandbox writes nothing to the live cluster")
                        .isEmpty();
            } else {
                say("no audit log on this cluster (SCHEDULEROPS_AUDIT_POLICY): the pods' nodes before and after"
                        + " are the evidence");
            }
            assertSandboxRemoved(objectsBefore);
        } finally {
            cluster.kubectl("delete", "clusterrolebinding", "preview-e2e-reader", "preview-e2e-previewer");
            cluster.kubectl("delete", "clusterrole", "preview-e2e-reader");
            deletePods(pods);
        }
    }

    // --- refusals start nothing; failures and timeouts leave nothing -------------------------------------------

    @Test
    @Order(8)
    void aProposalTheValidatorRefusesIsRefusedWithItsMessageAndStartsNothing() {
        applyProfile(BASE_SPEC);
        // The CRD refuses it at admission, as it would refuse the profile: no request is made.
        Commands.Result schema = plugin(
                kubeconfig(),
                "preview",
                "-f",
                proposal(BASE_SPEC.replace("weight: 1", "weight: 0")).toString());
        say("weight 0: exit " + schema.exitCode() + ": " + schema.stderr().trim());
        assertThat(schema.exitCode()).isEqualTo(3);
        assertThat(schema.stderr()).contains("spec.proposal.spec.weight").contains("greater than or equal to 1");
        // The operator's validator refuses it (kube-scheduler's rules): Refused, with the message, no sandbox pod.
        assertSandboxRemoved(workloadObjects());
        List<String> sandboxPods = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (var watch = client.pods()
                .inNamespace(WORKLOAD)
                .withLabel(Labels.COMPONENT, Labels.COMPONENT_PREVIEW_SANDBOX)
                .watch(new io.fabric8.kubernetes.client.Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                        sandboxPods.add(action + " " + pod.getMetadata().getName());
                    }

                    @Override
                    public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                })) {
            Commands.Result refused = plugin(
                    kubeconfig(),
                    "preview",
                    "-f",
                    proposal(BASE_SPEC + "plugins:\n  score:\n    enabled: [{name: NoSuchPlugin, weight: 1}]\n")
                            .toString());
            say("an unknown plugin: exit " + refused.exitCode() + ": "
                    + refused.stderr().trim());
            assertThat(refused.exitCode()).isEqualTo(3);
            assertThat(refused.stderr()).contains("refused: InvalidConfig").contains("NoSuchPlugin");
        }
        assertThat(sandboxPods).as("no sandbox pod was ever created").isEmpty();
        assertThat(client.resources(SchedulerProfilePreview.class).list().getItems())
                .as("the plugin deletes its requests")
                .isEmpty();
    }

    @Test
    @Order(9)
    void aSandboxThatFailsOrRunsOutOfTimeIsRemoved() {
        applyProfile(BASE_SPEC);
        Set<String> before = workloadObjects();
        // An extender image of an allowed repository that the registry does not have: the sandbox cannot start.
        Commands.Result failed = plugin(
                kubeconfig(),
                "preview",
                "-f",
                proposal(BASE_SPEC.replace(
                                "extender: {replicas: 1}",
                                "extender: {replicas: 1, image: "
                                        + "ghcr.io/schedulerops/schedulerops-extender:no-such-tag}"))
                        .toString());
        say("a missing image: exit " + failed.exitCode() + ": "
                + failed.stderr().trim());
        assertThat(failed.exitCode()).isEqualTo(4);
        assertThat(failed.stderr()).contains("failed: the sandbox could not run (ImagePullBackOff)");
        assertSandboxRemoved(before);

        // 500 sample pods, twice, in 30 s: the sandbox runs out of time.
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            many.append("---\napiVersion: v1\nkind: Pod\nmetadata: {name: many-")
                    .append(i)
                    .append(", namespace: ")
                    .append(namespace)
                    .append("}\nspec:\n  containers: [{name: c, image: registry.k8s.io/pause:3.10}]\n");
        }
        Path pods = write("many-pods.yaml", many.toString());
        Commands.Result timedOut = plugin(
                kubeconfig(),
                "preview",
                "-f",
                proposal(BASE_SPEC.replace("weight: 1", "weight: 5")).toString(),
                "--pods",
                pods.toString(),
                "--timeout",
                "30");
        say("30 s for 500 pods: exit " + timedOut.exitCode() + ": "
                + timedOut.stderr().trim());
        assertThat(timedOut.exitCode()).isEqualTo(4);
        assertThat(timedOut.stderr()).contains("timed out after 30 s").contains("the sandbox was removed");
        assertSandboxRemoved(before);
    }

    @Test
    @Order(10)
    void theSandboxRunsTheProfilesImagesAndTheClustersVersion() {
        applyProfile(BASE_SPEC);
        Set<String> before = workloadObjects();
        List<Pod> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (var watch = client.pods()
                .inNamespace(WORKLOAD)
                .withLabel(Labels.COMPONENT, Labels.COMPONENT_PREVIEW_SANDBOX)
                .watch(new io.fabric8.kubernetes.client.Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                        seen.add(pod);
                    }

                    @Override
                    public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                })) {
            Commands.Result preview = plugin(
                    kubeconfig(),
                    "preview",
                    "-f",
                    proposal(BASE_SPEC.replace("weight: 1", "weight: 3")).toString());
            assertThat(preview.exitCode()).as(preview.stderr()).isIn(0, 1);
        }
        assertThat(seen).isNotEmpty();
        SchedulerProfile live =
                client.resources(SchedulerProfile.class).withName(PROFILE).get();
        Map<String, String> images = new LinkedHashMap<>();
        seen.get(0).getSpec().getInitContainers().forEach(c -> images.put(c.getName(), c.getImage()));
        say("the sandbox's images: " + images);
        String version = client.getKubernetesVersion().getGitVersion();
        assertThat(images)
                .containsEntry("scheduler-current", live.getStatus().getSchedulerImage())
                .containsEntry("scheduler-proposal", live.getStatus().getSchedulerImage())
                .containsEntry("extender-current", live.getStatus().getExtenderImage())
                // a weight change runs the same extender: the current run's serves both schedulers
                .doesNotContainKey("extender-proposal")
                .containsEntry("kube-apiserver", "registry.k8s.io/kube-apiserver:" + version);
        assertThat(live.getStatus().getSchedulerImage()).endsWith(":" + version);
        assertSandboxRemoved(before);
    }

    // --- helpers -----------------------------------------------------------------------------------------------

    /** Applies the profile and waits until it is Ready at its generation (the scheduler runs the new config). */
    private void applyProfile(String spec) {
        SchedulerProfile profile = Serialization.unmarshal(
                "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata:\n  name: " + PROFILE
                        + "\nspec:\n" + spec.indent(2),
                SchedulerProfile.class);
        client.resource(profile).fieldManager("preview-e2e").forceConflicts().serverSideApply();
        Await.until(ROLLOUT, PROFILE + " is Ready at its generation", () -> {
            SchedulerProfile p =
                    client.resources(SchedulerProfile.class).withName(PROFILE).get();
            return p.getStatus() != null
                    && p.getStatus().getObservedGeneration() != null
                    && p.getStatus()
                            .getObservedGeneration()
                            .equals(p.getMetadata().getGeneration())
                    && p.getStatus().getConditions().stream()
                            .anyMatch(c ->
                                    c.getType().equals("Ready") && c.getStatus().equals("True"));
        });
        // Ready counts available pods; the old scheduler pod may still be terminating, and a pod created now would
        // go to whichever of the two still holds the lease.
        Await.until(
                ROLLOUT,
                "one " + PROFILE + " scheduler pod runs",
                () -> client.pods()
                                .inNamespace(WORKLOAD)
                                .withLabel(Labels.INSTANCE, PROFILE)
                                .withLabel(Labels.COMPONENT, Labels.COMPONENT_SCHEDULER)
                                .list()
                                .getItems()
                                .size()
                        == 1);
    }

    /** Creates the pods one at a time, each once the previous one is decided; returns pod to node (null: none). */
    private Map<String, String> placeForReal(List<String> pods) {
        Map<String, String> placed = new LinkedHashMap<>();
        for (String name : pods) {
            Pod pod = testPod(name);
            client.pods().inNamespace(namespace).resource(pod).create();
            Pod decided = client.pods()
                    .inNamespace(namespace)
                    .withName(name)
                    .waitUntilCondition(PreviewInClusterTest::decided, PLACE.toSeconds(), TimeUnit.SECONDS);
            placed.put(name, decided.getSpec().getNodeName());
        }
        return placed;
    }

    /** A pod of the profile on the test's pool: 1 or 0.5 CPU, so that nodes fill and the changes show. */
    private Pod testPod(String name) {
        Pod pod = RestrictedPods.forScheduler(namespace, name, PROFILE);
        pod.getSpec().setNodeSelector(Map.of(POOL_KEY, POOL));
        boolean big = name.hashCode() % 2 == 0;
        pod.getSpec()
                .getContainers()
                .get(0)
                .getResources()
                .setRequests(
                        Map.of("cpu", new Quantity(big ? "1" : "500m"), "memory", new Quantity(big ? "2Gi" : "512Mi")));
        pod.getMetadata().setLabels(Map.of("app", "preview-e2e"));
        return pod;
    }

    static boolean decided(Pod pod) {
        if (pod == null) {
            return false;
        }
        if (pod.getSpec().getNodeName() != null) {
            return true;
        }
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> c.getType().equals("PodScheduled")
                                && c.getStatus().equals("False")
                                && "Unschedulable".equals(c.getReason()));
    }

    private void deletePods(List<String> pods) {
        pods.forEach(p -> client.pods()
                .inNamespace(namespace)
                .withName(p)
                .withGracePeriod(0)
                .delete());
        Await.until(Duration.ofSeconds(60), "the pods are gone", () -> pods.stream()
                .allMatch(p -> client.pods().inNamespace(namespace).withName(p).get() == null));
    }

    /**
     * Nothing of any sandbox is left: no sandbox pod (it goes within its 5 s grace period), no preview request, and
     * the workload namespace holds exactly the Secrets, ConfigMaps, Jobs and pods it held before.
     */
    private void assertSandboxRemoved(Set<String> before) {
        Await.until(Duration.ofSeconds(60), "no sandbox pod is left", () -> client.pods()
                .inNamespace(WORKLOAD)
                .withLabel(Labels.COMPONENT, Labels.COMPONENT_PREVIEW_SANDBOX)
                .list()
                .getItems()
                .isEmpty());
        assertThat(client.resources(SchedulerProfilePreview.class).list().getItems())
                .as("the plugin deletes its requests")
                .isEmpty();
        assertThat(workloadObjects()).as("the workload namespace's objects").isEqualTo(before);
    }

    /** The workload namespace's Secrets, ConfigMaps, Jobs and pods (not those being deleted), as "Kind/name". */
    private Set<String> workloadObjects() {
        Set<String> objects = new java.util.TreeSet<>();
        client.secrets()
                .inNamespace(WORKLOAD)
                .list()
                .getItems()
                .forEach(o -> objects.add("Secret/" + o.getMetadata().getName()));
        client.configMaps()
                .inNamespace(WORKLOAD)
                .list()
                .getItems()
                .forEach(o -> objects.add("ConfigMap/" + o.getMetadata().getName()));
        client.batch()
                .v1()
                .jobs()
                .inNamespace(WORKLOAD)
                .list()
                .getItems()
                .forEach(o -> objects.add("Job/" + o.getMetadata().getName()));
        client.pods().inNamespace(WORKLOAD).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .forEach(o -> objects.add("Pod/" + o.getMetadata().getName()));
        return objects;
    }

    private Path proposal(String spec) {
        return write(
                "proposal-" + Integer.toHexString(spec.hashCode()) + ".yaml",
                "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata:\n  name: " + PROFILE
                        + "\nspec:\n" + spec.indent(2));
    }

    private Path write(String name, String text) {
        try {
            return Files.writeString(work.resolve(name), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path kubeconfig() {
        return cluster.kubeconfig();
    }

    /** The kubectl plugin as users run it: kubectl on PATH, KUBECONFIG. */
    private Commands.Result plugin(Path kubeconfig, String... args) {
        List<String> command = new ArrayList<>();
        command.add(
                cluster.repoRoot().resolve("deploy/plugin/kubectl-schedulerops").toString());
        command.addAll(List.of(args));
        String kubectl = Commands.kubectl();
        return Commands.run(
                command,
                null,
                Map.of(
                        "KUBECONFIG",
                        kubeconfig.toString(),
                        "PATH",
                        Path.of(kubectl).getParent() + ":" + System.getenv("PATH")),
                Duration.ofMinutes(8));
    }

    private Path serviceAccountKubeconfig(String account) {
        String token = ServiceAccountTokens.request(client, namespace, account, Duration.ofHours(1));
        return write(
                account + ".kubeconfig",
                """
                apiVersion: v1
                kind: Config
                clusters:
                - name: e2e
                  cluster:
                    server: %s
                    insecure-skip-tls-verify: true
                users:
                - name: %s
                  user:
                    token: %s
                contexts:
                - name: e2e
                  context:
                    cluster: e2e
                    user: %s
                current-context: e2e
                """
                        .formatted(client.getConfiguration().getMasterUrl(), account, token, account));
    }

    private Map<String, String> podNodes() {
        Map<String, String> nodes = new java.util.TreeMap<>();
        client.pods()
                .inAnyNamespace()
                .list()
                .getItems()
                .forEach(p -> nodes.put(
                        p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(),
                        String.valueOf(p.getSpec().getNodeName())));
        return nodes;
    }

    private Optional<Path> auditLog() {
        Path log = cluster.kubeconfig().getParent().resolve("logs/audit.log");
        return Files.isRegularFile(log) ? Optional.of(log) : Optional.empty();
    }

    static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every write after byte {@code from} of the audit log, as "verb resource[/subresource]", by user. */
    static Map<String, List<String>> writesByUser(Path auditLog, long from) {
        Map<String, List<String>> writes = new java.util.TreeMap<>();
        try (var in = Files.newInputStream(auditLog)) {
            in.skipNBytes(from);
            new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                    .lines()
                    .map(Commands::json)
                    .filter(e -> e.path("stage").asText().equals("ResponseComplete"))
                    .filter(e -> List.of("create", "update", "patch", "delete", "deletecollection")
                            .contains(e.path("verb").asText()))
                    .forEach(e -> writes.computeIfAbsent(e.at("/user/username").asText(), u -> new ArrayList<>())
                            .add(e.path("verb").asText() + " "
                                    + e.at("/objectRef/resource").asText()
                                    + (e.at("/objectRef/subresource").asText().isEmpty()
                                            ? ""
                                            : "/"
                                                    + e.at("/objectRef/subresource")
                                                            .asText())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writes;
    }

    private void label(String node, String key, String value) {
        dev.schedulerops.e2e.support.MergePatch.nodeLabel(client, node, key, value);
    }

    private void writeResultsIfAsked() {
        String target = System.getProperty("schedulerops.preview.results");
        if (target == null || target.isBlank() || comparisons.isEmpty()) {
            return;
        }
        StringBuilder body = new StringBuilder();
        body.append(
                        "Fidelity of `kubectl schedulerops preview` on the real node (PreviewInClusterTest): the product from"
                                + " deploy/ with deploy/previews, a profile on 4 KWOK nodes (labels ")
                .append(LABEL)
                .append(" 10/20/30/none, ")
                .append(OTHER_LABEL)
                .append(" 30/10/none/20; 4 CPUs each), ")
                .append(PODS)
                .append(" pods per change (1 or 0.5 CPU), created one at a time. For each change: the pods placed"
                        + " for real under the current configuration (today), the preview (sandbox current and"
                        + " proposal runs), the pods deleted, the change applied, the same pods created again for"
                        + " real.\n\n");
        body.append("| change | pods | replay = today | prediction = real | ties (current / proposal) | preview took"
                + " (s) |\n|---|---:|---:|---:|---:|---:|\n");
        Map<String, List<Comparison>> byChange = new LinkedHashMap<>();
        comparisons.forEach(c ->
                byChange.computeIfAbsent(c.change(), k -> new ArrayList<>()).add(c));
        int i = 0;
        for (var entry : byChange.entrySet()) {
            List<Comparison> list = entry.getValue();
            body.append("| ")
                    .append(entry.getKey())
                    .append(" | ")
                    .append(list.size())
                    .append(" | ")
                    .append(list.stream().filter(Comparison::replayedRight).count())
                    .append(" | ")
                    .append(list.stream().filter(Comparison::predictedRight).count())
                    .append(" | ")
                    .append(list.stream().filter(c -> c.currentTie().size() > 1).count())
                    .append(" / ")
                    .append(list.stream()
                            .filter(c -> c.predictedTie().size() > 1)
                            .count())
                    .append(" | ")
                    .append(i < previewSeconds.size() ? previewSeconds.get(i) : "?")
                    .append(" |\n");
            i++;
        }
        body.append("\n## Every pod\n\n| change | pod | today | sandbox current | predicted | real |\n"
                + "|---|---|---|---|---|---|\n");
        for (Comparison c : comparisons) {
            body.append("| ")
                    .append(c.change())
                    .append(" | ")
                    .append(c.pod())
                    .append(" | ")
                    .append(c.today())
                    .append(" | ")
                    .append(c.current())
                    .append(c.currentTie().size() > 1 ? " (tie " + c.currentTie() + ")" : "")
                    .append(" | ")
                    .append(c.predicted())
                    .append(c.predictedTie().size() > 1 ? " (tie " + c.predictedTie() + ")" : "")
                    .append(" | ")
                    .append(c.real())
                    .append(" |\n");
        }
        new dev.schedulerops.e2e.support.ResultsFile(
                        "Preview fidelity on the real node", System.getProperty("schedulerops.preview.command", "?"))
                .write(Path.of(target), body.toString());
    }
}
