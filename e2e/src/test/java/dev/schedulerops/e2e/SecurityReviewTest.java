package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.httpguard.GuardLimits;
import dev.schedulerops.httpguard.HealthPortFlood;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
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
 * The second security review's findings, tried for real on the real node, the product installed from deploy/ (mutual
 * TLS, {@code ignorable: false}, Bind), each from the attacker's position:
 *
 * <ol>
 *   <li>any pod: a pod in another namespace floods both health ports (the extender's 8081 and the operator's 8080)
 *       with the connection limit plus 50 silent and trickling connections for 60 s, reopening each one closed, with
 *       the NetworkPolicy enforcer off (the servers alone must hold): /readyz and /healthz answer the node within 1 s
 *       throughout, the extender stays Ready, the operator is not restarted, and a pod of the profile is bound during
 *       the attack;
 *   <li>any pod, the enforcer on: refused on both health ports (only the node, i.e. the kubelet, reaches them);
 *   <li>a compromised extender: its pod reaches the API server and nothing else, not even another port of the API
 *       server's own address (kube-router refuses it), while it binds a pod;
 *   <li>a node: its kubelet's own credential may set an ordinary label on its Node (why the profile's status warns,
 *       LabelKeyUnprotected) but is refused a {@code node-restriction.kubernetes.io/} one (NodeRestriction, on in the
 *       test API server).
 * </ol>
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecurityReviewTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String PROFILE = "secrev";
    static final String LABEL = "secrev.example.com/rank";
    static final Duration ROLLOUT = Duration.ofMinutes(3);
    static final Duration ATTACK = Duration.ofSeconds(60);
    static final int FLOOD_CONNECTIONS = GuardLimits.HEALTH_PORT.total() + 50;
    static final String FLOOD_JAR = "flood.jar";

    private Cluster cluster;
    private KubernetesClient client;
    private String kwokNode;
    private String realNode;
    private String outside;
    private Pod outsider;
    private final Names names = new Names(PROFILE, WORKLOAD);

    static void say(String line) {
        System.out.println("[secrev] " + line);
        System.out.flush();
    }

    @BeforeAll
    void installTheProductAndAProfile(Cluster cluster) {
        this.cluster = cluster;
        client = cluster.client();
        kwokNode = OperatorTests.installTheProductOnTheRealNode(cluster, "secrev", LABEL, ROLLOUT);
        realNode = RealNode.ensure();
        client.resource(OperatorTests.profile(
                        "secrev",
                        PROFILE,
                        """
                        labelKey: %s
                        verbs: [Filter, Prioritize, Bind]
                        extender: {replicas: 1}
                        """
                                .formatted(LABEL)))
                .create();
        Await.until(ROLLOUT, "profile " + PROFILE + " is Ready", () -> OperatorTests.isCurrent(profile()));
        outside = OperatorTests.createRestrictedNamespace(cluster, "secrev-outside");
        outsider = client.resource(RestrictedPods.client(outside, "outsider", extenderImage(), Map.of()))
                .create();
        client.pods()
                .inNamespace(outside)
                .withName("outsider")
                .waitUntilCondition(SecurityReviewTest::isReady, 120, TimeUnit.SECONDS);
    }

    @AfterAll
    void removeTheProduct() {
        if (client == null) {
            return;
        }
        RealNode.networkPolicy(!"off".equals(System.getProperty(RealNode.NETWORK_POLICY_PROPERTY, "on")));
        OperatorTests.removeTheProductFromTheRealNode(cluster, outside, LABEL, List.of(kwokNode), ROLLOUT, PROFILE);
        if (realNode != null) {
            MergePatch.nodeLabel(client, realNode, LABEL, null);
        }
    }

    // --- 1. the flood ---------------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void healthPortsAnswerTheNodeThroughAFloodFromAPod() throws Exception {
        RealNode.networkPolicy(false);
        try {
            Pod extender = extenderPod();
            Pod operator = operatorPod();
            String extenderIp = extender.getStatus().getPodIP();
            String operatorIp = operator.getStatus().getPodIP();
            int extenderRestarts = restarts(extender);
            int operatorRestarts = restarts(operator);
            String operatorContainer =
                    operator.getStatus().getContainerStatuses().get(0).getContainerID();

            client.resource(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("flood")
                            .withNamespace(outside)
                            .endMetadata()
                            .addToBinaryData(FLOOD_JAR, Base64.getEncoder().encodeToString(floodJar()))
                            .build())
                    .create();
            client.resource(floodPod("flood-extender", extenderIp, Names.EXTENDER_HEALTH_PORT))
                    .create();
            client.resource(floodPod("flood-operator", operatorIp, 8080)).create();
            for (String flood : List.of("flood-extender", "flood-operator")) {
                client.pods()
                        .inNamespace(outside)
                        .withName(flood)
                        .waitUntilCondition(
                                p -> p != null
                                        && p.getStatus() != null
                                        && List.of("Running", "Succeeded", "Failed")
                                                .contains(p.getStatus().getPhase()),
                                120,
                                TimeUnit.SECONDS);
            }
            long attackStart = System.nanoTime();
            say("Step 1: enforcer off; two pods in " + outside + " flood " + extenderIp + ":"
                    + Names.EXTENDER_HEALTH_PORT + " (extender) and " + operatorIp + ":8080 (operator) with "
                    + FLOOD_CONNECTIONS + " silent and trickling connections each, for " + ATTACK.toSeconds() + " s");

            List<Long> latencies = new ArrayList<>();
            Pod scheduled = null;
            String boundTo = null;
            long boundAfterNanos = 0;
            long end = attackStart + ATTACK.toNanos();
            while (System.nanoTime() < end) {
                for (String[] target : new String[][] {
                    {extenderIp, Integer.toString(Names.EXTENDER_HEALTH_PORT), "/readyz"},
                    {extenderIp, Integer.toString(Names.EXTENDER_HEALTH_PORT), "/healthz"},
                    {operatorIp, "8080", "/readyz"},
                    {operatorIp, "8080", "/healthz"},
                }) {
                    long start = System.nanoTime();
                    String status = probe(target[0], Integer.parseInt(target[1]), target[2]);
                    long took = System.nanoTime() - start;
                    latencies.add(took);
                    assertThat(status)
                            .as("%s:%s%s during the attack", target[0], target[1], target[2])
                            .isEqualTo("HTTP/1.1 200 OK");
                    assertThat(Duration.ofNanos(took))
                            .as("%s:%s%s during the attack", target[0], target[1], target[2])
                            .isLessThan(Duration.ofSeconds(1));
                }
                Pod now = extenderPod();
                assertThat(isReady(now)).as("the extender pod stays Ready").isTrue();
                assertThat(now.getMetadata().getUid())
                        .isEqualTo(extender.getMetadata().getUid());
                long elapsed = System.nanoTime() - attackStart;
                if (scheduled == null && elapsed > Duration.ofSeconds(20).toNanos()) {
                    scheduled = client.resource(RestrictedPods.forScheduler(outside, "during-the-attack", PROFILE))
                            .create();
                } else if (scheduled != null && boundTo == null) {
                    boundTo = client.pods()
                            .inNamespace(outside)
                            .withName("during-the-attack")
                            .get()
                            .getSpec()
                            .getNodeName();
                    boundAfterNanos = elapsed;
                }
                Thread.sleep(250);
            }
            assertThat(boundTo)
                    .as("a pod of the profile, created 20 s into the attack, bound before it ended")
                    .isEqualTo(kwokNode);

            HealthPortFlood.Stats atExtender = floodStats("flood-extender");
            HealthPortFlood.Stats atOperator = floodStats("flood-operator");
            for (HealthPortFlood.Stats stats : List.of(atExtender, atOperator)) {
                assertThat(stats.opened())
                        .as("the flood connected at least its %d connections: %s", FLOOD_CONNECTIONS, stats)
                        .isGreaterThanOrEqualTo(FLOOD_CONNECTIONS);
                assertThat(stats.closedByServer())
                        .as("the server closed the flood's connections: %s", stats)
                        .isGreaterThan(FLOOD_CONNECTIONS);
            }
            double extenderClosed = metric(
                    extenderIp,
                    Names.EXTENDER_HEALTH_PORT,
                    "schedulerops_extender_health_connections_closed_total{reason=\"per_source\"}");
            double operatorClosed =
                    metric(operatorIp, 8080, "schedulerops_http_connections_closed_total{reason=\"per_source\"}");
            assertThat(extenderClosed)
                    .as("the extender's guard held the flood to its share")
                    .isPositive();
            assertThat(operatorClosed)
                    .as("the operator's guard held the flood to its share")
                    .isPositive();

            Pod extenderAfter = extenderPod();
            Pod operatorAfter = operatorPod();
            assertThat(restarts(extenderAfter)).isEqualTo(extenderRestarts);
            assertThat(restarts(operatorAfter))
                    .as("the operator was not restarted")
                    .isEqualTo(operatorRestarts);
            assertThat(operatorAfter.getStatus().getContainerStatuses().get(0).getContainerID())
                    .isEqualTo(operatorContainer);
            latencies.sort(Long::compare);
            say("Step 1: " + latencies.size() + " probes from the node, every one 200; latency median "
                    + millis(latencies.get(latencies.size() / 2)) + " ms, p99 "
                    + millis(latencies.get((int) (latencies.size() * 0.99))) + " ms, max "
                    + millis(latencies.get(latencies.size() - 1)) + " ms; the extender Ready throughout, restarts "
                    + extenderRestarts + " -> " + restarts(extenderAfter) + "; the operator's "
                    + operatorRestarts + " -> " + restarts(operatorAfter) + "; pod during-the-attack bound to "
                    + boundTo + " "
                    + millis(boundAfterNanos - Duration.ofSeconds(20).toNanos())
                    + " ms after its creation; at the extender " + atExtender + "; at the operator " + atOperator
                    + "; closed for a source past its share: extender " + (long) extenderClosed + ", operator "
                    + (long) operatorClosed);
        } finally {
            RealNode.networkPolicy(true);
        }
    }

    // --- 2. the health ports' NetworkPolicies -------------------------------------------------------------------

    @Test
    @Order(2)
    void withTheEnforcerNoPodReachesEitherHealthPort() {
        Pod extender = extenderPod();
        String extenderIp = extender.getStatus().getPodIP();
        String operatorIp = operatorPod().getStatus().getPodIP();
        List<String> seen = new ArrayList<>();
        for (String[] target :
                new String[][] {{extenderIp, Integer.toString(Names.EXTENDER_HEALTH_PORT)}, {operatorIp, "8080"}}) {
            NetworkPolicyEnforcementTest.Probe probe = Await.value(
                    Duration.ofSeconds(60),
                    "kube-router refuses the outsider on " + target[0] + ":" + target[1],
                    () -> filteredOrNull(NetworkPolicyEnforcementTest.probe(
                            cluster, outsider, target[0], Integer.parseInt(target[1]))));
            seen.add(target[0] + ":" + target[1] + " " + probe);
        }
        Await.holdsFor(
                Duration.ofSeconds(15), "the extender pod stays Ready (the kubelet probes from the node)", () -> {
                    Pod now = extenderPod();
                    return isReady(now)
                            && now.getMetadata()
                                    .getUid()
                                    .equals(extender.getMetadata().getUid());
                });
        assertThat(probe(extenderIp, Names.EXTENDER_HEALTH_PORT, "/readyz"))
                .as("the node itself")
                .isEqualTo("HTTP/1.1 200 OK");
        say("Step 2: enforcer on -> the outsider is refused on " + String.join(" and ", seen)
                + "; the node still gets 200 and the extender stays Ready.");
    }

    // --- 3. the extender's egress ---------------------------------------------------------------------------------

    @Test
    @Order(3)
    void theExtenderReachesTheApiServerAndNothingElse() {
        EndpointSlice slice = client.discovery()
                .v1()
                .endpointSlices()
                .inNamespace(Names.API_SERVER_SERVICE_NAMESPACE)
                .withName(Names.API_SERVER_SERVICE)
                .get();
        String apiAddress = slice.getEndpoints().get(0).getAddresses().get(0);
        int apiPort = slice.getPorts().get(0).getPort();
        // Another port of the API server's own address, where a server listens: the node's DNS (CoreDNS, TCP 53).
        int otherPort = 53;
        Pod extender = extenderPod();

        RealNode.networkPolicy(false);
        NetworkPolicyEnforcementTest.Probe openWithout;
        try {
            openWithout = NetworkPolicyEnforcementTest.probe(cluster, extender, apiAddress, otherPort);
        } finally {
            RealNode.networkPolicy(true);
        }
        assertThat(openWithout.result())
                .as("without the enforcer, the extender's pod opens %s:%d (%s)", apiAddress, otherPort, openWithout)
                .isEqualTo("open");
        NetworkPolicyEnforcementTest.Probe refused = Await.value(
                Duration.ofSeconds(60),
                "kube-router refuses the extender's connection to " + apiAddress + ":" + otherPort,
                () -> filteredOrNull(NetworkPolicyEnforcementTest.probe(cluster, extender, apiAddress, otherPort)));
        NetworkPolicyEnforcementTest.Probe api =
                NetworkPolicyEnforcementTest.probe(cluster, extender, apiAddress, apiPort);
        assertThat(api.result())
                .as("the extender's pod opens the API server %s:%d (%s)", apiAddress, apiPort, api)
                .isEqualTo("open");
        // Bind: the extender creates the Binding through the API server.
        Pod pod = client.resource(RestrictedPods.forScheduler(outside, "bound-by-the-extender", PROFILE))
                .create();
        assertThat(OperatorTests.awaitBound(client, pod, Duration.ofSeconds(60)))
                .isEqualTo(kwokNode);
        say("Step 3: the extender's pod: " + apiAddress + ":" + otherPort + " " + openWithout
                + " with the enforcer off, " + refused + " with it on; the API server " + apiAddress + ":" + apiPort
                + " " + api + "; a pod bound through the extender's Bind.");
    }

    // --- 4. a node's own labels ---------------------------------------------------------------------------------

    @Test
    @Order(4)
    void aKubeletMaySetAnOrdinaryLabelOnItsNodeButNotARestrictedOne() {
        assertThat(OperatorTests.condition(profile(), ProfileStatuses.LABEL_KEY_UNPROTECTED))
                .as("the profile warns that kubelets may set %s", LABEL)
                .hasValueSatisfying(c -> {
                    assertThat(c.getStatus()).isEqualTo("True");
                    assertThat(c.getReason()).isEqualTo(ProfileStatuses.REASON_KUBELET_MAY_SET_LABEL);
                });
        String restricted = "node-restriction.kubernetes.io/secrev";
        Commands.Result refused = asKubelet("label", "node", realNode, restricted + "=99");
        assertThat(refused.exitCode())
                .as("the kubelet labels its Node %s: %s", restricted, refused.stdout())
                .isNotZero();
        assertThat(refused.stderr()).contains("is not allowed to modify labels").contains(restricted);
        assertThat(client.nodes().withName(realNode).get().getMetadata().getLabels())
                .doesNotContainKey(restricted);

        Commands.Result allowed = asKubelet("label", "node", realNode, LABEL + "=99");
        assertThat(allowed.exitCode())
                .as("the kubelet labels its Node %s: %s", LABEL, allowed.stderr())
                .isZero();
        assertThat(client.nodes().withName(realNode).get().getMetadata().getLabels())
                .containsEntry(LABEL, "99");
        asKubelet("label", "node", realNode, LABEL + "-").requireSuccess("the kubelet removes " + LABEL);
        Commands.Result whoami = asKubelet("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}");
        say("Step 4: as " + whoami.stdout() + ": label " + restricted + " refused ("
                + refused.stderr().strip()
                + "); label " + LABEL + "=99 accepted, and removed; the profile's status carries "
                + ProfileStatuses.LABEL_KEY_UNPROTECTED + "=True.");
    }

    // --- helpers --------------------------------------------------------------------------------------------------

    /** The probe when a packet filter refused it (kube-router applies a change at its next sync), else null. */
    private static NetworkPolicyEnforcementTest.Probe filteredOrNull(NetworkPolicyEnforcementTest.Probe probe) {
        return probe.filtered() ? probe : null;
    }

    private Commands.Result asKubelet(String... args) {
        List<String> command = new ArrayList<>(List.of(
                Commands.kubectl(), "--kubeconfig", RealNode.kubeletKubeconfig().toString()));
        command.addAll(List.of(args));
        return Commands.run(command, Duration.ofMinutes(1));
    }

    /** A pod in the outside namespace that runs {@link HealthPortFlood} against {@code ip:port} for the attack. */
    private Pod floodPod(String name, String ip, int port) {
        Pod base = RestrictedPods.client(outside, name, extenderImage(), Map.of());
        return new PodBuilder(base)
                .editSpec()
                .withRestartPolicy("Never")
                .editFirstContainer()
                .withCommand(
                        "java",
                        "-cp",
                        "/flood/" + FLOOD_JAR,
                        HealthPortFlood.class.getName(),
                        ip,
                        Integer.toString(port),
                        Integer.toString(FLOOD_CONNECTIONS),
                        Long.toString(ATTACK.toSeconds()))
                .addNewEnv()
                .withName("JAVA_TOOL_OPTIONS")
                .withValue("-Xmx48m -Xss512k -XX:-UsePerfData -XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
                .endEnv()
                .editResources()
                .addToLimits("memory", new Quantity("192Mi"))
                .addToRequests("memory", new Quantity("96Mi"))
                .endResources()
                .addNewVolumeMount()
                .withName("flood")
                .withMountPath("/flood")
                .withReadOnly(true)
                .endVolumeMount()
                .endContainer()
                .addNewVolume()
                .withName("flood")
                .withNewConfigMap()
                .withName("flood")
                .endConfigMap()
                .endVolume()
                .endSpec()
                .build();
    }

    /** {@link HealthPortFlood} and its nested classes, as a jar (ConfigMap keys cannot hold a '$'). */
    static byte[] floodJar() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            for (Class<?> type : List.of(
                    HealthPortFlood.class,
                    HealthPortFlood.Stats.class,
                    Class.forName(HealthPortFlood.class.getName() + "$Slot"))) {
                String entry = type.getName().replace('.', '/') + ".class";
                jar.putNextEntry(new JarEntry(entry));
                try (InputStream in = HealthPortFlood.class.getClassLoader().getResourceAsStream(entry)) {
                    jar.write(in.readAllBytes());
                }
                jar.closeEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /** The flood pod's last line, once it has ended. */
    private HealthPortFlood.Stats floodStats(String name) {
        client.pods()
                .inNamespace(outside)
                .withName(name)
                .waitUntilCondition(
                        p -> p != null && "Succeeded".equals(p.getStatus().getPhase()), 60, TimeUnit.SECONDS);
        String log = client.pods().inNamespace(outside).withName(name).getLog();
        String last = log.lines()
                .filter(l -> l.startsWith("flood "))
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError(name + " printed no stats: " + log));
        return HealthPortFlood.Stats.parse(last);
    }

    /** One probe as the kubelet makes it: a new connection from the node, GET, the status line. */
    private static String probe(String ip, int port, String path) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(ip, port), 1000);
            socket.setSoTimeout(1000);
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: " + ip + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)
                    .lines()
                    .findFirst()
                    .orElse("");
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** A sample of {@code series} from /metrics at {@code ip:port}, scraped from the node. */
    private static double metric(String ip, int port, String series) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(ip, port), 2000);
            socket.setSoTimeout(5000);
            socket.getOutputStream()
                    .write(("GET /metrics HTTP/1.1\r\nHost: " + ip + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String body = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return body.lines()
                    .filter(l -> l.startsWith(series + " "))
                    .map(l ->
                            Double.parseDouble(l.substring(series.length() + 1).strip()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no " + series + " at " + ip + ":" + port));
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private String extenderImage() {
        return client.apps()
                .deployments()
                .inNamespace(WORKLOAD)
                .withName(names.extender())
                .get()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getImage();
    }

    private SchedulerProfile profile() {
        return client.resources(SchedulerProfile.class).withName(PROFILE).get();
    }

    private Pod extenderPod() {
        List<Pod> pods = client
                .pods()
                .inNamespace(WORKLOAD)
                .withLabels(Labels.selector(PROFILE, Labels.COMPONENT_EXTENDER))
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
        assertThat(pods).as("extender pods of %s", PROFILE).hasSize(1);
        return pods.get(0);
    }

    private Pod operatorPod() {
        List<Pod> pods = client
                .pods()
                .inNamespace(WORKLOAD)
                .withLabels(Map.of(
                        "app.kubernetes.io/name", InClusterTest.OPERATOR, "app.kubernetes.io/component", "operator"))
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
        assertThat(pods).as("operator pods").hasSize(1);
        return pods.get(0);
    }

    private static int restarts(Pod pod) {
        return pod.getStatus().getContainerStatuses().get(0).getRestartCount();
    }

    private static boolean isReady(Pod pod) {
        return pod != null
                && pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
