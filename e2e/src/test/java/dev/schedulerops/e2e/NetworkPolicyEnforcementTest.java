package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.ExtenderTlsClient;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * The extender's NetworkPolicy, enforced for real: kube-router's firewall runs on the real node ({@code e2e/cluster
 * network-policy on}), the product is installed from deploy/, and a profile runs with mutual TLS (the default) and
 * {@code ignorable: false} (the default, so a pod is scheduled only if the scheduler reached its extender).
 *
 * <p>Three client pods run the extender's own image (bash's {@code /dev/tcp}) under the restricted security context: an
 * outsider in another namespace, a neighbour in the workload namespace that is not the scheduler, and a scraper in the
 * workload namespace that {@code metricsFrom} will name. Each probe opens a TCP connection from inside the pod and
 * reports whether it opened, timed out or was refused, and whether an ICMP destination-unreachable came back (counted
 * in the pod's own network namespace, {@code /proc/net/snmp}): kube-router refuses what no policy admits with
 * {@code -j REJECT} (an ICMP port-unreachable, so the connect fails at once), where a closed port would answer with a
 * TCP reset and no ICMP. The same probes with the enforcer off open both ports: the refusals are the policy's.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NetworkPolicyEnforcementTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String PROFILE = "netpol";
    static final String LABEL = "netpol.example.com/rank";
    static final String SCRAPER_LABEL = "e2e.schedulerops.dev/scraper";
    static final Duration ROLLOUT = Duration.ofMinutes(3);
    static final int VERBS = Names.EXTENDER_TLS_PORT;
    static final int HEALTH = Names.EXTENDER_HEALTH_PORT;
    /** A port the extender does not listen on. */
    static final int CLOSED_PORT = 9;

    /**
     * {@code probe IP PORT}: one TCP connect with a 5 s limit; prints {@code open|timeout|refused ICMP MILLIS}, ICMP
     * being how many ICMP destination-unreachable messages the pod's network namespace received meanwhile.
     */
    static final String PROBE =
            """
            unreachable() {
              local -a names values
              read -ra names < <(grep '^Icmp:' /proc/net/snmp | head -n 1)
              read -ra values < <(grep '^Icmp:' /proc/net/snmp | tail -n 1)
              local i
              for i in "${!names[@]}"; do
                [ "${names[$i]}" = InDestUnreachs ] && echo "${values[$i]}"
              done
            }
            before=$(unreachable)
            start=$(date +%s%N)
            if timeout 5 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; then
              result=open
            elif [ $? = 124 ]; then
              result=timeout
            else
              result=refused
            fi
            echo "$result $(( $(unreachable) - before )) $(( ($(date +%s%N) - start) / 1000000 ))"
            """;

    private Cluster cluster;
    private KubernetesClient client;
    private String kwokNode;
    private String outsideNamespace;
    /** The client pods by role, {@code namespace/name}. */
    private final Map<String, Pod> clients = new LinkedHashMap<>();

    private final Names names = new Names(PROFILE, WORKLOAD);

    static void say(String line) {
        System.out.println("[netpol] " + line);
        System.out.flush();
    }

    record Probe(String result, int icmpUnreachable, long millis) {
        /** Refused by a packet filter: an ICMP destination-unreachable, or no answer at all. Not a TCP reset. */
        boolean filtered() {
            return result.equals("timeout") || (result.equals("refused") && icmpUnreachable > 0);
        }

        @Override
        public String toString() {
            return result + (result.equals("refused") ? " (ICMP unreachable x" + icmpUnreachable + ")" : "") + " in "
                    + millis + " ms";
        }
    }

    @BeforeAll
    void installTheProductAProfileAndClients(Cluster cluster) {
        this.cluster = cluster;
        client = cluster.client();
        kwokNode = OperatorTests.installTheProductOnTheRealNode(cluster, "netpol", LABEL, ROLLOUT);
        client.resource(OperatorTests.profile(
                        "netpol",
                        PROFILE,
                        """
                        labelKey: %s
                        extender: {replicas: 1}
                        """
                                .formatted(LABEL)))
                .create();
        Await.until(ROLLOUT, "profile " + PROFILE + " is Ready", () -> OperatorTests.isCurrent(profile()));

        String image = client.apps()
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
        outsideNamespace = OperatorTests.createRestrictedNamespace(cluster, "netpol-outside");
        clients.put(
                "outsider",
                client.resource(RestrictedPods.client(outsideNamespace, "outsider", image, Map.of()))
                        .create());
        clients.put(
                "neighbour",
                client.resource(RestrictedPods.client(WORKLOAD, "netpol-neighbour", image, Map.of()))
                        .create());
        clients.put(
                "scraper",
                client.resource(RestrictedPods.client(WORKLOAD, "netpol-scraper", image, Map.of(SCRAPER_LABEL, "true")))
                        .create());
        for (Pod pod : clients.values()) {
            client.pods()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .withName(pod.getMetadata().getName())
                    .waitUntilCondition(NetworkPolicyEnforcementTest::isReady, 120, TimeUnit.SECONDS);
        }
        say("Profile " + PROFILE + " runs (mutual TLS, ignorable: false); client pods " + clients.keySet()
                + " run the extender's image " + image + ".");
    }

    @AfterAll
    void removeTheProduct() {
        if (client == null) {
            return;
        }
        // Whatever happened, the node keeps the enforcer the run asked for (on, unless
        // -Dschedulerops.networkPolicy=off).
        RealNode.networkPolicy(!"off".equals(System.getProperty(RealNode.NETWORK_POLICY_PROPERTY, "on")));
        for (Pod pod : clients.values()) {
            client.pods()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .withName(pod.getMetadata().getName())
                    .withGracePeriod(0)
                    .delete();
        }
        OperatorTests.uninstallTheDeployedProduct(cluster, client, ROLLOUT, PROFILE);
        if (kwokNode != null) {
            MergePatch.nodeLabel(client, kwokNode, LABEL, null);
        }
    }

    @Test
    @Order(1)
    void withoutTheEnforcerEveryClientOpensBothPorts() {
        RealNode.networkPolicy(false);
        try {
            String ip = extenderPod().getStatus().getPodIP();
            for (String role : clients.keySet()) {
                for (int port : List.of(VERBS, HEALTH)) {
                    Probe probe = probe(role, ip, port);
                    assertThat(probe.result())
                            .as("without the enforcer, %s connects to %s:%d (%s)", role, ip, port, probe)
                            .isEqualTo("open");
                }
            }
            // The instrument: a port nobody listens on answers with a TCP reset, which is no filter.
            Probe closed = probe("outsider", ip, CLOSED_PORT);
            assertThat(closed.result()).as("a closed port (%s)", closed).isEqualTo("refused");
            assertThat(closed.filtered())
                    .as("a reset is no filter (%s)", closed)
                    .isFalse();
            say("Step 1: enforcer off -> " + String.join(", ", clients.keySet()) + " all open " + ip + ":" + VERBS
                    + " and :" + HEALTH + " (the policy exists, nothing enforces it); port " + CLOSED_PORT
                    + ", where nothing listens: " + closed + " (a TCP reset).");
        } finally {
            RealNode.networkPolicy(true);
        }
    }

    @Test
    @Order(2)
    void withTheEnforcerNoPodButTheSchedulerReachesTheVerbPort() throws Exception {
        Pod extender = extenderPod();
        String ip = extender.getStatus().getPodIP();
        String pod = extender.getMetadata().getName();
        Await.until(Duration.ofSeconds(60), "kube-router has a REJECT rule for " + pod, () -> RealNode.rejectedPackets(
                        WORKLOAD, pod)
                .isPresent());
        List<String> seen = new ArrayList<>();
        for (String role : clients.keySet()) {
            Probe verbs = rejectedProbe(role, ip, VERBS, pod);
            assertThat(verbs.filtered())
                    .as("%s to the verb port %s:%d is refused by a packet filter (%s)", role, ip, VERBS, verbs)
                    .isTrue();
            Probe health = rejectedProbe(role, ip, HEALTH, pod);
            assertThat(health.filtered())
                    .as("%s is refused on the health port: metricsFrom is unset, so no pod may (%s)", role, health)
                    .isTrue();
            seen.add(role + ": " + VERBS + " " + verbs + ", " + HEALTH + " " + health);
        }
        // The node itself is exempt (kube-router admits what comes from a local address): the kubelet's probes, and
        // the test host here, still reach both ports (the extender stays Ready: step 4 waits on it).
        ExtenderTlsClient.Response answer = ExtenderTlsClient.fromSchedulerSecret(client.secrets()
                        .inNamespace(WORKLOAD)
                        .withName(names.schedulerClientSecret())
                        .get())
                .post(ip, VERBS, "/filter", filterRequest());
        assertThat(answer.status())
                .as("the host's call with the scheduler's certificate")
                .isEqualTo(200);
        say("Step 2: enforcer on -> " + String.join("; ", seen)
                + "; each refusal counted on kube-router's REJECT rule for " + pod
                + "; the node itself still gets 200 on " + VERBS + ".");
    }

    @Test
    @Order(3)
    void aNewSchedulerPodIsAdmittedAndSchedulesThroughTheExtender() {
        // A new scheduler pod opens new connections, which the policy must admit (an old one's would pass as
        // established connections, whatever the policy says).
        Pod old = schedulerPod();
        client.pods()
                .inNamespace(WORKLOAD)
                .withName(old.getMetadata().getName())
                .withGracePeriod(0)
                .delete();
        Await.until(ROLLOUT, "a new scheduler pod is Ready", () -> {
            List<Pod> pods = pods(Labels.COMPONENT_SCHEDULER);
            return pods.size() == 1
                    && !pods.get(0)
                            .getMetadata()
                            .getUid()
                            .equals(old.getMetadata().getUid())
                    && isReady(pods.get(0));
        });
        Pod scheduler = schedulerPod();
        String ns = outsideNamespace;
        List<String> bound = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            Pod pod = client.resource(RestrictedPods.forScheduler(ns, "scheduled-" + i, PROFILE))
                    .create();
            String node = client.pods()
                    .inNamespace(ns)
                    .withName(pod.getMetadata().getName())
                    .waitUntilCondition(p -> p != null && p.getSpec().getNodeName() != null, 120, TimeUnit.SECONDS)
                    .getSpec()
                    .getNodeName();
            assertThat(node).as("pod %s, scheduled through the extender", i).isEqualTo(kwokNode);
            bound.add(pod.getMetadata().getName());
        }
        say("Step 3: new kube-scheduler pod " + scheduler.getMetadata().getName() + " ("
                + scheduler.getStatus().getPodIP() + ") reached the extender through the policy: " + bound
                + " bound to " + kwokNode + " (ignorable: false: no pod is scheduled without the extender).");
    }

    @Test
    @Order(4)
    void metricsFromAdmitsOnlyItsPeersToTheHealthPort() {
        client.resources(SchedulerProfile.class)
                .withName(PROFILE)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"extender\":{\"metricsFrom\":[{\"podSelector\":{\"matchLabels\":{\""
                                + SCRAPER_LABEL + "\":\"true\"}}}]}}}");
        Await.until(ROLLOUT, "the NetworkPolicy names the scraper", () -> {
            NetworkPolicy policy = client.network()
                    .v1()
                    .networkPolicies()
                    .inNamespace(WORKLOAD)
                    .withName(names.extenderNetworkPolicy())
                    .get();
            return policy.getSpec().getIngress().stream()
                    .anyMatch(rule -> rule.getFrom() != null
                            && rule.getFrom().stream()
                                    .anyMatch(peer -> peer.getPodSelector() != null
                                            && "true"
                                                    .equals(peer.getPodSelector()
                                                            .getMatchLabels()
                                                            .get(SCRAPER_LABEL))));
        });
        Await.until(ROLLOUT, "profile " + PROFILE + " is Ready", () -> OperatorTests.isCurrent(profile()));
        Pod extender = extenderPod();
        String ip = extender.getStatus().getPodIP();
        String pod = extender.getMetadata().getName();
        // kube-router applies the change at its next sync: wait until the neighbour is refused on the health port.
        Await.until(Duration.ofSeconds(60), "kube-router enforces metricsFrom", () -> probe("neighbour", ip, HEALTH)
                .filtered());
        Probe scraper = probe("scraper", ip, HEALTH);
        assertThat(scraper.result())
                .as("the metricsFrom peer reaches the health port (%s)", scraper)
                .isEqualTo("open");
        List<String> seen = new ArrayList<>(List.of("scraper: " + HEALTH + " " + scraper.result()));
        for (String role : List.of("neighbour", "outsider")) {
            Probe health = rejectedProbe(role, ip, HEALTH, pod);
            assertThat(health.filtered())
                    .as(
                            "%s, not a metricsFrom peer, is refused on the health port by a packet filter (%s)",
                            role, health)
                    .isTrue();
            seen.add(role + ": " + HEALTH + " " + health);
        }
        Probe scraperVerbs = rejectedProbe("scraper", ip, VERBS, pod);
        assertThat(scraperVerbs.filtered())
                .as("a metrics peer is no verb peer (%s)", scraperVerbs)
                .isTrue();
        seen.add("scraper: " + VERBS + " " + scraperVerbs);
        // The kubelet probes the health port from the node, which kube-router exempts: the extender stays Ready.
        Await.holdsFor(Duration.ofSeconds(15), "the extender pod stays Ready, unrestarted", () -> {
            Pod current = extenderPod();
            return current.getMetadata().getUid().equals(extender.getMetadata().getUid())
                    && isReady(current)
                    && current.getStatus().getContainerStatuses().get(0).getRestartCount() == 0;
        });
        say("Step 4: metricsFrom = podSelector " + SCRAPER_LABEL + "=true -> " + String.join("; ", seen)
                + "; the extender stays Ready (the kubelet's probes come from the node).");
    }

    // --- probes ---------------------------------------------------------------------------------------------

    /** One connect attempt from inside the client pod {@code role}. */
    private Probe probe(String role, String ip, int port) {
        return probe(cluster, clients.get(role), ip, port);
    }

    /** One connect attempt from inside {@code pod}, which runs the extender's image (for bash). */
    static Probe probe(Cluster cluster, Pod pod, String ip, int port) {
        var result = cluster.kubectl(
                        "exec",
                        "-n",
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(),
                        "--",
                        "bash",
                        "-c",
                        PROBE,
                        "probe",
                        ip,
                        Integer.toString(port))
                .requireSuccess("kubectl exec " + pod.getMetadata().getName() + " probe " + ip + ":" + port);
        String[] fields = result.stdout().strip().split(" ");
        return new Probe(fields[0], Integer.parseInt(fields[1]), Long.parseLong(fields[2]));
    }

    /**
     * A probe that the policy should refuse, and, when it was refused, proof that kube-router's REJECT rule for
     * {@code extenderPod} counted it: its packet counter grew across the probe. kube-router rewrites the filter table at each sync (which sets
     * counters to 0), so a probe whose counter did not grow is repeated, three times at most.
     */
    private Probe rejectedProbe(String role, String ip, int port, String extenderPod) {
        Probe probe = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            long before = RealNode.rejectedPackets(WORKLOAD, extenderPod).orElse(0L);
            probe = probe(role, ip, port);
            if (!probe.filtered()) {
                return probe; // the caller's assertion says what came back instead
            }
            long after = RealNode.rejectedPackets(WORKLOAD, extenderPod).orElse(0L);
            if (after > before) {
                return probe;
            }
        }
        throw new AssertionError("kube-router's REJECT rule for " + extenderPod + " did not count " + role
                + "'s probe of " + ip + ":" + port + " (last probe: " + probe + ")");
    }

    // --- objects --------------------------------------------------------------------------------------------

    private String filterRequest() {
        return "{\"Pod\":{\"metadata\":{\"name\":\"probe\",\"namespace\":\"" + outsideNamespace
                + "\"}},\"NodeNames\":[\"" + kwokNode + "\"]}";
    }

    private SchedulerProfile profile() {
        return client.resources(SchedulerProfile.class).withName(PROFILE).get();
    }

    private List<Pod> pods(String component) {
        return client
                .pods()
                .inNamespace(WORKLOAD)
                .withLabels(Labels.selector(PROFILE, component))
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private Pod extenderPod() {
        List<Pod> pods = pods(Labels.COMPONENT_EXTENDER);
        assertThat(pods).as("extender pods of %s", PROFILE).hasSize(1);
        return pods.get(0);
    }

    private Pod schedulerPod() {
        List<Pod> pods = pods(Labels.COMPONENT_SCHEDULER);
        assertThat(pods).as("scheduler pods of %s", PROFILE).hasSize(1);
        return pods.get(0);
    }

    private static boolean isReady(Pod pod) {
        return pod != null
                && pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
