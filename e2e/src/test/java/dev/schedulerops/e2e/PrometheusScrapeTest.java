package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.ChildProcess;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.e2e.support.ThirdPartyTools;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.preview.LoopbackPorts;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (v0.316.0, e2e/tools/build prometheus, as a host process on loopback) scrapes the operator and an
 * extender running as containers on the real node, and a profile's kube-scheduler with the shipped metrics-reader
 * token, with the target labels a PodMonitor would give them ({@code namespace}, {@code pod}, {@code
 * schedulerprofile}), and evaluates the shipped rules of deploy/monitoring: every metric an alert reads exists
 * under that name, every rule evaluates without error, and on a healthy install no alert fires or is pending; then,
 * with the rules' waits cut to seconds, the alerts that need a fault fire when the test makes the fault and clear when
 * it undoes it.
 */
@AwaitsBackgroundBuild(BackgroundBuild.PROMETHEUS)
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrometheusScrapeTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String PROFILE = "scraped";
    static final String LABEL = "scraped.example.com/rank";
    /** How long a shortened alert may take to fire once its fault is made, and to clear once it is undone. */
    static final Duration ALERT = Duration.ofMinutes(3);

    static final Duration ROLLOUT = Duration.ofMinutes(3);
    static final String METRICS_TOKEN_SECRET = "schedulerops-scheduler-metrics-token";
    private static final Pattern METRIC = Pattern.compile("schedulerops_[a-z_]+");

    private final HttpClient http = HttpClient.newHttpClient();
    private Cluster cluster;
    private KubernetesClient client;
    private ChildProcess prometheus;
    private int port;
    private Path rulesFile;
    private String labelledNode;
    private String namespace;
    /** deploy/monitoring/prometheusrule.yaml, read once: its text and the PrometheusRule. */
    private String rulesText;

    private JsonNode rule;

    static void say(String line) {
        System.out.println("[prometheus] " + line);
        System.out.flush();
    }

    @BeforeAll
    void installTheProductAProfileAndPrometheus(Cluster cluster, @TempDir Path dir) throws IOException {
        this.cluster = cluster;
        client = cluster.client();
        Path binary = ThirdPartyTools.prometheus(PrometheusScrapeTest.class.getSimpleName());
        RealNode.ensure();
        OperatorTests.installTheDeployedProduct(cluster, ROLLOUT);
        // It binds too, so that an extender cut off the API server answers its binds with 502 (the third test).
        client.resource(OperatorTests.profile(
                        "scraped",
                        PROFILE,
                        "labelKey: " + LABEL + "\nverbs: [Filter, Prioritize, Bind]\nextender: {replicas: 1}\n"))
                .create();
        OperatorTests.awaitCurrent(client, PROFILE, ROLLOUT);

        rulesText = Files.readString(cluster.repoRoot().resolve("deploy/monitoring/prometheusrule.yaml"));
        rule = Commands.yamlDocuments(rulesText).get(0);
        rulesFile = dir.resolve("rules.yaml");
        Files.writeString(rulesFile, rule.path("spec").toString());
        Pod operator = onlyPod(Map.of("app.kubernetes.io/name", InClusterTest.OPERATOR));
        Pod extender = onlyPod(Labels.selector(PROFILE, Labels.COMPONENT_EXTENDER));
        Pod scheduler = onlyPod(Labels.selector(PROFILE, Labels.COMPONENT_SCHEDULER));
        assertThePodMonitorSelects("podmonitor-extenders.yaml", extender, 8081);
        assertThePodMonitorSelects("podmonitor-schedulers.yaml", scheduler, Names.SCHEDULER_SECURE_PORT);
        // The scheduler's /metrics needs a token allowed to GET it: the shipped ServiceAccount's, from its Secret.
        cluster.kubectl(
                        "apply",
                        "-f",
                        cluster.repoRoot()
                                .resolve("deploy/monitoring/scheduler-metrics-reader.yaml")
                                .toString())
                .requireSuccess("kubectl apply -f deploy/monitoring/scheduler-metrics-reader.yaml");
        String token = Await.value(
                Duration.ofSeconds(60), "the token controller fills " + METRICS_TOKEN_SECRET, () -> Optional.ofNullable(
                                client.secrets()
                                        .inNamespace(WORKLOAD)
                                        .withName(METRICS_TOKEN_SECRET)
                                        .get())
                        .map(Secret::getData)
                        .map(data -> data.get("token"))
                        .orElse(null));
        Files.writeString(
                dir.resolve("scheduler-token"), new String(Base64.getDecoder().decode(token), StandardCharsets.UTF_8));
        Files.writeString(
                dir.resolve("prometheus.yaml"),
                """
                global: {scrape_interval: 2s, evaluation_interval: 2s}
                rule_files: [rules.yaml]
                scrape_configs:
                %s%s%s    scheme: https
                    tls_config: {insecure_skip_verify: true}
                    authorization: {credentials_file: %s}
                """
                        .formatted(
                                job("operator", operator, 8080, ""),
                                job("extender", extender, 8081, PROFILE),
                                job("scheduler", scheduler, Names.SCHEDULER_SECURE_PORT, PROFILE),
                                dir.resolve("scheduler-token")));
        port = LoopbackPorts.free();
        prometheus = cluster.startProcess(
                "prometheus",
                List.of(
                        binary.toString(),
                        "--config.file=" + dir.resolve("prometheus.yaml"),
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port,
                        "--web.enable-lifecycle"),
                Map.of());
    }

    @AfterAll
    void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
        if (client != null) {
            cluster.kubectl(
                    "delete",
                    "--ignore-not-found",
                    "-f",
                    cluster.repoRoot()
                            .resolve("deploy/monitoring/scheduler-metrics-reader.yaml")
                            .toString());
            OperatorTests.removeTheProductFromTheRealNode(
                    cluster, namespace, LABEL, java.util.Arrays.asList(labelledNode), ROLLOUT, PROFILE);
        }
    }

    @Test
    @Order(1)
    void theShippedRulesReadMetricsThatExistAndNothingFiresOnAHealthyInstall() throws Exception {
        Await.until(Duration.ofSeconds(60), "the three targets are up", () -> query("sum(up)")
                .equals("3"));
        TreeSet<String> read = new TreeSet<>();
        Matcher m = METRIC.matcher(rulesText);
        while (m.find()) {
            read.add(m.group());
        }
        List<String> missing = new ArrayList<>();
        for (String metric : read) {
            if (query("count(" + metric + ")").isEmpty()) {
                missing.add(metric);
            }
        }
        assertThat(missing)
                .as("metrics the alerts read that neither the operator nor the extender serves")
                .isEmpty();
        assertThat(query("schedulerops_extender_node_cache_watching{pod=~\"" + PROFILE + "-extender-.*\"}"))
                .isEqualTo("1");
        assertThat(Double.parseDouble(query("time() - schedulerops_extender_node_cache_last_event_timestamp_seconds")))
                .as("seconds since the extender's cache last heard from the API server (its list, minutes ago)")
                .isLessThan(600.0);
        assertThat(query("count(schedulerops_extender_request_seconds_bucket{schedulerprofile=\"" + PROFILE
                        + "\",verb=\"filter\"})"))
                .as("the latency histogram the SchedulerOpsExtenderSlow alert joins with the profile's httpTimeout")
                .isNotEmpty();
        assertThat(query("schedulerops_profile_extender_http_timeout_seconds{schedulerprofile=\"" + PROFILE + "\"}"))
                .isEqualTo("5");
        assertThat(query("leader_election_master_status{schedulerprofile=\"" + PROFILE + "\"}"))
                .as("the profile's kube-scheduler, scraped with the shipped metrics-reader token, leads")
                .isEqualTo("1");
        assertThat(query("count(scheduler_pending_pods{schedulerprofile=\"" + PROFILE + "\"})"))
                .as("its queues, which SchedulerOpsPodsUnschedulable reads")
                .isEqualTo("4");

        // Every rule evaluated twice since all of the above was in Prometheus (evaluation_interval 2 s): each has
        // then read the scrapes' data, and an alert it makes true would be pending or firing.
        Instant dataIn = Instant.now();
        Await.until(
                Duration.ofSeconds(60),
                "every rule evaluated twice since the metrics were in",
                () -> everyRuleEvaluatedSince(dataIn.plusSeconds(2)));
        JsonNode groups = get("/api/v1/rules").path("data").path("groups");
        List<String> rules = new ArrayList<>();
        for (JsonNode group : groups) {
            for (JsonNode r : group.path("rules")) {
                rules.add(r.path("name").asText());
                assertThat(r.path("health").asText())
                        .as(
                                "rule %s: %s",
                                r.path("name").asText(), r.path("lastError").asText())
                        .isEqualTo("ok");
            }
        }
        int shipped = rule.path("spec").path("groups").findValues("alert").size();
        assertThat(rules).as("every shipped rule loaded").hasSize(shipped);
        JsonNode alerts = get("/api/v1/alerts").path("data").path("alerts");
        assertThat(alerts)
                .as("alerts firing or pending on a healthy install: %s", alerts)
                .isEmpty();
        say("Prometheus scraped the operator, extender and scheduler pods; the " + read.size()
                + " metrics the alerts read all exist"
                + " (" + String.join(", ", read) + "); all " + rules.size() + " rules evaluate with health ok and none"
                + " fires or is pending.");
    }

    /**
     * Every query of the shipped Grafana dashboard (deploy/monitoring/dashboards/schedulerops.json) returns data for a
     * running profile, once its scheduler has called its extender for a pod.
     */
    @Test
    @Order(2)
    void everyDashboardQueryReturnsDataForARunningProfile() throws Exception {
        Await.until(Duration.ofSeconds(60), "the three targets are up", () -> query("sum(up)")
                .equals("3"));
        String namespace = OperatorTests.createRestrictedNamespace(cluster, "scraped");
        try {
            client.resource(RestrictedPods.forScheduler(namespace, "through-the-extender", PROFILE))
                    .create();
            Await.until(Duration.ofSeconds(60), "the profile's scheduler called its extender", () -> !query(
                            "sum(schedulerops_extender_requests_total{schedulerprofile=\"" + PROFILE
                                    + "\",verb=\"filter\"})")
                    .isEmpty());
            JsonNode dashboard = Commands.json(
                    Files.readString(cluster.repoRoot().resolve("deploy/monitoring/dashboards/schedulerops.json")));
            List<String> queries = new ArrayList<>();
            for (JsonNode panel : dashboard.path("panels")) {
                for (JsonNode target : panel.path("targets")) {
                    queries.add(panel.path("title").asText() + ": "
                            + target.path("expr").asText());
                }
            }
            List<String> empty = new ArrayList<>();
            // rate() needs two samples of a series in its window: a few scrapes after the first call.
            Await.until(Duration.ofSeconds(60), "every dashboard query returns data", () -> {
                empty.clear();
                for (String titled : queries) {
                    String promql = titled.substring(titled.indexOf(": ") + 2);
                    if (results(promql).isEmpty()) {
                        empty.add(titled);
                    }
                }
                return empty.isEmpty();
            });
            assertThat(empty).as("dashboard queries without data").isEmpty();
            // No node has the profile's label, so the pod is unschedulable: the alert for that is pending for real.
            Await.until(
                    Duration.ofSeconds(60),
                    "SchedulerOpsPodsUnschedulable is pending for " + PROFILE,
                    () -> get("/api/v1/alerts").path("data").path("alerts").findValues("labels").stream()
                            .anyMatch(l -> l.path("alertname").asText().equals("SchedulerOpsPodsUnschedulable")
                                    && l.path("schedulerprofile").asText().equals(PROFILE)));
            say("All " + queries.size() + " queries of the Grafana dashboard return data for profile " + PROFILE
                    + "; with its pod unschedulable, SchedulerOpsPodsUnschedulable is pending for it.");
        } finally {
            client.namespaces().withName(namespace).delete();
        }
    }

    /**
     * The alerts that only a fault makes true fire for real and clear once it is undone, evaluated by Prometheus from
     * the shipped rules with only their waits cut to seconds ({@link #shortened}):
     *
     * <ul>
     *   <li>{@code SchedulerOpsSchedulingErrors}: the profile's extender Service blackholed on the node (the extender
     *       down, as its scheduler sees it: the extender itself never sees a call);
     *   <li>{@code SchedulerOpsExtenderErrors}: the extender cut off the API server, so its binds answer 502;
     *   <li>{@code SchedulerProfileNotReady}: an extender image that cannot be pulled.
     * </ul>
     */
    @Test
    @Order(3)
    void theAlertsThatNeedAFaultFireForRealAndClearOnceItIsGone() throws Exception {
        useShortenedRules();
        labelledNode = OperatorTests.addTheOnlyLabelledNode(cluster, "scraped", LABEL, "10");
        namespace = OperatorTests.createRestrictedNamespace(cluster, "alerting");

        Pod held;
        Instant made = Instant.now();
        Duration fired;
        try (RealNode.Blackhole hole = OperatorTests.blackholeTheExtenderService(client, PROFILE)) {
            held = client.resource(RestrictedPods.forScheduler(namespace, "extender-unreachable", PROFILE))
                    .create();
            awaitAlert("SchedulerOpsSchedulingErrors", true);
            fired = Duration.between(made, Instant.now());
            assertThat(nodeOf(held))
                    .as("the pod waits while its extender is unreachable")
                    .isNull();
            assertThat(hole.droppedPackets())
                    .as("packets to the extender were dropped")
                    .isPositive();
        }
        Instant undone = Instant.now();
        assertThat(OperatorTests.awaitBound(client, held, ALERT)).isEqualTo(labelledNode);
        awaitAlert("SchedulerOpsSchedulingErrors", false);
        say("Extender Service blackholed: SchedulerOpsSchedulingErrors fired " + fired.toSeconds() + " s later; the"
                + " network back, the pod was bound and the alert cleared in "
                + Duration.between(undone, Instant.now()).toSeconds() + " s.");

        Pod extender = onlyPod(Labels.selector(PROFILE, Labels.COMPONENT_EXTENDER));
        Pod unbound;
        made = Instant.now();
        try (RealNode.Blackhole cut =
                OperatorTests.cutFromTheApiServer(client, extender.getStatus().getPodIP())) {
            unbound = client.resource(RestrictedPods.forScheduler(namespace, "extender-cut-off", PROFILE))
                    .create();
            awaitAlert("SchedulerOpsExtenderErrors", true);
            fired = Duration.between(made, Instant.now());
            assertThat(query("sum(schedulerops_extender_requests_total{schedulerprofile=\"" + PROFILE
                            + "\",verb=\"bind\",code=\"502\"})"))
                    .as("binds the extender answered 502: it could not read the pod")
                    .isNotEmpty()
                    .isNotEqualTo("0");
            assertThat(nodeOf(unbound))
                    .as("the pod waits while its extender cannot bind")
                    .isNull();
            assertThat(cut.droppedPackets())
                    .as("the extender's packets to the API server were dropped")
                    .isPositive();
        }
        undone = Instant.now();
        assertThat(OperatorTests.awaitBound(client, unbound, ALERT)).isEqualTo(labelledNode);
        awaitAlert("SchedulerOpsExtenderErrors", false);
        say("Extender cut off the API server: its binds answered 502 and SchedulerOpsExtenderErrors fired "
                + fired.toSeconds() + " s later; the network back, the pod was bound and the alert cleared in "
                + Duration.between(undone, Instant.now()).toSeconds() + " s.");

        String image = profile().getStatus().getExtenderImage();
        assertThat(image).as("status.extenderImage of " + PROFILE).isNotBlank();
        String missing = image.replaceFirst("[:@][^/]*$", "") + ":no-such-tag";
        made = Instant.now();
        client.resources(SchedulerProfile.class)
                .withName(PROFILE)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"extender\":{\"image\":\"" + missing + "\"}}}");
        awaitAlert("SchedulerProfileNotReady", true);
        fired = Duration.between(made, Instant.now());
        assertThat(query("schedulerops_profile_ready_reason{schedulerprofile=\"" + PROFILE
                        + "\",reason=\"ImagePullBackOff\"}"))
                .as("the reason the metric gives")
                .isEqualTo("1");
        client.resources(SchedulerProfile.class)
                .withName(PROFILE)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"extender\":{\"image\":null}}}");
        undone = Instant.now();
        OperatorTests.awaitCurrent(client, PROFILE, ROLLOUT);
        awaitAlert("SchedulerProfileNotReady", false);
        say("Extender image " + missing + ": SchedulerProfileNotReady fired " + fired.toSeconds() + " s later; the"
                + " image fixed, the profile was Ready and the alert cleared in "
                + Duration.between(undone, Instant.now()).toSeconds() + " s.");
    }

    /**
     * The shipped rules (as JSON) with every {@code for:} cut to 5 s and every range to 45 s, the expressions otherwise
     * unchanged: an alert that fires here after seconds fires in production after its minutes.
     */
    static String shortened(String rules) {
        String cut =
                rules.replaceAll("\"for\":\"[0-9]+[smh]\"", "\"for\":\"5s\"").replaceAll("\\[[0-9]+[mh]\\]", "[45s]");
        Matcher waits =
                Pattern.compile("\"for\":\"([^\"]*)\"|\\[([0-9][0-9a-z:]*)\\]").matcher(cut);
        while (waits.find()) {
            assertThat(waits.group(1) != null ? waits.group(1) : waits.group(2))
                    .as("every wait in the rules is shortened: %s", waits.group())
                    .isIn("5s", "45s");
        }
        assertThat(cut).doesNotContain("keep_firing_for");
        return cut;
    }

    private void useShortenedRules() throws IOException, InterruptedException {
        Files.writeString(rulesFile, shortened(rule.path("spec").toString()));
        HttpResponse<String> reload = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/reload"))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(reload.statusCode()).as("POST /-/reload: %s", reload.body()).isEqualTo(200);
        Await.until(
                Duration.ofSeconds(30),
                "Prometheus evaluates the shortened rules",
                () -> get("/api/v1/rules").path("data").path("groups").findValues("rules").stream()
                        .flatMap(rules -> java.util.stream.StreamSupport.stream(rules.spliterator(), false))
                        .filter(r -> r.path("name").asText().equals("SchedulerProfileNotReady"))
                        .anyMatch(r -> r.path("duration").asInt() == 5));
    }

    /**
     * Waits until {@code alert} fires for {@link #PROFILE}, or until it is neither firing nor pending for it. The test
     * always waits for "fires" first, with the same filter, so "clears" cannot pass on a name that never matched.
     */
    private void awaitAlert(String alert, boolean firing) {
        Await.until(ALERT, alert + (firing ? " fires" : " clears") + " for " + PROFILE, () -> {
            List<String> states = get("/api/v1/alerts").path("data").path("alerts").findParents("labels").stream()
                    .filter(a -> a.path("labels").path("alertname").asText().equals(alert)
                            && a.path("labels")
                                    .path("schedulerprofile")
                                    .asText()
                                    .equals(PROFILE))
                    .map(a -> a.path("state").asText())
                    .toList();
            return firing ? states.contains("firing") : states.isEmpty();
        });
    }

    private String nodeOf(Pod pod) {
        return client.pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .get()
                .getSpec()
                .getNodeName();
    }

    private SchedulerProfile profile() {
        return client.resources(SchedulerProfile.class).withName(PROFILE).get();
    }

    /**
     * A scrape job for one pod with the target labels the shipped PodMonitor gives ({@code schedulerprofile} from
     * the pod's profile label) or the Prometheus Operator adds ({@code namespace}, {@code pod}).
     */
    private static String job(String name, Pod pod, int port, String profile) {
        return """
                  - job_name: %s
                    static_configs:
                      - targets: ["%s:%d"]
                        labels: {namespace: %s, pod: %s%s}
                """
                .formatted(
                        name,
                        pod.getStatus().getPodIP(),
                        port,
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(),
                        profile.isEmpty() ? "" : ", schedulerprofile: " + profile);
    }

    /**
     * No Prometheus Operator runs here, so the scrape above stands in for the shipped PodMonitors; this checks that
     * {@code file}'s PodMonitor would find the same target: its selector matches the running pod, its port name is
     * that pod's {@code port}, and the label it relabels into {@code schedulerprofile} is the pod's profile label.
     */
    private void assertThePodMonitorSelects(String file, Pod pod, int port) throws IOException {
        JsonNode monitor = Commands.yamlDocuments(Files.readString(
                        cluster.repoRoot().resolve("deploy/monitoring").resolve(file)))
                .get(0);
        monitor.path("spec").path("selector").path("matchLabels").fields().forEachRemaining(e -> assertThat(
                        pod.getMetadata().getLabels())
                .as(file + " selects " + pod.getMetadata().getName())
                .containsEntry(e.getKey(), e.getValue().asText()));
        JsonNode endpoint = monitor.path("spec").path("podMetricsEndpoints").get(0);
        assertThat(pod.getSpec().getContainers().get(0).getPorts()).anySatisfy(p -> {
            assertThat(p.getName()).isEqualTo(endpoint.path("port").asText());
            assertThat(p.getContainerPort()).isEqualTo(port);
        });
        JsonNode relabel = endpoint.path("relabelings").get(0);
        assertThat(relabel.path("targetLabel").asText()).isEqualTo("schedulerprofile");
        String source = relabel.path("sourceLabels").get(0).asText();
        String podLabel = Labels.PROFILE.replaceAll("[^a-zA-Z0-9_]", "_");
        assertThat(source).isEqualTo("__meta_kubernetes_pod_label_" + podLabel);
        assertThat(pod.getMetadata().getLabels()).containsEntry(Labels.PROFILE, PROFILE);
    }

    private Pod onlyPod(Map<String, String> labels) {
        List<Pod> pods = OperatorTests.livePods(client, WORKLOAD, labels);
        assertThat(pods).as("pods %s", labels).hasSize(1);
        return pods.get(0);
    }

    /** Whether Prometheus has evaluated every rule it loaded (there are some) at or after {@code since}. */
    private boolean everyRuleEvaluatedSince(Instant since) {
        List<JsonNode> rules = get("/api/v1/rules").path("data").path("groups").findValues("rules").stream()
                .flatMap(r -> java.util.stream.StreamSupport.stream(r.spliterator(), false))
                .toList();
        return !rules.isEmpty()
                && rules.stream().allMatch(r -> !java.time.OffsetDateTime.parse(
                                r.path("lastEvaluation").asText())
                        .toInstant()
                        .isBefore(since));
    }

    /** The results of an instant query. */
    private JsonNode results(String promql) {
        return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
                .path("data")
                .path("result");
    }

    /** The value of an instant query's single result, or "" when it has none. */
    private String query(String promql) {
        JsonNode result = results(promql);
        return result.isEmpty() ? "" : result.get(0).path("value").get(1).asText();
    }

    private JsonNode get(String path) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode())
                    .as("GET %s: %s", path, response.body())
                    .isEqualTo(200);
            return Commands.json(response.body());
        } catch (IOException e) {
            throw new AssertionError("GET " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
