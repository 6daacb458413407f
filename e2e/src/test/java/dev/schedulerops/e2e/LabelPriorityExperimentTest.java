package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.sun.net.httpserver.HttpServer;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.ChildProcess;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.KubeSchedulerProcess;
import dev.schedulerops.e2e.support.LabelToBindReport;
import dev.schedulerops.e2e.support.Loopback;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.preview.LoopbackPorts;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The label-priority experiment, end to end: the operator (its jar, as a user runs it) renders a SchedulerProfile;
 * the real kube-scheduler binary runs with the configuration from the ConfigMap the operator wrote, only its
 * extender URL pointed at the real extender jar running locally (KWOK runs no containers); pods land where the
 * labels say. Each step prints a line of narrative, which `./demo` shows.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LabelPriorityExperimentTest {
    static final String LABEL = "priority.lixueduan.com";
    static final List<String> NODES = List.of("node-1", "node-2", "node-3");
    static final Duration BIND_TIMEOUT = Duration.ofSeconds(90);
    private static final YAMLMapper YAML = new YAMLMapper();

    private Cluster cluster;
    private KubernetesClient client;
    private String namespace;
    private ChildProcess operator;
    private ChildProcess extender;
    private int extenderPort;
    private int extenderHealthPort;
    private int podCounter;

    static void say(String line) {
        System.out.println("[experiment] " + line);
        System.out.flush();
    }

    @BeforeAll
    void startOperatorAndExtender(Cluster cluster) throws Exception {
        this.cluster = cluster;
        this.client = cluster.client();
        for (String node : NODES) {
            ensureKwokNode(node);
        }
        // Only the experiment's nodes may carry the label, and none does at the start.
        client.nodes().list().getItems().forEach(n -> setLabel(n.getMetadata().getName(), null));
        namespace = cluster.createNamespace("experiment").getMetadata().getName();
        OperatorTests.installCrd(client);

        say("KWOK nodes " + NODES + " are Ready; none carries " + LABEL + ".");
        operator = cluster.startProcess(
                "operator",
                List.of(
                        java(),
                        "-jar",
                        E2eSettings.operatorJar().toString(),
                        "run",
                        "--no-leader-election",
                        "--workload-namespace=" + namespace,
                        "--profile-selector=" + OperatorTests.RUN_LABEL + "=" + namespace,
                        "--http-bind-address=127.0.0.1",
                        "--http-port=" + LoopbackPorts.free()),
                Map.of("KUBECONFIG", cluster.kubeconfig().toString()));
        say("Started the operator: java -jar operator/target/schedulerops-operator.jar run (workload namespace "
                + namespace + ").");

        extenderPort = LoopbackPorts.free();
        extenderHealthPort = LoopbackPorts.free();
        extender = startExtender();
        say("Started the extender: java -jar extender/target/schedulerops-extender.jar --label-key " + LABEL
                + " --node-cache, on 127.0.0.1:" + extenderPort + ".");
    }

    @AfterAll
    void cleanUp() {
        if (client != null) {
            NODES.forEach(n -> setLabel(n, null));
            if (operator != null) {
                OperatorTests.deleteProfiles(client, namespace);
            }
        }
    }

    @Test
    @Order(1)
    void filterOnlyOneFollowsTheHighestLabel() throws Exception {
        KubeSchedulerProcess scheduler =
                deployProfileAndStartScheduler("label-priority-only-one", "verbs: [FilterOnlyOne, Prioritize]\n");

        Pod waiting = createPod("label-priority-only-one");
        Event failed = awaitEvent(waiting, "FailedScheduling");
        say("Step 3: no node has the label, so pod " + name(waiting) + " stays Pending: \"" + failed.getMessage()
                + "\"");
        // The names-only Filter's reason as `kubectl describe pod` shows it, grouped by kube-scheduler.
        assertThat(failed.getMessage())
                .contains("node(s) lack the label \"" + LABEL + "\" required by the SchedulerProfile extender");
        assertThat(pod(waiting).getSpec().getNodeName()).isNull();

        // Nothing but the label: kube-scheduler retries the pod when it hears of the node's change, and the extender
        // catches up with the API server before it would reject every node again (LabelToBindTest times it).
        long labelled = System.nanoTime();
        setLabel("node-1", "10");
        assertThat(awaitBound(waiting)).isEqualTo("node-1");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - labelled);
        say("Step 4: labelled node-1=10 -> the pending pod " + name(waiting) + " was bound to node-1 " + millis
                + " ms later; nothing else touched it.");
        assertThat(millis).as("label to binding, ms").isLessThanOrEqualTo(LabelToBindReport.MAX_MILLIS);

        setLabel("node-2", "20");
        awaitExtenderChooses("node-2");
        String second = awaitBound(createPod("label-priority-only-one"));
        say("Step 5: labelled node-2=20 -> a new pod went to " + second + " (the only node FilterOnlyOne keeps).");
        assertThat(second).isEqualTo("node-2");

        setLabel("node-1", "30");
        awaitExtenderChooses("node-1");
        String third = awaitBound(createPod("label-priority-only-one"));
        say("Step 6: relabelled node-1=30 -> a new pod went to " + third + ".");
        assertThat(third).isEqualTo("node-1");
        scheduler.close();
    }

    @Test
    @Order(2)
    void filterAndPrioritizeWithAWeightThatLetsTheLabelDecide() throws Exception {
        setLabel("node-1", "30");
        setLabel("node-2", "20");
        awaitExtenderChooses("node-1");
        KubeSchedulerProcess scheduler =
                deployProfileAndStartScheduler("label-priority", "verbs: [Filter, Prioritize]\nweight: 20\n");
        String first = awaitBound(createPod("label-priority"));
        say("Step 7a: Filter + Prioritize (weight 20), node-1=30, node-2=20, node-3 unlabelled -> pod went to " + first
                + ".");
        assertThat(first).isEqualTo("node-1");

        setLabel("node-2", "50");
        awaitExtenderChooses("node-2");
        String second = awaitBound(createPod("label-priority"));
        say("Step 7a: relabelled node-2=50 -> a new pod went to " + second + ".");
        assertThat(second).isEqualTo("node-2");
        scheduler.close();
    }

    /**
     * Bind acts on the API, so it needs mutual TLS: this profile keeps the default, the operator issues its CA and
     * certificates into Secrets, and a second extender process runs with the extender's Secret (serving certificate,
     * client CA) while kube-scheduler calls it with the scheduler's client certificate, as their pods would mount them.
     */
    @Test
    @Order(3)
    void theExtenderCanBindPodsOverMutualTls() throws Exception {
        setLabel("node-1", "30");
        setLabel("node-2", "20");
        String profile = "label-priority-bind";
        int port = LoopbackPorts.free();
        int healthPort = LoopbackPorts.free();
        MutualTlsProfile tls = applyMutualTlsProfile(profile, "verbs: [Filter, Prioritize, Bind]\nweight: 20\n");
        ChildProcess bindingExtender = cluster.startProcess(
                "extender-" + profile,
                List.of(
                        java(),
                        "-jar",
                        E2eSettings.extenderJar().toString(),
                        "--label-key=" + LABEL,
                        "--bind-address=127.0.0.1",
                        "--port=" + port,
                        "--health-port=" + healthPort,
                        "--node-cache",
                        "--verbs=Filter,Prioritize,Bind",
                        "--scheduler-name=" + profile,
                        "--tls-mode=mutual",
                        "--tls-cert-file=" + tls.extenderFile(Names.TLS_CERT),
                        "--tls-key-file=" + tls.extenderFile(Names.TLS_KEY),
                        "--tls-client-ca-file=" + tls.extenderFile(Names.CLIENT_CA)),
                Map.of("KUBECONFIG", cluster.kubeconfig().toString()));
        try {
            Await.until(
                    Duration.ofSeconds(60),
                    "the binding extender is ready",
                    () -> Loopback.status(healthPort, "/readyz") == 200);
            KubeSchedulerProcess scheduler = cluster.startKubeScheduler(
                            "kube-scheduler-" + profile, YAML.writeValueAsString(tls.configFor(port)))
                    .awaitReady(Duration.ofSeconds(60));
            String node = awaitBound(createPod(profile));
            // The extender counts a request once it has answered it, so the pod can be seen bound a moment before.
            Await.until(
                    Duration.ofSeconds(10),
                    "the extender counts its bind call",
                    () -> metric(healthPort, "schedulerops_extender_requests_total", "verb=\"bind\"") > 0);
            say("Step 7b: Bind needs mutual TLS: kube-scheduler called an extender on https://127.0.0.1:" + port
                    + " with the client certificate the operator issued, and the extender created the Binding itself;"
                    + " the pod is on " + node + ".");
            assertThat(node).isEqualTo("node-1");
            scheduler.close();
        } finally {
            bindingExtender.stop(Duration.ofSeconds(10));
        }
    }

    @Test
    @Order(4)
    void whenTheExtenderIsDownIgnorableDecides() throws Exception {
        setLabel("node-1", "30");
        KubeSchedulerProcess strict = deployProfileAndStartScheduler(
                "label-priority-strict", "verbs: [Filter, Prioritize]\nextender:\n  ignorable: false\n");
        KubeSchedulerProcess lenient = deployProfileAndStartScheduler(
                "label-priority-lenient", "verbs: [Filter, Prioritize]\nextender:\n  ignorable: true\n");
        extender.stop(Duration.ofSeconds(10));
        assertThat(extender.isAlive())
                .as("the extender is stopped, so the next bind happens without it")
                .isFalse();
        say("Step 7c: stopped the extender.");

        Pod stuck = createPod("label-priority-strict");
        Event failed = awaitEvent(stuck, "FailedScheduling");
        say("Step 7c: ignorable: false -> pod " + name(stuck) + " stays Pending: \"" + failed.getMessage() + "\"");
        assertThat(failed.getMessage()).contains("127.0.0.1:" + extenderPort + "/filter");
        assertThat(pod(stuck).getSpec().getNodeName()).isNull();

        // Only node-3 fits this pod, and node-3 lacks the label: the extender, had it been asked, would have
        // rejected it. Landing there proves the scheduler went on without the extender.
        Pod onlyUnlabelled = createPod("label-priority-lenient");
        String node = awaitBound(onlyUnlabelled);
        say("Step 7c: ignorable: true -> a pod that fits only the unlabelled node-3 was scheduled without the"
                + " extender, on " + node + ".");
        assertThat(node).isEqualTo("node-3");

        extender = startExtender();
        assertThat(awaitBound(stuck)).isEqualTo("node-1");
        say("Step 7c: restarted the extender -> the pending pod " + name(stuck) + " went to node-1.");
        strict.close();
        lenient.close();
    }

    @Test
    @Order(5)
    void anExternalExtenderOfTheUsersOwnNarrowsWhatTheBundledOneKeeps() throws Exception {
        setLabel("node-1", "30");
        setLabel("node-2", "20");
        awaitExtenderChooses("node-1");
        // The user's extender: keeps only node-2 of the names it is sent (names only: nodeCacheCapable).
        AtomicInteger calls = new AtomicInteger();
        HttpServer external = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        external.createContext("/gpu/filter", exchange -> {
            calls.incrementAndGet();
            JsonNode args = YAML.readTree(exchange.getRequestBody());
            List<String> sent = new ArrayList<>();
            args.path("NodeNames").forEach(n -> sent.add(n.asText()));
            String kept = sent.contains("node-2") ? "[\"node-2\"]" : "[]";
            byte[] body =
                    ("{\"NodeNames\":" + kept + ",\"FailedNodes\":{},\"Error\":\"\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        external.start();
        try {
            int port = external.getAddress().getPort();
            KubeSchedulerProcess scheduler = deployProfileAndStartScheduler(
                    "label-priority-external",
                    "verbs: [Filter, Prioritize]\nweight: 20\nextenders:\n  - urlPrefix: http://127.0.0.1:" + port
                            + "/gpu\n    filterVerb: filter\n    nodeCacheCapable: true\n");
            String node = awaitBound(createPod("label-priority-external"));
            say("Step 7d: an external extender (spec.extenders, filterVerb filter on 127.0.0.1:" + port
                    + ") keeps only node-2; the bundled one prefers node-1=30 -> the pod went to " + node + " after "
                    + calls.get() + " call(s) to the external extender.");
            assertThat(node).isEqualTo("node-2");
            assertThat(calls.get()).isPositive();
            scheduler.close();
        } finally {
            external.stop(0);
        }
    }

    /** Applies a profile, waits for the operator to write its ConfigMap, runs kube-scheduler with that config. */
    /**
     * Step 8, a preview: the sandbox replay (`sandbox local`: the same engine as the in-cluster preview, its
     * components as local processes here) says where a weight change will move the profile's pods; the change is then
     * made, the same pods created again, and they go where the preview said. The in-cluster form (the kubectl plugin,
     * the sandbox as a pod) is PreviewInClusterTest's, on the real node.
     */
    @Test
    @Order(6)
    void aPreviewSaysWhereAChangeWillMovePodsBeforeItRollsOut() throws Exception {
        setLabel("node-1", "30");
        setLabel("node-2", "20");
        awaitExtenderChooses("node-1");
        String profile = "label-priority-preview";
        String current = "verbs: [Filter, Prioritize]\nweight: 1\n";
        String proposed = "verbs: [Filter, Prioritize]\nweight: 20\n";
        KubeSchedulerProcess scheduler = deployProfileAndStartScheduler(profile, current);
        List<String> today = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            today.add(awaitBound(createPod(profile, "7")));
        }
        say("Step 8: weight 1 places four pods of 7 CPUs: " + today + ".");

        Path proposal = cluster.workDir("preview").resolve("proposal.yaml");
        java.nio.file.Files.writeString(proposal, profileYaml(profile, proposed));
        say("Step 8: kubectl schedulerops preview -f proposal.yaml (weight 20), here with `sandbox local`:");
        var preview = dev.schedulerops.e2e.support.Commands.run(
                List.of(
                        java(),
                        "-jar",
                        E2eSettings.operatorJar().toString(),
                        "sandbox",
                        "local",
                        "-f",
                        proposal.toString(),
                        "--bin-dir",
                        cluster.binDir().toString(),
                        "--extender-jar",
                        E2eSettings.extenderJar().toString(),
                        // The sandbox's own limit comes first, so that a slow or stuck run says which of its
                        // components were still running; their logs stay in the work directory.
                        "--timeout",
                        "420",
                        "--work-dir",
                        cluster.workDir("preview").resolve("sandbox").toString(),
                        "--keep-work-dir",
                        "-o",
                        "json"),
                null,
                Map.of("KUBECONFIG", cluster.kubeconfig().toString()),
                Duration.ofMinutes(8));
        assertThat(preview.exitCode()).as(preview.stderr()).isZero();
        var report = dev.schedulerops.operator.preview.Json.read(
                preview.stdout(), dev.schedulerops.operator.preview.PreviewReport.class);
        dev.schedulerops.operator.preview.PreviewTable.render(report).lines().forEach(l -> say("  " + l));
        List<String> predicted =
                report.rows().stream().map(r -> r.proposal().node()).toList();
        assertThat(report.rows().stream().map(r -> r.current().node()).toList())
                .as("the replay of the current configuration is today's placement")
                .isEqualTo(today);

        scheduler.close();
        // Only this profile's pods go: the earlier steps' stay, as they were in the preview's copy.
        List<Pod> mine = client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> profile.equals(p.getSpec().getSchedulerName()))
                .toList();
        mine.forEach(p -> client.pods()
                .inNamespace(namespace)
                .withName(name(p))
                .withGracePeriod(0)
                .delete());
        Await.until(
                Duration.ofSeconds(60), "the pods are gone", () -> mine.stream().allMatch(p -> pod(p) == null));
        scheduler = deployProfileAndStartScheduler(profile, proposed);
        List<String> real = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            real.add(awaitBound(createPod(profile, "7")));
        }
        say("Step 8: applied weight 20; the same four pods went to " + real + ", as the preview said.");
        assertThat(real).isEqualTo(predicted).isNotEqualTo(today);
        scheduler.close();
    }

    private String profileYaml(String profileName, String specTail) {
        return "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata:\n  name: " + profileName
                + "\n  labels:\n    " + OperatorTests.RUN_LABEL + ": " + namespace + "\nspec:\n  labelKey: " + LABEL
                + "\n" + withoutTls(specTail).indent(2);
    }

    /** The extender runs here as a plain process on loopback, so profiles ask for plain HTTP. */
    private static String withoutTls(String specTail) {
        return specTail.contains("extender:\n")
                ? specTail.replace("extender:\n", "extender:\n  tls:\n    mode: Disabled\n")
                : specTail + "extender:\n  tls:\n    mode: Disabled\n";
    }

    private KubeSchedulerProcess deployProfileAndStartScheduler(String profileName, String specTail)
            throws IOException {
        // The extender runs here as a plain process on loopback, so the profile asks for plain HTTP; mutual TLS
        // (the default) is proven on the real node by InClusterTest.
        SchedulerProfile profile = ProfileYaml.readOne(profileYaml(profileName, specTail));
        client.resource(profile).serverSideApply();
        Names names = new Names(profileName, namespace);
        // The configuration of this spec (a change of a running profile rewrites the ConfigMap).
        String weight = profile.getSpec().getWeight() == null
                ? null
                : "weight: " + profile.getSpec().getWeight();
        ConfigMap configMap = client.configMaps()
                .inNamespace(namespace)
                .withName(names.schedulerConfig())
                .waitUntilCondition(
                        cm -> cm != null
                                && (weight == null
                                        || cm.getData().get(Names.CONFIG_FILE).contains(weight)),
                        120,
                        TimeUnit.SECONDS);
        ObjectNode config = (ObjectNode) YAML.readTree(configMap.getData().get(Names.CONFIG_FILE));
        String rendered = config.at("/extenders/0/urlPrefix").asText();
        assertThat(rendered).startsWith("http://");
        assertThat(config.at("/extenders/0").has("tlsConfig")).isFalse();
        ((ObjectNode) config.at("/extenders/0")).put("urlPrefix", "http://127.0.0.1:" + extenderPort);
        say("Applied SchedulerProfile " + profileName + " (" + specTail.strip().replaceAll("\\s*\\n\\s*", " ")
                + "); the operator rolled out the extender Deployment, then wrote ConfigMap "
                + names.schedulerConfig() + " (extender " + rendered + ").");
        KubeSchedulerProcess scheduler = cluster.startKubeScheduler(
                        "kube-scheduler-" + profileName, YAML.writeValueAsString(config))
                .awaitReady(Duration.ofSeconds(60));
        say("Started the real kube-scheduler with that configuration, extender URL pointed at 127.0.0.1:" + extenderPort
                + ".");
        return scheduler;
    }

    /** A profile with mutual TLS, its Secrets written to files, and its scheduler config pointed at a local port. */
    record MutualTlsProfile(Path dir, ObjectNode config, String serverName) {
        Path extenderFile(String key) {
            return dir.resolve("extender-" + key);
        }

        ObjectNode configFor(int port) {
            ObjectNode copy = config.deepCopy();
            ObjectNode extender = (ObjectNode) copy.at("/extenders/0");
            extender.put("urlPrefix", "https://127.0.0.1:" + port);
            ObjectNode tls = (ObjectNode) extender.path("tlsConfig");
            tls.put("certFile", dir.resolve("scheduler-" + Names.TLS_CERT).toString());
            tls.put("keyFile", dir.resolve("scheduler-" + Names.TLS_KEY).toString());
            tls.put("caFile", dir.resolve("scheduler-" + Names.CA_CERT).toString());
            // The serving certificate names the extender Service, not 127.0.0.1.
            tls.put("serverName", serverName);
            return copy;
        }
    }

    private MutualTlsProfile applyMutualTlsProfile(String profileName, String specTail) throws IOException {
        SchedulerProfile profile = ProfileYaml.readOne("apiVersion: schedulerops.dev/v1beta1\n"
                + "kind: SchedulerProfile\nmetadata:\n  name: " + profileName + "\n  labels:\n    "
                + OperatorTests.RUN_LABEL + ": " + namespace + "\nspec:\n  labelKey: " + LABEL + "\n"
                + specTail.indent(2));
        client.resource(profile).serverSideApply();
        Names names = new Names(profileName, namespace);
        ConfigMap configMap = client.configMaps()
                .inNamespace(namespace)
                .withName(names.schedulerConfig())
                .waitUntilCondition(cm -> cm != null, 120, TimeUnit.SECONDS);
        ObjectNode config = (ObjectNode) YAML.readTree(configMap.getData().get(Names.CONFIG_FILE));
        assertThat(config.at("/extenders/0/urlPrefix").asText()).startsWith("https://");
        Path dir = cluster.workDir("tls-" + profileName);
        java.nio.file.Files.createDirectories(dir);
        for (var secret : List.of(
                Map.entry("extender-", names.extenderTlsSecret()),
                Map.entry("scheduler-", names.schedulerClientSecret()))) {
            client.secrets()
                    .inNamespace(namespace)
                    .withName(secret.getValue())
                    .get()
                    .getData()
                    .forEach((key, value) -> {
                        try {
                            java.nio.file.Files.write(
                                    dir.resolve(secret.getKey() + key),
                                    java.util.Base64.getDecoder().decode(value));
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
        }
        say("Applied SchedulerProfile " + profileName + " (" + specTail.strip().replaceAll("\\s*\\n\\s*", " ")
                + ", tls Mutual by default); the operator issued its CA and certificates into Secrets "
                + names.extenderTlsSecret() + " and " + names.schedulerClientSecret() + ".");
        return new MutualTlsProfile(dir, config, names.extenderDnsNames().get(2));
    }

    private static double metric(int healthPort, String name, String labelFilter) {
        return Loopback.get(healthPort, "/metrics")
                .body()
                .lines()
                .filter(l -> l.startsWith(name + "{") && l.contains(labelFilter))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    private ChildProcess startExtender() throws Exception {
        ChildProcess process = cluster.startProcess(
                "extender",
                List.of(
                        java(),
                        "-jar",
                        E2eSettings.extenderJar().toString(),
                        "--label-key=" + LABEL,
                        "--bind-address=127.0.0.1",
                        "--port=" + extenderPort,
                        "--health-port=" + extenderHealthPort,
                        "--node-cache"),
                Map.of("KUBECONFIG", cluster.kubeconfig().toString()));
        Await.until(
                Duration.ofSeconds(60),
                "the extender is ready",
                () -> Loopback.status(extenderHealthPort, "/readyz") == 200);
        return process;
    }

    /**
     * Waits until the extender's own node cache reflects the labels, by asking it what kube-scheduler would:
     * which single node FilterOnlyOne keeps.
     */
    private void awaitExtenderChooses(String expectedNode) {
        String request = "{\"Pod\":{\"metadata\":{\"name\":\"probe\",\"namespace\":\"" + namespace
                + "\"}},\"NodeNames\":[\"node-1\",\"node-2\",\"node-3\"]}";
        Await.until(Duration.ofSeconds(30), "the extender chooses " + expectedNode, () -> Loopback.postJson(
                        extenderPort, "/filter_onlyone", request)
                .body()
                .contains("\"NodeNames\":[\"" + expectedNode + "\"]"));
    }

    private Pod createPod(String schedulerName) {
        return createPod(schedulerName, "10m");
    }

    private Pod createPod(String schedulerName, String cpu) {
        Map<String, String> nodeSelector =
                schedulerName.equals("label-priority-lenient") ? Map.of("kubernetes.io/hostname", "node-3") : Map.of();
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(schedulerName + "-pod-" + (++podCounter))
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(schedulerName)
                .withNodeSelector(nodeSelector)
                .addNewToleration()
                .withKey("kwok.x-k8s.io/node")
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .addNewContainer()
                .withName("app")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .addToRequests("cpu", new Quantity(cpu))
                .endResources()
                .withNewSecurityContext()
                .withAllowPrivilegeEscalation(false)
                .endSecurityContext()
                .endContainer()
                .endSpec()
                .build();
        return client.resource(pod).create();
    }

    private String awaitBound(Pod pod) {
        Pod bound = client.pods()
                .inNamespace(namespace)
                .withName(name(pod))
                .waitUntilCondition(
                        p -> p != null && p.getSpec().getNodeName() != null,
                        BIND_TIMEOUT.toSeconds(),
                        TimeUnit.SECONDS);
        return bound.getSpec().getNodeName();
    }

    private Event awaitEvent(Pod pod, String reason) {
        Instant deadline = Instant.now().plus(BIND_TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            Optional<Event> event = client.v1().events().inNamespace(namespace).list().getItems().stream()
                    .filter(e -> name(pod).equals(e.getInvolvedObject().getName()))
                    .filter(e -> reason.equals(e.getReason()))
                    .findFirst();
            if (event.isPresent()) {
                return event.get();
            }
            Await.sleep(500);
        }
        throw new AssertionError("no " + reason + " event for pod " + name(pod) + " within " + BIND_TIMEOUT);
    }

    private Pod pod(Pod pod) {
        return client.pods().inNamespace(namespace).withName(name(pod)).get();
    }

    private static String name(Pod pod) {
        return pod.getMetadata().getName();
    }

    private void setLabel(String node, String value) {
        MergePatch.nodeLabel(client, node, LABEL, value);
    }

    private void ensureKwokNode(String name) {
        if (client.nodes().withName(name).get() != null) {
            return;
        }
        Map<String, Quantity> capacity =
                Map.of("cpu", new Quantity("32"), "memory", new Quantity("256Gi"), "pods", new Quantity("110"));
        client.resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToAnnotations("kwok.x-k8s.io/node", "fake")
                        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                        .addToLabels("kubernetes.io/hostname", name)
                        .addToLabels("kubernetes.io/os", "linux")
                        .addToLabels("type", "kwok")
                        .endMetadata()
                        .withNewStatus()
                        .withCapacity(capacity)
                        .withAllocatable(capacity)
                        .endStatus()
                        .build())
                .create();
        client.nodes().withName(name).waitUntilCondition(LabelPriorityExperimentTest::isReady, 60, TimeUnit.SECONDS);
    }

    private static boolean isReady(Node node) {
        return node != null
                && node.getStatus() != null
                && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** Sum of a Prometheus counter's samples whose labels contain {@code labelFilter}. */
    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
