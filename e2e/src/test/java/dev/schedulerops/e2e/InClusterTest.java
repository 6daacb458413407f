package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.Crds;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.ExtenderTlsClient;
import dev.schedulerops.e2e.support.LabelToBind;
import dev.schedulerops.e2e.support.LabelToBindReport;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.PodTimeline;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.tls.CertificateIssuer;
import dev.schedulerops.operator.tls.Issued;
import dev.schedulerops.operator.tls.Pem;
import dev.schedulerops.operator.tls.RotationPolicy;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
 * The product as users run it, on a real node: the operator installed from {@code deploy/} runs as a container
 * under its ServiceAccount, and the pods it creates (the extender's JVM, the kube-scheduler binary from the
 * {@code registry.k8s.io/kube-scheduler} image built here) run as real containers under the restricted security
 * context. The label experiment then runs through the in-cluster kube-scheduler and extender: the scheduler
 * reaches the extender by the Service DNS name in the ConfigMap, unchanged. Test pods opt in to the KWOK nodes
 * (tainted {@code kwok.x-k8s.io/node=fake:NoSchedule} once the real node exists), the product's pods land on the
 * real node because nothing else will take them.
 *
 * <p>Needs root (containerd, kubelet, network devices) and the images in the local registry: {@code ./test}
 * runs {@code e2e/cluster images} first. Runs in its own Surefire execution (tag {@code real-node}), after the
 * KWOK-only tests, on a cluster of its own.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InClusterTest {
    static final String LABEL = "priority.lixueduan.com";
    static final String OTHER_LABEL = "tier.example.com/rank";
    /** The label of the preemption step's profile: its pool's nodes carry no other test label. */
    static final String PREEMPTION_LABEL = "preemption.example.com/rank";

    static final String OPERATOR_NAMESPACE = "schedulerops-system";
    static final String OPERATOR = "schedulerops-operator";
    static final String KWOK_TAINT = RestrictedPods.KWOK_TAINT;
    static final Duration ROLLOUT = Duration.ofMinutes(3);
    static final Duration BIND = Duration.ofSeconds(90);
    /** Trials of the label-to-bind promise per profile in step 3. */
    static final int LABEL_TO_BIND_TRIALS = 6;

    private static final ResourceDefinitionContext PROFILES = new ResourceDefinitionContext.Builder()
            .withGroup("schedulerops.dev")
            .withVersion("v1beta1")
            .withPlural("schedulerprofiles")
            .withKind("SchedulerProfile")
            .withNamespaced(false)
            .build();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private Cluster cluster;
    private KubernetesClient client;
    private String node;
    private List<String> kwokNodes;
    private String namespace;
    private int podCounter;
    /** The product's pods seen in step 2, with the time they were seen Ready: they must still run, unrestarted. */
    private final Map<String, String> firstPods = new HashMap<>();

    private Instant firstPodsReadyAt;

    static void say(String line) {
        System.out.println("[in-cluster] " + line);
        System.out.flush();
    }

    @BeforeAll
    void addTheRealNode(Cluster cluster) {
        this.cluster = cluster;
        this.client = cluster.client();
        node = RealNode.ensure();
        kwokNodes = cluster.addNodes(3, Map.of("schedulerops.dev/e2e-pool", "in-cluster"));
        client.nodes().list().getItems().forEach(n -> setLabel(n.getMetadata().getName(), LABEL, null));
        namespace = cluster.createNamespace(
                        "in-cluster",
                        Map.of(
                                "pod-security.kubernetes.io/enforce", "restricted",
                                "pod-security.kubernetes.io/enforce-version", "latest"))
                .getMetadata()
                .getName();
        say("Real node " + node + " is Ready (containerd, kubelet, kube-proxy, CoreDNS on this machine); KWOK nodes "
                + kwokNodes + " carry the taint " + KWOK_TAINT + "=fake:NoSchedule.");
        assertThat(kwokNodes).allSatisfy(n -> assertThat(
                        client.nodes().withName(n).get().getSpec().getTaints())
                .anySatisfy(t -> assertThat(t.getKey()).isEqualTo(KWOK_TAINT)));
    }

    @AfterAll
    void cleanUp() {
        if (client != null && kwokNodes != null) {
            kwokNodes.forEach(n -> setLabel(n, LABEL, null));
        }
    }

    @Test
    @Order(1)
    void theOperatorRunsFromDeployAndTakesItsLease() {
        kubectl("apply", "--server-side", "-k", repo("deploy"))
                .requireSuccess("kubectl apply --server-side -k deploy/");
        awaitAvailable(OPERATOR_NAMESPACE, OPERATOR);
        Pod operator = singlePod(OPERATOR_NAMESPACE, Map.of("app.kubernetes.io/name", OPERATOR));
        assertRunningOnTheRealNode(operator);
        Await.until(Duration.ofSeconds(60), "the operator holds its lease", () -> {
            Lease lease = client.leases()
                    .inNamespace(OPERATOR_NAMESPACE)
                    .withName(OPERATOR)
                    .get();
            return lease != null
                    && lease.getSpec().getHolderIdentity() != null
                    && lease.getSpec()
                            .getHolderIdentity()
                            .contains(operator.getMetadata().getName());
        });
        say("Step 1: kubectl apply --server-side -k deploy/ -> operator pod "
                + operator.getMetadata().getName()
                + " runs on " + node + ", Ready through its probes, holding lease " + OPERATOR_NAMESPACE + "/"
                + OPERATOR + " under the shipped ClusterRole.");
    }

    @Test
    @Order(2)
    void theSampleProfileRunsAsContainersOnTheRealNode() {
        applySample("label-priority.yaml");
        Names names = new Names("label-priority", OPERATOR_NAMESPACE);
        awaitProfileReady("label-priority");
        List<Pod> pods = productPods("label-priority");
        assertThat(pods).hasSize(3); // two extender replicas, one scheduler
        pods.forEach(this::assertRunningOnTheRealNode);
        String config = client.configMaps()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(names.schedulerConfig())
                .get()
                .getData()
                .get(Names.CONFIG_FILE);
        assertThat(config).contains("urlPrefix: " + names.extenderUrl());
        pods.forEach(
                p -> firstPods.put(p.getMetadata().getName(), p.getMetadata().getUid()));
        firstPodsReadyAt = Instant.now();
        say("Step 2: kubectl apply -f samples/label-priority.yaml -> extender pods "
                + podNames(pods, "extender") + " and then kube-scheduler pod " + podNames(pods, "scheduler")
                + " run on " + node + "; the scheduler calls " + names.extenderUrl() + " as the ConfigMap says.");
    }

    @Test
    @Order(3)
    void theLabelExperimentRunsThroughTheInClusterSchedulerAndExtender() {
        applySample("label-priority-filter-only-one.yaml");
        String scheduler = "label-priority-only-one";
        awaitProfileReady(scheduler);
        String node1 = kwokNodes.get(0);
        String node2 = kwokNodes.get(1);

        // The promise first, repeated enough to catch the race it was lost to (5 of 6 trials before the fix): a waiting
        // pod follows a new label within a second, through the in-cluster scheduler and extender (mutual TLS, names
        // only), with the sample's Filter + Prioritize and with FilterOnlyOne.
        for (String profile : List.of("label-priority", scheduler)) {
            List<LabelToBind.Trial> trials = new ArrayList<>();
            try (LabelToBind experiment = new LabelToBind(client, namespace, LABEL, kwokNodes.get(2), 43)) {
                for (int i = 1; i <= LABEL_TO_BIND_TRIALS; i++) {
                    LabelToBind.Trial trial = experiment.trial(profile, profile, i);
                    say("Step 3: " + trial.describe());
                    trials.add(trial);
                }
            }
            LabelToBindReport.assertThePromise(profile + " in-cluster", trials, cluster.kubernetesVersion());
        }
        // The experiment removed its label on closing. A pod created before every extender replica has heard of that
        // would be placed by the removed label (the stale window docs/profiles.md describes), not made to wait.
        awaitExtenderChoosesNone(scheduler);

        Pod waiting = createPod(scheduler);
        Event failed = awaitEvent(waiting, "FailedScheduling");
        // The names-only Filter's reason as `kubectl describe pod` shows it, grouped by kube-scheduler.
        assertThat(failed.getMessage())
                .contains("node(s) lack the label \"" + LABEL + "\" required by the SchedulerProfile extender");
        assertThat(pod(waiting).getSpec().getNodeName()).isNull();
        say("Step 3: no node has the label, so pod " + name(waiting) + " stays Pending: \"" + failed.getMessage()
                + "\"");

        // Nothing but the label (LabelToBind times it, InClusterLabelToBindTest repeats it): kube-scheduler retries the
        // pod when it hears of the node's change, and the extender catches up with the API server before it would
        // reject every node again.
        long labelled = System.nanoTime();
        setLabel(node1, LABEL, "10");
        assertThat(awaitBound(waiting)).isEqualTo(node1);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - labelled);
        say("Step 4: labelled " + node1 + "=10 -> the pending pod went to " + node1 + " " + millis
                + " ms later; nothing else touched it.");
        assertThat(millis)
                .as("label to binding, ms")
                .isLessThanOrEqualTo(LabelToBindReport.maxMillis(cluster.kubernetesVersion()));

        setLabel(node2, LABEL, "20");
        awaitExtenderChooses(scheduler, node2);
        assertThat(awaitBound(createPod(scheduler))).isEqualTo(node2);
        say("Step 5: labelled " + node2 + "=20 -> with FilterOnlyOne a new pod went to " + node2 + ".");

        setLabel(node1, LABEL, "30");
        awaitExtenderChooses(scheduler, node1);
        assertThat(awaitBound(createPod(scheduler))).isEqualTo(node1);
        say("Step 6: relabelled " + node1 + "=30 -> a new pod went to " + node1 + ".");

        applySample("extender-bind.yaml");
        awaitProfileReady("label-priority-bind");
        double bindsBefore = extenderCounter("label-priority-bind", "verb=\"bind\"");
        assertThat(awaitBound(createPod("label-priority-bind"))).isEqualTo(node1);
        // The extender counts a call after its last byte is written, so the Binding can be seen first.
        Await.until(
                Duration.ofSeconds(30),
                "the extender counted the bind call",
                () -> extenderCounter("label-priority-bind", "verb=\"bind\"") > bindsBefore);
        double bindsAfter = extenderCounter("label-priority-bind", "verb=\"bind\"");
        say("Step 7: with Bind the in-cluster extender created the Binding (bind calls " + (long) bindsBefore + " -> "
                + (long) bindsAfter + ").");
        deleteProfile("label-priority-bind");
        deleteProfile(scheduler);

        // The pods of step 2 kept running all along: ready, never restarted, for at least a minute.
        Duration remaining = Duration.between(Instant.now(), firstPodsReadyAt.plusSeconds(60));
        if (!remaining.isNegative()) {
            Await.sleep(remaining.toMillis());
        }
        for (Map.Entry<String, String> entry : firstPods.entrySet()) {
            Pod pod = client.pods()
                    .inNamespace(OPERATOR_NAMESPACE)
                    .withName(entry.getKey())
                    .get();
            assertThat(pod).as("pod %s still exists", entry.getKey()).isNotNull();
            assertThat(pod.getMetadata().getUid()).isEqualTo(entry.getValue());
            assertRunningOnTheRealNode(pod);
        }
        say("The product's pods of step 2 are still ready with restartCount 0 after more than 60 s.");
    }

    @Test
    @Order(4)
    void aConfigChangeRestartsTheSchedulerAfterTheExtender() {
        String profile = "label-priority";
        setLabel(kwokNodes.get(0), LABEL, "30");
        List<Pod> before = productPods(profile);
        Pod oldScheduler = only(before, "scheduler");

        // Only the scheduler's config changes: the extender keeps its pods.
        patchSpec(profile, "{\"spec\":{\"weight\":30}}");
        awaitProfileReady(profile);
        awaitGone(oldScheduler);
        Pod newScheduler = only(productPods(profile), "scheduler");
        assertThat(newScheduler.getMetadata().getName())
                .isNotEqualTo(oldScheduler.getMetadata().getName());
        assertThat(podNames(productPods(profile), "extender")).isEqualTo(podNames(before, "extender"));
        assertThat(awaitBound(createPod(profile))).isEqualTo(kwokNodes.get(0));
        say("Step 8: weight 20 -> 30 replaced kube-scheduler pod "
                + oldScheduler.getMetadata().getName() + " by "
                + newScheduler.getMetadata().getName() + " (the old one is gone, the new one schedules); the extender"
                + " pods were left alone.");

        // Both change: the extender rolls out and is Available before the scheduler restarts.
        setLabel(kwokNodes.get(2), OTHER_LABEL, "5");
        List<Pod> after;
        Pod restarted;
        Instant extenderReady;
        try (PodTimeline timeline = PodTimeline.start(client)) {
            patchSpec(profile, "{\"spec\":{\"labelKey\":\"" + OTHER_LABEL + "\"}}");
            awaitProfileReady(profile);
            awaitGone(newScheduler);
            after = productPods(profile);
            restarted = only(after, "scheduler");
            extenderReady = after.stream()
                    .filter(p -> component(p).equals("extender"))
                    .map(p -> readySince(p))
                    .max(Instant::compareTo)
                    .orElseThrow();
            assertThat(podNames(after, "extender")).doesNotContainAnyElementsOf(podNames(before, "extender"));
            // In the order the API server made the changes (not by one-second timestamps): every new extender pod
            // became Ready before the new scheduler pod was created.
            int schedulerCreated = timeline.first(c -> c.name().equals(name(restarted)));
            assertThat(schedulerCreated)
                    .as("the new scheduler pod in the timeline")
                    .isNotNegative();
            for (Pod extender :
                    after.stream().filter(p -> component(p).equals("extender")).toList()) {
                assertThat(timeline.first(c -> c.name().equals(name(extender)) && c.ready()))
                        .as("%s Ready before the new scheduler pod %s exists", name(extender), name(restarted))
                        .isNotNegative()
                        .isLessThan(schedulerCreated);
            }
        }
        assertThat(awaitBound(createPod(profile))).isEqualTo(kwokNodes.get(2));
        say("Step 9: labelKey -> " + OTHER_LABEL + ": new extender pods " + podNames(after, "extender")
                + " were Ready at " + extenderReady + ", then kube-scheduler pod "
                + restarted.getMetadata().getName() + " was created at "
                + restarted.getMetadata().getCreationTimestamp() + " and scheduled a pod to " + kwokNodes.get(2)
                + ".");
    }

    @Test
    @Order(5)
    void theSchedulerTalksMutualTlsAndAForcedRotationLosesNoPod() throws Exception {
        String profile = "label-priority";
        Names names = new Names(profile, OPERATOR_NAMESPACE);
        String target = kwokNodes.get(2); // labelled OTHER_LABEL=5 in step 9, the profile's labelKey since then
        String config = client.configMaps()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(names.schedulerConfig())
                .get()
                .getData()
                .get(Names.CONFIG_FILE);
        assertThat(config)
                .contains("urlPrefix: " + names.extenderUrl(true))
                .contains("enableHTTPS: true")
                .contains("certFile: " + Names.SCHEDULER_TLS_MOUNT_PATH + "/" + Names.TLS_CERT);

        // At an extender pod's IP (the test host routes to the node's bridge): the scheduler's certificate is
        // served, no certificate, a foreign CA's or an expired one is refused in the handshake.
        Pod extender = productPods(profile).stream()
                .filter(p -> component(p).equals("extender"))
                .findFirst()
                .orElseThrow();
        String ip = extender.getStatus().getPodIP();
        Secret clientSecret = schedulerClientSecret(profile);
        String filter = "{\"Pod\":{\"metadata\":{\"name\":\"probe\",\"namespace\":\"" + namespace
                + "\"}},\"NodeNames\":[\"" + target + "\"]}";
        ExtenderTlsClient.Response answer = ExtenderTlsClient.fromSchedulerSecret(clientSecret)
                .post(ip, Names.EXTENDER_TLS_PORT, "/filter", filter);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).contains(target);
        CertificateIssuer issuer = new CertificateIssuer();
        Instant now = Instant.now();
        RotationPolicy.Validity valid = new RotationPolicy.Validity(now.minusSeconds(600), now.plusSeconds(3600));
        Issued foreignCa = issuer.ca("another-profile-ca", valid);
        Issued ownCa = new Issued(
                Pem.parseCertificates(new String(
                                Base64.getDecoder()
                                        .decode(caSecret(profile).getData().get(Names.CA_CERT)),
                                StandardCharsets.UTF_8))
                        .get(0),
                Pem.parsePrivateKey(new String(
                        Base64.getDecoder().decode(caSecret(profile).getData().get(Names.CA_KEY)),
                        StandardCharsets.UTF_8)));
        assertThat(ExtenderTlsClient.fromSchedulerSecret(clientSecret).handshakeVerdict(ip, Names.EXTENDER_TLS_PORT))
                .as("the scheduler's own certificate passes the handshake (an HTTP answer comes back)")
                .isEmpty();
        Map<String, Issued> refused = new java.util.LinkedHashMap<>();
        refused.put("no client certificate", null);
        refused.put("a certificate of another CA", issuer.client(foreignCa, "intruder", valid));
        refused.put(
                "an expired certificate of the profile's own CA",
                issuer.client(
                        ownCa, "expired", new RotationPolicy.Validity(now.minusSeconds(7200), now.minusSeconds(3600))));
        for (Map.Entry<String, Issued> identity : refused.entrySet()) {
            ExtenderTlsClient intruder = ExtenderTlsClient.trustingProfileWith(clientSecret, identity.getValue());
            assertThat(intruder.handshakeVerdict(ip, Names.EXTENDER_TLS_PORT))
                    .as("a client with %s is refused by the server's alert in the TLS handshake", identity.getKey())
                    .hasValueSatisfying(verdict -> assertThat(verdict).contains("fatal alert"));
        }
        assertThat(healthStatus(ip, "/readyz"))
                .as("probes and scraping need no certificate: the health port is plain HTTP")
                .isEqualTo(200);
        say("Step 10: the scheduler calls " + names.extenderUrl(true) + " with its client certificate; at "
                + ip + ":" + Names.EXTENDER_TLS_PORT + " the same certificate gets 200, while "
                + String.join(", ", refused.keySet()) + " are refused in the TLS handshake; /readyz on "
                + Names.EXTENDER_HEALTH_PORT + " is plain HTTP.");

        NetworkPolicy policy = client.network()
                .v1()
                .networkPolicies()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(names.extenderNetworkPolicy())
                .get();
        assertThat(policy).as("the extender's NetworkPolicy").isNotNull();
        assertThat(extender.getMetadata().getLabels())
                .containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
        Pod scheduler = only(productPods(profile), "scheduler");
        assertThat(policy.getSpec().getIngress()).anySatisfy(rule -> {
            assertThat(rule.getPorts())
                    .singleElement()
                    .satisfies(port -> assertThat(port.getPort().getIntVal()).isEqualTo(Names.EXTENDER_TLS_PORT));
            assertThat(rule.getFrom()).singleElement().satisfies(peer -> assertThat(
                            scheduler.getMetadata().getLabels())
                    .containsAllEntriesOf(peer.getPodSelector().getMatchLabels()));
        });

        // A forced CA rotation while pods keep arriving: every one of them is scheduled.
        String oldCa = caSecret(profile).getData().get(Names.CA_CERT);
        String rotation = "in-cluster-" + now.getEpochSecond();
        List<Pod> during = new ArrayList<>();
        List<String> story;
        try (PodTimeline timeline = PodTimeline.start(client)) {
            patchSpec(profile, "{\"spec\":{\"extender\":{\"tls\":{\"rotate\":\"" + rotation + "\"}}}}");
            Instant deadline = Instant.now().plus(ROLLOUT);
            while (!rotationFinished(profile, rotation, oldCa)) {
                assertThat(Instant.now()).as("the rotation finishes").isBefore(deadline);
                during.add(createPod(profile));
                Await.sleep(3_000);
            }
            awaitProfileReady(profile);
            during.add(createPod(profile));
            for (Pod pod : during) {
                assertThat(awaitBound(pod)).isEqualTo(target);
            }
            story = timeline.story(pod -> pod.getMetadata().getLabels() != null
                            && profile.equals(pod.getMetadata().getLabels().get(Labels.PROFILE))
                    || during.stream().anyMatch(p -> name(p).equals(name(pod))));
        }
        // Every pod went straight to the target: any failed attempt (a refused handshake, an extender that could not
        // be reached while its pods rolled) would show as a FailedScheduling event.
        List<String> failures = client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> "FailedScheduling".equals(e.getReason()))
                .filter(e -> during.stream()
                        .anyMatch(p -> name(p).equals(e.getInvolvedObject().getName())))
                .map(e -> e.getInvolvedObject().getName() + " at " + e.getEventTime() + " (" + e.getLastTimestamp()
                        + ") from " + e.getReportingInstance() + ": " + e.getMessage())
                .toList();
        assertThat(failures)
                .as(
                        "no scheduling attempt of a pod created during the rotation failed; the profile's pods and"
                                + " those pods meanwhile:\n%s",
                        String.join("\n", story))
                .isEmpty();
        // Old extender pods may still be shutting down after the profile is Ready; they still trust the old CA.
        List<Pod> settled = awaitExtenderPodsOfTheCurrentTemplate(profile);
        Secret rotated = schedulerClientSecret(profile);
        ExtenderTlsClient oldIdentity =
                ExtenderTlsClient.trustingProfileWith(rotated, ExtenderTlsClient.identity(clientSecret));
        for (Pod pod : settled) {
            String current = pod.getStatus().getPodIP();
            answer = ExtenderTlsClient.fromSchedulerSecret(rotated)
                    .post(current, Names.EXTENDER_TLS_PORT, "/filter", filter);
            assertThat(answer.status())
                    .as("the rotated identity on %s", name(pod))
                    .isEqualTo(200);
            assertThat(oldIdentity.handshakeVerdict(current, Names.EXTENDER_TLS_PORT))
                    .as(
                            "the scheduler's old certificate, from the dropped CA, is refused by %s in the TLS"
                                    + " handshake after the rotation",
                            name(pod))
                    .hasValueSatisfying(verdict -> assertThat(verdict).contains("fatal alert"));
        }
        say("Step 10: forced CA rotation (spec.extender.tls.rotate=" + rotation + "): " + during.size()
                + " pods created during it were all scheduled to " + target
                + ", none failed on TLS; the old client certificate is refused now.");
    }

    private boolean rotationFinished(String profile, String rotation, String oldCa) {
        Secret ca = caSecret(profile);
        return ca != null
                && !oldCa.equals(ca.getData().get(Names.CA_CERT))
                && rotation.equals(ca.getMetadata().getAnnotations().get(Labels.ROTATED_FOR))
                && !ca.getData().containsKey(Names.PREVIOUS_CA_CERT);
    }

    private Secret caSecret(String profile) {
        return client.secrets()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(new Names(profile, OPERATOR_NAMESPACE).caSecret())
                .get();
    }

    private Secret schedulerClientSecret(String profile) {
        return client.secrets()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(new Names(profile, OPERATOR_NAMESPACE).schedulerClientSecret())
                .get();
    }

    @Test
    @Order(6)
    void deletingTheExtenderPodMakesStrictPodsWaitAndLenientPodsGoOn() {
        setLabel(kwokNodes.get(0), LABEL, "30");
        applyProfile("fault-strict", "labelKey: " + LABEL + "\nextender:\n  replicas: 1\n  ignorable: false\n");
        applyProfile("fault-lenient", "labelKey: " + LABEL + "\nextender:\n  replicas: 1\n  ignorable: true\n");
        awaitProfileReady("fault-strict");
        awaitProfileReady("fault-lenient");

        Pod strictExtender = killExtenderAndAwaitNoEndpoint("fault-strict");
        List<Pod> strictPods = List.of(createPod("fault-strict"), createPod("fault-strict"));
        Event failed = awaitEvent(strictPods.get(0), "FailedScheduling");
        assertThat(failed.getMessage()).contains("fault-strict-extender");
        say("Step 11: deleted extender pod " + strictExtender.getMetadata().getName()
                + " (ignorable: false) -> pods wait: \"" + failed.getMessage() + "\"");
        awaitAvailable(OPERATOR_NAMESPACE, "fault-strict-extender");
        Instant back = Instant.now();
        // Nothing nudges them: a pod whose scheduling failed with an error (the extender unreachable) is retried after
        // its backoff, at most 10 s by default.
        for (Pod pod : strictPods) {
            assertThat(awaitBound(pod)).isEqualTo(kwokNodes.get(0));
        }
        Duration retried = Duration.between(back, Instant.now());
        say("Step 11: the extender came back -> both waiting pods were scheduled to " + kwokNodes.get(0) + ", "
                + retried.toMillis() + " ms after it was available, with no update to them.");
        assertThat(retried)
                .as("the waiting pods' retry after the extender came back: their backoff (at most 10 s) and one call")
                .isLessThanOrEqualTo(Duration.ofSeconds(20));

        // The claim: with the extender gone, a lenient pod is scheduled without it. The replacement extender pod must
        // not be Ready before the binding, or nothing is shown: the node is cordoned while the pod is scheduled, so
        // the replacement waits Pending. (Without the cordon it won the race every time with the NetworkPolicy
        // enforcer on: kube-router accepts the scheduler's packets to the endpoint-less Service before kube-proxy can
        // refuse them, so each extender call waits out httpTimeout instead of failing at once.)
        setUnschedulable(node, true);
        Pod lenientExtender;
        String boundTo;
        Duration toBinding;
        try (PodTimeline timeline = PodTimeline.start(client)) {
            lenientExtender = killExtenderAndAwaitNoEndpoint("fault-lenient");
            Instant created = Instant.now();
            Pod lenient = createPod("fault-lenient");
            boundTo = awaitBound(lenient);
            toBinding = Duration.between(created, Instant.now());
            Pod replacement = only(productPods("fault-lenient"), "extender");
            assertThat(timeline.first(c -> c.name().equals(name(replacement)) && c.ready()))
                    .as(
                            "the replacement extender pod %s was never Ready while the pod was scheduled",
                            name(replacement))
                    .isNegative();
            assertThat(replacement.getSpec().getNodeName())
                    .as("the replacement extender pod waits for the cordoned node")
                    .isNull();
        } finally {
            setUnschedulable(node, false);
        }
        awaitAvailable(OPERATOR_NAMESPACE, "fault-lenient-extender");
        say("Step 12: deleted extender pod " + lenientExtender.getMetadata().getName()
                + " (ignorable: true) and held its replacement back -> a pod was scheduled without it, to " + boundTo
                + ", " + toBinding.toMillis()
                + " ms after it was created (each extender call waited out httpTimeout, 5 s).");
        deleteProfile("fault-strict");
        deleteProfile("fault-lenient");
    }

    @Test
    @Order(7)
    void theOperatorKilledInTheMiddleOfARolloutConverges() {
        String profile = "label-priority";
        Deployment extender = deployment(OPERATOR_NAMESPACE, profile + Names.EXTENDER_SUFFIX);
        long generation = extender.getMetadata().getGeneration();
        Pod operator = singlePod(OPERATOR_NAMESPACE, Map.of("app.kubernetes.io/name", OPERATOR));
        patchSpec(profile, "{\"spec\":{\"labelKey\":\"" + LABEL + "\"}}");
        Await.until(
                Duration.ofSeconds(60),
                "the operator starts rolling the extender out",
                () -> deployment(OPERATOR_NAMESPACE, profile + Names.EXTENDER_SUFFIX)
                                .getMetadata()
                                .getGeneration()
                        > generation);
        client.pods()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(operator.getMetadata().getName())
                .withGracePeriod(0)
                .delete();
        say("Step 13: labelKey back to " + LABEL + ", and the operator pod "
                + operator.getMetadata().getName() + " killed while the extender rolls out.");
        // Right after the kill the Deployment's status still counts the killed pod as ready: wait for its replacement.
        Await.until(ROLLOUT, "a new operator pod is Ready", () -> client
                .pods()
                .inNamespace(OPERATOR_NAMESPACE)
                .withLabels(Map.of("app.kubernetes.io/name", OPERATOR))
                .list()
                .getItems()
                .stream()
                .anyMatch(p ->
                        !p.getMetadata().getName().equals(operator.getMetadata().getName())
                                && p.getMetadata().getDeletionTimestamp() == null
                                && Readiness.isPodReady(p)));
        awaitAvailable(OPERATOR_NAMESPACE, OPERATOR);
        awaitProfileReady(profile);
        Map<String, String> selector = Map.of("schedulerops.dev/profile", profile);
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withLabels(selector)
                        .list()
                        .getItems())
                .hasSize(2);
        assertThat(client.configMaps()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withLabels(selector)
                        .list()
                        .getItems())
                .hasSize(1);
        assertThat(client.services()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withLabels(selector)
                        .list()
                        .getItems())
                .hasSize(1);
        Await.until(ROLLOUT, "old pods are gone", () -> productPods(profile).size() == 3);
        assertThat(awaitBound(createPod(profile))).isEqualTo(kwokNodes.get(0));
        say("Step 13: the new operator pod converged: profile Ready at its generation, 2 Deployments, 1 ConfigMap,"
                + " 1 Service, 3 pods, and the new scheduler schedules.");
    }

    @Test
    @Order(8)
    void restartingTheKubeletKeepsThePodsRunning() {
        // What the restart must keep as it was: every pod on the node running and Ready (a pod still starting would
        // be Ready only later, and not because of the restart).
        Await.until(
                Duration.ofSeconds(90),
                "every pod on the real node is Ready before the kubelet restarts",
                () -> podsOnTheRealNode().stream().allMatch(Readiness::isPodReady));
        List<Pod> before = podsOnTheRealNode();
        Map<String, String> containers = containerIds(before);
        List<PodTimeline.Change> changes;
        try (PodTimeline timeline = PodTimeline.start(client)) {
            Instant restarted = Instant.now();
            RealNode.restartKubelet();
            // Back and synced: the new kubelet has posted the node's status, and has reported every pod on the node
            // Ready again (it probes each one after its start). A container it killed or restarted in its first syncs
            // would show meanwhile as a change of that pod with another container ID or restart count.
            Await.until(
                    Duration.ofSeconds(90),
                    "the restarted kubelet has posted the node's status",
                    () -> client.nodes().withName(node).get().getStatus().getConditions().stream()
                            .anyMatch(c -> "Ready".equals(c.getType())
                                    && "True".equals(c.getStatus())
                                    && Instant.parse(c.getLastHeartbeatTime()).isAfter(restarted)));
            List<String> wereReady = before.stream()
                    .filter(Readiness::isPodReady)
                    .map(p -> p.getMetadata().getName())
                    .toList();
            Await.until(
                    Duration.ofSeconds(90),
                    "every pod that was Ready on the real node is Ready again",
                    () -> podsOnTheRealNode().stream()
                                    .filter(p ->
                                            wereReady.contains(p.getMetadata().getName()))
                                    .filter(Readiness::isPodReady)
                                    .count()
                            == wereReady.size());
            changes = timeline.changes();
        }
        List<Pod> after = podsOnTheRealNode();
        assertThat(containerIds(after)).isEqualTo(containers);
        after.forEach(this::assertRunningOnTheRealNode);
        assertThat(changes.stream()
                        .filter(c -> containers.keySet().stream().anyMatch(k -> k.startsWith(c.name() + "/")))
                        .filter(c -> c.pod().getStatus() != null
                                && c.pod().getStatus().getContainerStatuses() != null)
                        .flatMap(c -> c.pod().getStatus().getContainerStatuses().stream()
                                .filter(cs -> cs.getContainerID() != null
                                        && !cs.getContainerID().equals(containers.get(c.name() + "/" + cs.getName())))
                                .map(cs -> c.name() + "/" + cs.getName() + " -> " + cs.getContainerID())))
                .as("containers of the real node's pods replaced while the kubelet restarted")
                .isEmpty();
        say("Step 14: restarted the kubelet -> the " + before.size()
                + " pods on the real node kept their containers (same IDs, restartCount 0).");
    }

    @Test
    @Order(9)
    void everyContainerRunsRestrictedAndWithinItsMemoryLimit() {
        List<Pod> pods = podsOnTheRealNode();
        assertThat(pods).isNotEmpty();
        List<String> report = new ArrayList<>();
        for (Pod pod : pods) {
            for (ContainerStatus status : pod.getStatus().getContainerStatuses()) {
                RealNode.ContainerProcess process = RealNode.inspect(status.getContainerID());
                String where = pod.getMetadata().getName() + "/" + status.getName();
                assertThat(process.uid()).as("%s runs as user 65532", where).isEqualTo(65532);
                assertThat(process.gid()).as("%s runs as group 65532", where).isEqualTo(65532);
                assertThat(process.effectiveCapabilities())
                        .as("%s has no capabilities", where)
                        .isEqualTo("0000000000000000");
                assertThat(process.noNewPrivileges())
                        .as("%s has no_new_privs", where)
                        .isTrue();
                assertThat(process.readOnlyRoot())
                        .as("%s has a read-only root", where)
                        .isTrue();
                if (status.getName().equals("extender") || status.getName().equals("operator")) {
                    assertThat(process.commandLine())
                            .as("%s: an OutOfMemoryError ends the JVM, so the kubelet restarts it", where)
                            .contains("-XX:+ExitOnOutOfMemoryError");
                }
                if (status.getName().equals("extender")) {
                    // A heap flag on the command line would override JAVA_TOOL_OPTIONS, the profile's jvm settings.
                    assertThat(process.commandLine())
                            .as("%s: the heap is set by JAVA_TOOL_OPTIONS only", where)
                            .noneMatch(argument -> argument.startsWith("-XX:MaxRAMPercentage"));
                    assertThat(process.environment().get("JAVA_TOOL_OPTIONS"))
                            .as("%s: JAVA_TOOL_OPTIONS as the operator rendered it", where)
                            .isEqualTo(renderedEnv(pod, "extender", "JAVA_TOOL_OPTIONS"));
                }
                process.memoryLimitBytes().ifPresent(limit -> assertThat(process.peakMemoryBytes())
                        .as("%s peak memory", where)
                        .isLessThan(limit));
                report.add(String.format(
                        "%-55s peak %4d MiB of %s",
                        where,
                        process.peakMemoryBytes() >> 20,
                        process.memoryLimitBytes()
                                .map(l -> (l >> 20) + " MiB limit")
                                .orElse("no limit")));
            }
        }
        say("Step 15: every container runs as 65532:65532, no capabilities, no_new_privs, read-only root; the JVMs"
                + " exit on OutOfMemoryError and the extender's heap follows its profile; peak memory"
                + " (cgroup memory.max_usage_in_bytes):");
        report.forEach(line -> say("  " + line));
    }

    /**
     * Preemption through the in-cluster kube-scheduler (this cluster's version's image) and extender: four full KWOK
     * nodes, two with the profile's label; a high-priority pod of a profile with {@code Preempt} frees one of the
     * labelled nodes only, although the unlabelled ones hold the least important pods, and lands there after its victims
     * are gone. {@link PreemptionTest} shows the same, and what happens without {@code Preempt}, on KWOK with the binary.
     */
    @Test
    @Order(10)
    void preemptionThroughTheInClusterSchedulerFreesOnlyANodeTheFilterKeeps() {
        String profile = "in-cluster-preempt";
        try (PreemptionPools pools = new PreemptionPools(cluster, PREEMPTION_LABEL);
                PodTimeline timeline = PodTimeline.start(client)) {
            PreemptionPools.Pool pool = pools.fullPool("in-cluster");
            client.resource(OperatorTests.profile(
                            "in-cluster",
                            profile,
                            "labelKey: " + PREEMPTION_LABEL + "\nverbs: [Filter, Preempt]\nextender: {replicas: 1}\n"))
                    .create();
            awaitProfileReady(profile);
            Pod high = pools.createHighPriorityPod("high-" + pools.suffix(), profile, pool);
            // Nothing touches the pod: the operator turns kube-scheduler's asynchronous preemption off, which left a
            // preemptor in the unschedulable pool after its victims were gone (kubernetes/kubernetes#141694).
            String bound = pools.awaitBound(high, BIND);
            List<String> victims = pools.victims(pool);
            assertThat(pool.labelled()).contains(bound);
            assertThat(victims).isNotEmpty().allSatisfy(v -> assertThat(pool.nodeOf(v))
                    .as("victim " + v + " is on the node the pod went to")
                    .isEqualTo(bound));
            pools.assertVictimsGoneBeforeBinding(
                    timeline, victims, high.getMetadata().getName());
            assertThat(extenderCounter(profile, "verb=\"preempt\""))
                    .as("the in-cluster kube-scheduler called the extender's preempt verb")
                    .isPositive();
            say("Step 16: a high-priority pod of " + profile + " (Filter, Preempt) on four full KWOK nodes, labelled "
                    + pool.labelled() + ", unlabelled " + pool.unlabelled()
                    + " (with the least important pods): victims "
                    + victims + ", all on " + bound + ", deleted before the pod was bound there.");
        } finally {
            deleteProfile(profile);
        }
    }

    @Test
    @Order(11)
    void helmInstallsTheSameOperator() {
        Path helm = helm();
        // As deploy/README.md says: profiles first, while the operator still runs to remove its finalizer.
        kubectl("delete", "schedulerprofiles", "--all", "--wait=true", "--timeout=180s")
                .requireSuccess("kubectl delete schedulerprofiles --all");
        kubectl("delete", "-k", repo("deploy"), "--wait=true", "--timeout=180s")
                .requireSuccess("kubectl delete -k deploy/");
        Commands.run(
                        List.of(
                                helm.toString(),
                                "install",
                                "schedulerops",
                                repo("deploy/helm/schedulerops"),
                                "--namespace",
                                OPERATOR_NAMESPACE,
                                "--create-namespace",
                                "--kubeconfig",
                                cluster.kubeconfig().toString(),
                                "--wait",
                                "--timeout",
                                "180s"),
                        Duration.ofMinutes(4))
                .requireSuccess("helm install");
        awaitAvailable(OPERATOR_NAMESPACE, OPERATOR);
        Pod operator = singlePod(OPERATOR_NAMESPACE, Map.of("app.kubernetes.io/name", OPERATOR));
        assertRunningOnTheRealNode(operator);
        applySample("label-priority.yaml");
        awaitProfileReady("label-priority");
        List<Pod> pods = productPods("label-priority");
        assertThat(pods).hasSize(3);
        pods.forEach(this::assertRunningOnTheRealNode);
        setLabel(kwokNodes.get(0), LABEL, "30");
        assertThat(awaitBound(createPod("label-priority"))).isEqualTo(kwokNodes.get(0));
        say("Step 17: helm install of deploy/helm/schedulerops -> operator pod "
                + operator.getMetadata().getName() + " runs on " + node
                + "; the sample profile's pods run there too and schedule a pod.");
        deleteProfile("label-priority");
        Commands.run(
                        List.of(
                                helm.toString(),
                                "uninstall",
                                "schedulerops",
                                "--namespace",
                                OPERATOR_NAMESPACE,
                                "--kubeconfig",
                                cluster.kubeconfig().toString(),
                                "--wait"),
                        Duration.ofMinutes(3))
                .requireSuccess("helm uninstall");
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withName(OPERATOR)
                        .get())
                .as("helm uninstall removed the operator")
                .isNull();
        // Helm keeps the CRDs of a chart's crds/ on uninstall, by design, and stays their field manager: a later
        // `kubectl apply --server-side -k deploy/` (the next real-node class) would then conflict on the CRD.
        kubectl("delete", "crd", Crds.NAME, "--wait=true", "--timeout=120s")
                .requireSuccess("kubectl delete crd (kept by helm uninstall)");
        // The chart's crds/ also holds the SchedulerProfilePreview CRD (previews): kept the same way.
        kubectl(
                        "delete",
                        "crd",
                        DeployManifestsTest.PREVIEW_CRD_NAME,
                        "--ignore-not-found",
                        "--wait=true",
                        "--timeout=120s")
                .requireSuccess(
                        "kubectl delete crd " + DeployManifestsTest.PREVIEW_CRD_NAME + " (kept by helm uninstall)");
    }

    // --- steps ---------------------------------------------------------------------------------------------

    private static String renderedEnv(Pod pod, String container, String variable) {
        return pod.getSpec().getContainers().stream()
                .filter(c -> c.getName().equals(container))
                .flatMap(c -> c.getEnv().stream())
                .filter(e -> e.getName().equals(variable))
                .map(e -> e.getValue())
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        container + " of " + pod.getMetadata().getName() + " has no " + variable));
    }

    private void applySample(String file) {
        kubectl("apply", "--server-side", "-f", repo("samples/" + file))
                .requireSuccess("kubectl apply -f samples/" + file);
    }

    private void applyProfile(String name, String spec) {
        String yaml = "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata:\n  name: " + name
                + "\nspec:\n" + spec.indent(2);
        Commands.run(
                        List.of(kubectlPath(), "--kubeconfig", kubeconfig(), "apply", "--server-side", "-f", "-"),
                        yaml,
                        Duration.ofSeconds(30))
                .requireSuccess("kubectl apply " + name);
    }

    private void patchSpec(String profile, String mergePatch) {
        kubectl("patch", "schedulerprofile", profile, "--type=merge", "-p", mergePatch)
                .requireSuccess("kubectl patch " + profile);
    }

    private void deleteProfile(String profile) {
        kubectl("delete", "schedulerprofile", profile, "--ignore-not-found", "--wait=true");
        Await.until(ROLLOUT, "the pods of " + profile + " are gone", () -> productPods(profile)
                .isEmpty());
    }

    private void awaitProfileReady(String profile) {
        Await.until(ROLLOUT, "SchedulerProfile " + profile + " is Ready at its generation", () -> {
            GenericKubernetesResource current = client.genericKubernetesResources(PROFILES)
                    .withName(profile)
                    .get();
            if (current == null || !(current.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
                return false;
            }
            boolean ready = status.get("conditions") instanceof List<?> conditions
                    && conditions.stream()
                            .map(c -> (Map<?, ?>) c)
                            .anyMatch(c -> "Ready".equals(c.get("type")) && "True".equals(c.get("status")));
            Object observed = status.get("observedGeneration");
            return ready
                    && observed != null
                    && ((Number) observed).longValue() == current.getMetadata().getGeneration();
        });
        // Ready means the rollout finished; the old pods of a rolling update may still be terminating.
        Await.until(ROLLOUT, "only current pods of " + profile + " remain", () -> productPods(profile).stream()
                .allMatch(p -> p.getMetadata().getDeletionTimestamp() == null && isReady(p)));
    }

    private void awaitAvailable(String ns, String deployment) {
        Await.until(ROLLOUT, "Deployment " + ns + "/" + deployment + " is Available", () -> {
            Deployment d = deployment(ns, deployment);
            return d != null
                    && d.getStatus() != null
                    && Objects.equals(
                            d.getStatus().getObservedGeneration(),
                            d.getMetadata().getGeneration())
                    && d.getStatus().getConditions().stream()
                            .anyMatch(c -> "Available".equals(c.getType()) && "True".equals(c.getStatus()))
                    && Objects.equals(
                            d.getStatus().getUpdatedReplicas(), d.getSpec().getReplicas())
                    && Objects.equals(
                            d.getStatus().getReadyReplicas(), d.getSpec().getReplicas())
                    && Objects.equals(d.getStatus().getReplicas(), d.getSpec().getReplicas());
        });
    }

    private Pod killExtenderAndAwaitNoEndpoint(String profile) {
        Pod extender = only(productPods(profile), "extender");
        client.pods()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(extender.getMetadata().getName())
                .withGracePeriod(0)
                .delete();
        Await.until(Duration.ofSeconds(30), "the " + profile + " extender Service has no ready endpoint", () -> client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(OPERATOR_NAMESPACE)
                .withLabel("kubernetes.io/service-name", profile + Names.EXTENDER_SUFFIX)
                .list()
                .getItems()
                .stream()
                .map(EndpointSlice::getEndpoints)
                .filter(Objects::nonNull)
                .flatMap(List::stream)
                .noneMatch(e -> e.getConditions() != null
                        && Boolean.TRUE.equals(e.getConditions().getReady())));
        // The extender is gone, not only out of the endpoints: its container no longer runs on the node.
        String container = extender.getStatus().getContainerStatuses().get(0).getContainerID();
        Await.until(
                Duration.ofSeconds(30),
                "the " + profile + " extender's container " + container + " no longer runs",
                () -> !RealNode.containerRunning(container));
        // kube-proxy's next sync turns the Service without a backend into a REJECT rule for its ClusterIP, and the
        // scheduler's calls fail at once; before it, they go to the dead pod's address and wait out httpTimeout. Either
        // way no extender answers, which is all the steps need. Twice in the matrix (1.30, 1.32, loaded machine)
        // kube-proxy logged no sync at all for over 30 s after the endpoint left: reported, not required.
        String clusterIp = client.services()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(profile + Names.EXTENDER_SUFFIX)
                .get()
                .getSpec()
                .getClusterIP();
        long since = System.nanoTime();
        boolean rejects = Await.within(Duration.ofSeconds(30), () -> RealNode.kubeProxyRejects(clusterIp));
        say("  " + profile + ": kube-proxy "
                + (rejects
                        ? "rejects its Service "
                                + Duration.ofNanos(System.nanoTime() - since).toMillis() + " ms after the endpoint left"
                        : "had not turned its Service into a REJECT after 30 s: calls go to the dead pod's address"));
        return extender;
    }

    private void awaitExtenderChooses(String profile, String expectedNode) {
        // Every replica keeps its own node cache: ask each one, at its pod IP on the node's bridge.
        Await.until(
                Duration.ofSeconds(30),
                "every " + profile + " extender replica chooses " + expectedNode,
                () -> filterOnlyOneAnswers(profile)
                        .allMatch(a -> a.contains("\"NodeNames\":[\"" + expectedNode + "\"]")));
    }

    /** Each replica's answer to a FilterOnlyOne call over every KWOK node, asked at its pod IP. */
    private java.util.stream.Stream<String> filterOnlyOneAnswers(String profile) {
        String request =
                "{\"Pod\":{\"metadata\":{\"name\":\"probe\",\"namespace\":\"" + namespace + "\"}},\"NodeNames\":"
                        + kwokNodes.stream().map(n -> "\"" + n + "\"").toList() + "}";
        return productPods(profile).stream()
                .filter(p -> component(p).equals("extender"))
                .map(p -> post(profile, p.getStatus().getPodIP(), "/filter_onlyone", request));
    }

    /**
     * Waits until no replica of the profile's extender (a FilterOnlyOne profile) finds a node with the label: its node
     * cache has dropped it.
     */
    private void awaitExtenderChoosesNone(String profile) {
        Await.until(
                Duration.ofSeconds(30),
                "every " + profile + " extender replica finds no node with the label",
                () -> filterOnlyOneAnswers(profile).noneMatch(a -> a.contains("\"NodeNames\":[\"")));
    }

    private double extenderCounter(String profile, String labelFilter) {
        return productPods(profile).stream()
                .filter(p -> component(p).equals("extender"))
                .mapToDouble(p -> get(p.getStatus().getPodIP(), "/metrics")
                        .lines()
                        .filter(l -> l.startsWith("schedulerops_extender_requests_total{") && l.contains(labelFilter))
                        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                        .sum())
                .sum();
    }

    // --- pods ----------------------------------------------------------------------------------------------

    private Pod createPod(String schedulerName) {
        return client.resource(
                        RestrictedPods.forScheduler(namespace, schedulerName + "-pod-" + (++podCounter), schedulerName))
                .create();
    }

    private String awaitBound(Pod pod) {
        return client.pods()
                .inNamespace(namespace)
                .withName(name(pod))
                .waitUntilCondition(
                        p -> p != null && p.getSpec().getNodeName() != null, BIND.toSeconds(), TimeUnit.SECONDS)
                .getSpec()
                .getNodeName();
    }

    private Event awaitEvent(Pod pod, String reason) {
        Event[] found = new Event[1];
        Await.until(BIND, "a " + reason + " event for pod " + name(pod), () -> {
            found[0] = client.v1().events().inNamespace(namespace).list().getItems().stream()
                    .filter(e -> name(pod).equals(e.getInvolvedObject().getName()))
                    .filter(e -> reason.equals(e.getReason()))
                    .findFirst()
                    .orElse(null);
            return found[0] != null;
        });
        return found[0];
    }

    private void awaitGone(Pod pod) {
        Await.until(
                ROLLOUT,
                "pod " + name(pod) + " is gone",
                () -> client.pods()
                                .inNamespace(pod.getMetadata().getNamespace())
                                .withName(name(pod))
                                .get()
                        == null);
    }

    /** Waits until every extender pod runs the Deployment's current template and no older pod is left. */
    private List<Pod> awaitExtenderPodsOfTheCurrentTemplate(String profile) {
        Deployment deployment = client.apps()
                .deployments()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(new Names(profile, OPERATOR_NAMESPACE).extender())
                .get();
        String hash = deployment
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(Labels.TLS_HASH);
        int replicas = deployment.getSpec().getReplicas();
        List<List<Pod>> settled = new ArrayList<>();
        Await.until(ROLLOUT, "only extender pods with tls-hash " + hash + " are left", () -> {
            List<Pod> extenders = productPods(profile).stream()
                    .filter(p -> component(p).equals("extender"))
                    .toList();
            boolean done = extenders.size() == replicas
                    && extenders.stream()
                            .allMatch(p -> p.getMetadata().getDeletionTimestamp() == null
                                    && hash.equals(
                                            p.getMetadata().getAnnotations().get(Labels.TLS_HASH))
                                    && p.getStatus().getPodIP() != null);
            if (done) {
                settled.add(extenders);
            }
            return done;
        });
        return settled.get(0);
    }

    private List<Pod> productPods(String profile) {
        return client.pods()
                .inNamespace(OPERATOR_NAMESPACE)
                .withLabel("schedulerops.dev/profile", profile)
                .list()
                .getItems();
    }

    private List<Pod> podsOnTheRealNode() {
        return client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private Pod singlePod(String ns, Map<String, String> labels) {
        List<Pod> pods = client.pods().inNamespace(ns).withLabels(labels).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
        assertThat(pods).as("pods %s in %s", labels, ns).hasSize(1);
        return pods.get(0);
    }

    private Pod pod(Pod pod) {
        return client.pods().inNamespace(namespace).withName(name(pod)).get();
    }

    private void assertRunningOnTheRealNode(Pod pod) {
        Pod current = client.pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(name(pod))
                .get();
        assertThat(current.getSpec().getNodeName()).as("node of %s", name(pod)).isEqualTo(node);
        assertThat(current.getStatus().getContainerStatuses())
                .as("containers of %s", name(pod))
                .isNotEmpty()
                .allSatisfy(c -> {
                    assertThat(c.getReady()).as("%s ready", c.getName()).isTrue();
                    assertThat(c.getRestartCount())
                            .as("%s restartCount", c.getName())
                            .isZero();
                });
        // A scheduler pod's sidecar runs as long as the pod: it too is Ready and never restarted.
        boolean schedulerPod = Labels.COMPONENT_SCHEDULER.equals(
                current.getMetadata().getLabels().get(Labels.COMPONENT));
        assertThat(java.util.Optional.ofNullable(current.getStatus().getInitContainerStatuses())
                        .orElse(List.of()))
                .as("sidecars of %s", name(pod))
                .filteredOn(c -> Names.RELEASE_LEASE_CONTAINER.equals(c.getName()))
                .hasSize(schedulerPod ? 1 : 0)
                .allSatisfy(c -> {
                    assertThat(c.getReady()).as("%s ready", c.getName()).isTrue();
                    assertThat(c.getRestartCount())
                            .as("%s restartCount", c.getName())
                            .isZero();
                });
    }

    private static Pod only(List<Pod> pods, String component) {
        List<Pod> matching =
                pods.stream().filter(p -> component(p).equals(component)).toList();
        assertThat(matching).as("%s pods", component).hasSize(1);
        return matching.get(0);
    }

    private static String component(Pod pod) {
        return pod.getMetadata().getLabels().getOrDefault("app.kubernetes.io/component", "");
    }

    private static List<String> podNames(List<Pod> pods, String component) {
        return pods.stream()
                .filter(p -> component(p).equals(component))
                .map(p -> p.getMetadata().getName())
                .sorted()
                .toList();
    }

    private static Map<String, String> containerIds(List<Pod> pods) {
        return pods.stream()
                .flatMap(p -> p.getStatus().getContainerStatuses().stream()
                        .map(c -> Map.entry(p.getMetadata().getName() + "/" + c.getName(), c.getContainerID())))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static boolean isReady(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static Instant readySince(Pod pod) {
        return pod.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()))
                .map(PodCondition::getLastTransitionTime)
                .map(Instant::parse)
                .findFirst()
                .orElseThrow(() -> new AssertionError("pod " + name(pod) + " is not Ready"));
    }

    private static Instant scheduledAt(Pod pod) {
        return pod.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType()) && "True".equals(c.getStatus()))
                .map(PodCondition::getLastTransitionTime)
                .map(Instant::parse)
                .findFirst()
                .orElseThrow(() -> new AssertionError("pod " + name(pod) + " is not scheduled"));
    }

    private static String name(Pod pod) {
        return pod.getMetadata().getName();
    }

    private void setLabel(String nodeName, String key, String value) {
        MergePatch.nodeLabel(client, nodeName, key, value);
    }

    /** Cordons ({@code true}) or uncordons a node, as {@code kubectl cordon} does. */
    private void setUnschedulable(String nodeName, boolean unschedulable) {
        client.nodes().withName(nodeName).edit(n -> {
            n.getSpec().setUnschedulable(unschedulable ? true : null);
            return n;
        });
    }

    private Deployment deployment(String ns, String name) {
        return client.apps().deployments().inNamespace(ns).withName(name).get();
    }

    // --- tools ---------------------------------------------------------------------------------------------

    private Commands.Result kubectl(String... args) {
        return cluster.kubectl(args);
    }

    private static String kubectlPath() {
        return Commands.kubectl();
    }

    private String kubeconfig() {
        return cluster.kubeconfig().toString();
    }

    private static String repo(String relative) {
        return E2eSettings.repoRoot().resolve(relative).toString();
    }

    private static Path helm() {
        String property = System.getProperty("schedulerops.helm");
        Path path = property != null && !property.isBlank()
                ? Path.of(property)
                : Path.of(System.getProperty("user.home"), ".cache/schedulerops/tools/helm");
        assertThat(path)
                .as("helm (deploy/helm/build-helm builds it; ./test passes -Dschedulerops.helm)")
                .isExecutable();
        return path;
    }

    /** A verb call at an extender pod's IP, over mutual TLS with the profile's scheduler certificate. */
    private String post(String profile, String ip, String path, String body) {
        return ExtenderTlsClient.fromSchedulerSecret(schedulerClientSecret(profile))
                .postOrFail(ip, Names.EXTENDER_TLS_PORT, path, body);
    }

    /** The extender's health port: plain HTTP, no certificate (probes, /metrics). */
    private static String get(String ip, String path) {
        return send(HttpRequest.newBuilder(URI.create("http://" + ip + ":" + Names.EXTENDER_HEALTH_PORT + path))
                .GET());
    }

    private static int healthStatus(String ip, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://" + ip + ":" + Names.EXTENDER_HEALTH_PORT + path))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static String send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
