package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.ChildProcess;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.Loopback;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.ServiceAccountTokens;
import dev.schedulerops.operator.preview.LoopbackPorts;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The extender jar against the real API server of {@code e2e/cluster}: Bind creates real Bindings (also under a
 * ServiceAccount allowed only {@code pods/binding create}), failures come back in {@code Error}, the node cache
 * follows label changes, and readiness waits for the cache to sync.
 *
 * <p>The test creates its own Node objects (no kubelet, tainted {@code NoSchedule}) so that no other test's pods
 * land on them, and a label key of its own, so it never disturbs the shared nodes.
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExtenderOnClusterTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The scheduler the test's pods name; the extenders bind only its pods. */
    private static final String SCHEDULER = "schedulerops-e2e-nobody";

    private final List<String> nodes = new ArrayList<>();
    private Cluster cluster;
    private KubernetesClient client;
    private String namespace;
    private String labelKey;
    private String nodeA;
    private String nodeB;
    private int port;
    private int healthPort;
    private Path jar;

    @BeforeAll
    void startExtender(Cluster cluster) {
        this.cluster = cluster;
        this.client = cluster.client();
        jar = E2eSettings.extenderJar();
        namespace = cluster.createNamespace("extender-e2e").getMetadata().getName();
        labelKey = "e2e.schedulerops.dev/" + namespace;
        nodeA = createNode("a", "5");
        nodeB = createNode("b", null);
        port = LoopbackPorts.free();
        healthPort = LoopbackPorts.free();
        startJar("extender", port, healthPort, cluster.kubeconfig(), "--node-cache");
        Await.until(WAIT, "the extender to become ready", () -> Loopback.status(healthPort, "/readyz") == 200);
    }

    @AfterAll
    void deleteNodes() {
        for (String node : nodes) {
            client.nodes().withName(node).delete();
        }
    }

    @Test
    void readinessWaitsForTheNodeCacheToSync() throws Exception {
        Path unreachable = cluster.workDir("unreachable").resolve("kubeconfig.yaml");
        Files.writeString(unreachable, kubeconfig("https://127.0.0.1:" + LoopbackPorts.free(), "no-token"));
        int otherHealthPort = LoopbackPorts.free();
        ChildProcess blind =
                startJar("extender-unsynced", LoopbackPorts.free(), otherHealthPort, unreachable, "--node-cache");
        Await.until(
                WAIT,
                "the unsynced extender to serve /healthz",
                () -> Loopback.status(otherHealthPort, "/healthz") == 200);

        Await.holdsFor(
                Duration.ofSeconds(3),
                "the unsynced extender answers /readyz with 503",
                () -> Loopback.status(otherHealthPort, "/readyz") == 503);
        assertThat(Loopback.status(otherHealthPort, "/readyz"))
                .as("ready without a synced cache")
                .isEqualTo(503);
        blind.stop(Duration.ofSeconds(10));

        assertThat(Loopback.status(healthPort, "/readyz"))
                .as("the extender with a reachable API server")
                .isEqualTo(200);
    }

    @Test
    void nodeCacheFollowsLabelChanges() {
        String names = "{\"Pod\":{\"metadata\":{\"name\":\"probe\",\"namespace\":\"" + namespace
                + "\"}},\"NodeNames\":[\"" + nodeA + "\",\"" + nodeB + "\"]}";

        Await.until(WAIT, "filter to keep only " + nodeA, () -> keptNames("/filter", names)
                .equals(List.of(nodeA)));
        JsonNode reply = post(port, "/filter", names);
        assertThat(reply.at("/FailedAndUnresolvableNodes/" + nodeB).asText())
                .isEqualTo("node(s) lack the label \"" + labelKey + "\" required by the SchedulerProfile extender");

        label(nodeB, "9");
        Await.until(WAIT, "FilterOnlyOne to pick " + nodeB, () -> keptNames("/filter_onlyone", names)
                .equals(List.of(nodeB)));
        assertThat(post(port, "/prioritize", names).toString())
                .isEqualTo("[{\"Host\":\"" + nodeA + "\",\"Score\":5},{\"Host\":\"" + nodeB + "\",\"Score\":10}]");

        label(nodeA, null);
        Await.until(WAIT, "filter to drop " + nodeA, () -> keptNames("/filter", names)
                .equals(List.of(nodeB)));

        client.nodes().withName(nodeB).delete();
        Await.until(WAIT, "the cache to forget the deleted " + nodeB, () -> post(port, "/filter", names)
                .at("/FailedAndUnresolvableNodes/" + nodeB)
                .asText()
                .contains("not yet known"));
    }

    @Test
    void bindCreatesARealBinding() {
        Pod pod = createUnscheduledPod("bind-me");
        String node = createNode("bind", "1");

        JsonNode reply = post(port, "/bind", bindArgs(pod, node));

        assertThat(reply.toString()).isEqualTo("{\"Error\":\"\"}");
        assertThat(client.pods()
                        .inNamespace(namespace)
                        .withName("bind-me")
                        .get()
                        .getSpec()
                        .getNodeName())
                .isEqualTo(node);
    }

    /**
     * The extender binds only a pod of its own scheduler whose UID matches; everything else is refused with one
     * answer that does not tell whether a pod of that name exists, and nothing is bound.
     */
    @Test
    void bindRefusesWhatIsNotItsSchedulersPodAndRevealsNothing() {
        Pod pod = createUnscheduledPod("wrong-uid");
        Pod foreign = createUnscheduledPod("foreign", "another-scheduler");
        String node = createNode("fail", "1");
        String noUid = bindArgs(pod, node).replace(pod.getMetadata().getUid(), "");
        String missingPod = bindArgs(pod, node).replace("\"wrong-uid\"", "\"no-such-pod\"");
        String wrongUid =
                bindArgs(pod, node).replace(pod.getMetadata().getUid(), "00000000-0000-0000-0000-000000000000");

        assertThat(Loopback.postJson(port, "/bind", noUid).statusCode()).isEqualTo(400);
        var refused = java.util.stream.Stream.of(missingPod, wrongUid, bindArgs(foreign, node))
                .map(body -> Loopback.postJson(port, "/bind", body))
                .toList();
        assertThat(refused).extracting(HttpResponse::statusCode).containsOnly(403);
        assertThat(refused)
                .extracting(HttpResponse::body)
                .as("one answer for a missing pod, a wrong UID and another scheduler's pod")
                .containsOnly(refused.get(0).body())
                .allSatisfy(body -> assertThat(body).doesNotContain("no-such-pod", "foreign", "404", "409"));
        for (String name : List.of("wrong-uid", "foreign")) {
            assertThat(client.pods()
                            .inNamespace(namespace)
                            .withName(name)
                            .get()
                            .getSpec()
                            .getNodeName())
                    .as("%s stays unbound", name)
                    .isNull();
        }
    }

    /** A verb the profile did not configure is not served: the same 404 as any unknown path. */
    @Test
    void anUnconfiguredVerbIsNotServed() {
        int otherPort = LoopbackPorts.free();
        int otherHealth = LoopbackPorts.free();
        startJar(
                "extender-filter-only", otherPort, otherHealth, cluster.kubeconfig(), "--node-cache", "--verbs=Filter");
        Await.until(
                WAIT, "the filter-only extender to become ready", () -> Loopback.status(otherHealth, "/readyz") == 200);
        Pod pod = createUnscheduledPod("not-bound-here");
        assertThat(Loopback.postJson(otherPort, "/bind", bindArgs(pod, createNode("unserved", "1")))
                        .statusCode())
                .isEqualTo(404);
        assertThat(Loopback.postJson(otherPort, "/prioritize", "{}").statusCode())
                .isEqualTo(404);
        assertThat(Loopback.postJson(otherPort, "/no-such-verb", "{}").statusCode())
                .isEqualTo(404);
    }

    @Test
    void bindNeedsOnlyPodsGetAndBindingCreate() throws Exception {
        client.serviceAccounts()
                .inNamespace(namespace)
                .resource(new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("extender")
                        .endMetadata()
                        .build())
                .create();
        client.rbac()
                .roles()
                .inNamespace(namespace)
                .resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("extender-bind")
                        .endMetadata()
                        .withRules(
                                new PolicyRuleBuilder()
                                        .withApiGroups("")
                                        .withResources("pods/binding")
                                        .withVerbs("create")
                                        .build(),
                                new PolicyRuleBuilder()
                                        .withApiGroups("")
                                        .withResources("pods")
                                        .withVerbs("get")
                                        .build())
                        .build())
                .create();
        client.rbac()
                .roleBindings()
                .inNamespace(namespace)
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("extender-bind")
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", "extender-bind")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName("extender")
                        .withNamespace(namespace)
                        .endSubject()
                        .build())
                .create();
        String token = ServiceAccountTokens.request(client, namespace, "extender", Duration.ofMinutes(10));
        Path kubeconfig = cluster.workDir("service-account").resolve("kubeconfig.yaml");
        Files.writeString(kubeconfig, kubeconfig(client.getMasterUrl().toString(), token));
        int restrictedPort = LoopbackPorts.free();
        int restrictedHealthPort = LoopbackPorts.free();
        startJar("extender-restricted", restrictedPort, restrictedHealthPort, kubeconfig);
        Await.until(
                WAIT,
                "the restricted extender to become ready",
                () -> Loopback.status(restrictedHealthPort, "/readyz") == 200);
        Pod pod = createUnscheduledPod("bind-as-sa");
        String node = createNode("sa", "1");

        JsonNode reply = post(restrictedPort, "/bind", bindArgs(pod, node));

        assertThat(reply.toString()).isEqualTo("{\"Error\":\"\"}");
        assertThat(client.pods()
                        .inNamespace(namespace)
                        .withName("bind-as-sa")
                        .get()
                        .getSpec()
                        .getNodeName())
                .isEqualTo(node);
    }

    private ChildProcess startJar(String name, int listenPort, int healthPort, Path kubeconfig, String... extraArgs) {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-jar",
                jar.toString(),
                "--label-key=" + labelKey,
                "--bind-address=127.0.0.1",
                "--port=" + listenPort,
                "--health-port=" + healthPort,
                "--scheduler-name=" + SCHEDULER,
                "--shutdown-grace=1",
                "--shutdown-delay=0"));
        command.addAll(List.of(extraArgs));
        return cluster.startProcess(name, command, Map.of("KUBECONFIG", kubeconfig.toString()));
    }

    private String createNode(String suffix, String labelValue) {
        String name = namespace + "-" + suffix;
        NodeBuilder node = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(Cluster.E2E_LABEL, "true")
                .endMetadata()
                .withNewSpec()
                .addNewTaint()
                .withKey("schedulerops.dev/e2e-extender")
                .withEffect("NoSchedule")
                .endTaint()
                .endSpec();
        if (labelValue != null) {
            node.editMetadata().addToLabels(labelKey, labelValue).endMetadata();
        }
        client.nodes().resource(node.build()).create();
        nodes.add(name);
        return name;
    }

    private void label(String node, String value) {
        MergePatch.nodeLabel(client, node, labelKey, value);
    }

    private Pod createUnscheduledPod(String name) {
        return createUnscheduledPod(name, SCHEDULER);
    }

    private Pod createUnscheduledPod(String name, String schedulerName) {
        return client.pods()
                .inNamespace(namespace)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewSpec()
                        .withSchedulerName(schedulerName)
                        .addNewContainer()
                        .withName("app")
                        .withImage("registry.example/app:1")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
    }

    private String bindArgs(Pod pod, String node) {
        return "{\"PodName\":\"" + pod.getMetadata().getName() + "\",\"PodNamespace\":\"" + namespace
                + "\",\"PodUID\":\"" + pod.getMetadata().getUid() + "\",\"Node\":\"" + node + "\"}";
    }

    private static String kubeconfig(String server, String token) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: e2e
                  cluster:
                    server: %s
                    insecure-skip-tls-verify: true
                users:
                - name: e2e
                  user:
                    token: %s
                contexts:
                - name: e2e
                  context:
                    cluster: e2e
                    user: e2e
                current-context: e2e
                """
                .formatted(server, token);
    }

    private List<String> keptNames(String path, String body) {
        List<String> kept = new ArrayList<>();
        post(port, path, body).path("NodeNames").forEach(n -> kept.add(n.asText()));
        return kept;
    }

    private JsonNode post(int listenPort, String path, String body) {
        HttpResponse<String> response = Loopback.postJson(listenPort, path, body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
    }
}
