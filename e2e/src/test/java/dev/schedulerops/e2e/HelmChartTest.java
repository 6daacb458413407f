package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.E2eSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart in deploy/helm/schedulerops: it lints, and with default values renders the same objects as {@code
 * kubectl kustomize deploy/} (kinds, names, RBAC rules, pod spec); its values change what they claim to. helm is
 * built from the Go module proxy by deploy/helm/build-helm.
 */
class HelmChartTest {

    private static final String CHART = "deploy/helm/schedulerops";
    private static final String OPERATOR = DeployManifestsTest.OPERATOR;
    private static final String NAMESPACE = DeployManifestsTest.NAMESPACE;

    private static Path helm;

    @BeforeEach
    void findHelm() {
        helm = null;
        String property = System.getProperty("schedulerops.helm");
        Path cached = Path.of(System.getProperty("user.home"), ".cache/schedulerops/tools/helm");
        if (property != null) {
            // ./test passes the helm it built: then a missing one is a failure, not a skip.
            helm = Path.of(property);
            if (!Files.isExecutable(helm)) {
                throw new IllegalStateException("-Dschedulerops.helm=" + property + " is not an executable file");
            }
        } else if (Files.isExecutable(cached)) {
            helm = cached;
        } else if (Commands.onPath("helm")) {
            helm = Path.of("helm");
        }
        String reason = "helm not found: build it with deploy/helm/build-helm (or pass -Dschedulerops.helm=...)";
        if (helm == null) {
            // Surefire keeps skip reasons in its report files; say it on the console too, where readers look.
            System.out.println("SKIPPED HelmChartTest: " + reason);
        }
        assumeTrue(helm != null, reason);
    }

    @Test
    void chartLintsStrictly() {
        Commands.Result lint = helm("lint", CHART, "--strict");

        assertThat(lint.exitCode())
                .as("helm lint: %s %s", lint.stdout(), lint.stderr())
                .isZero();
        assertThat(lint.stdout()).contains("1 chart(s) linted, 0 chart(s) failed");
    }

    @Test
    void defaultValuesRenderTheSameObjectsAsKustomize() {
        List<JsonNode> kustomize = Commands.kustomize();
        List<JsonNode> chart = template("--set", "namespace.create=true");

        assertThat(chart.stream().map(Commands::identity))
                .containsExactlyInAnyOrderElementsOf(
                        kustomize.stream().map(Commands::identity).toList());
        // Every RBAC object and the admission policy: the same rules, bindings and CEL.
        for (JsonNode object : kustomize) {
            String kind = object.path("kind").asText();
            if (!List.of(
                            "ClusterRole",
                            "ClusterRoleBinding",
                            "Role",
                            "RoleBinding",
                            "ValidatingAdmissionPolicy",
                            "ValidatingAdmissionPolicyBinding")
                    .contains(kind)) {
                continue;
            }
            JsonNode rendered = chart.stream()
                    .filter(o -> Commands.identity(o).equals(Commands.identity(object)))
                    .findFirst()
                    .orElseThrow();
            for (String field : List.of("/rules", "/roleRef", "/subjects", "/spec")) {
                assertThat(rendered.at(field))
                        .as("%s %s", Commands.identity(object), field)
                        .isEqualTo(object.at(field));
            }
        }
        JsonNode chartDeployment = Commands.find(chart, "Deployment", OPERATOR);
        JsonNode kustomizeDeployment = Commands.find(kustomize, "Deployment", OPERATOR);
        for (String field : List.of("/spec/replicas", "/spec/selector", "/spec/template/spec")) {
            assertThat(chartDeployment.at(field)).as("Deployment %s", field).isEqualTo(kustomizeDeployment.at(field));
        }
        assertThat(Commands.find(chart, "PodDisruptionBudget", OPERATOR).path("spec"))
                .isEqualTo(Commands.find(kustomize, "PodDisruptionBudget", OPERATOR)
                        .path("spec"));
        assertThat(Commands.find(chart, "NetworkPolicy", OPERATOR).path("spec"))
                .isEqualTo(Commands.find(kustomize, "NetworkPolicy", OPERATOR).path("spec"));
        String metrics = OPERATOR + "-metrics";
        assertThat(Commands.find(chart, "Service", metrics).path("spec"))
                .isEqualTo(Commands.find(kustomize, "Service", metrics).path("spec"));
        // kustomize rewrites the generator's `minimum: 1.0` as `1`: compare numbers by value.
        JsonNode chartCrd = Commands.find(chart, "CustomResourceDefinition", DeployManifestsTest.CRD_NAME);
        JsonNode kustomizeCrd = Commands.find(kustomize, "CustomResourceDefinition", DeployManifestsTest.CRD_NAME);
        assertThat(chartCrd.equals(HelmChartTest::compareNumbersByValue, kustomizeCrd))
                .as("the chart's CRD is the kustomization's CRD")
                .isTrue();
        assertThat(Commands.labels(Commands.find(chart, "Namespace", NAMESPACE)))
                .containsEntry("pod-security.kubernetes.io/enforce", "restricted");

        for (JsonNode object : chart) {
            if (!object.path("kind").asText().equals("CustomResourceDefinition")) {
                assertThat(Commands.labels(object))
                        .as("labels of %s", Commands.identity(object))
                        .containsEntry("app.kubernetes.io/name", OPERATOR)
                        .containsEntry("app.kubernetes.io/part-of", "schedulerops")
                        .containsEntry("app.kubernetes.io/component", "operator")
                        .containsEntry("app.kubernetes.io/managed-by", "Helm");
            }
        }
    }

    @Test
    void namespaceIsLeftToHelmByDefault() {
        assertThat(template().stream().map(o -> o.path("kind").asText())).doesNotContain("Namespace");
    }

    @Test
    void valuesChangeTheOperatorDeployment() {
        List<JsonNode> chart = template(
                "--set", "image.repository=registry.example.com/ops/operator",
                "--set", "image.tag=9.9.9",
                "--set", "extenderImage.repository=registry.example.com/ops/extender",
                "--set", "replicas=2",
                "--set", "workloadNamespace=platform-scheduling",
                "--set", "allowedImageRepositories={registry.example.com/ops/}",
                "--set", "leaderElection.enabled=false",
                "--set", "maxConcurrentRollouts=2",
                "--set", "apiRateLimit.qps=7.5",
                "--set", "apiRateLimit.burst=9",
                "--set", "reconcileThreads=3",
                "--set", "resources.limits.memory=1Gi",
                "--set", "metrics.service.enabled=false");

        JsonNode deployment = Commands.find(chart, "Deployment", OPERATOR);
        JsonNode container = deployment.at("/spec/template/spec/containers/0");
        assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
        assertThat(container.path("image").asText()).isEqualTo("registry.example.com/ops/operator:9.9.9");
        assertThat(container.at("/resources/limits/memory").asText()).isEqualTo("1Gi");
        Map<String, String> env = env(container);
        assertThat(env)
                .containsEntry("SCHEDULEROPS_WORKLOAD_NAMESPACE", "platform-scheduling")
                .containsEntry("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES", "registry.example.com/ops/")
                .containsEntry("SCHEDULEROPS_LEADER_ELECTION", "false")
                .containsEntry("SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS", "2")
                .containsEntry("SCHEDULEROPS_API_QPS", "7.5")
                .containsEntry("SCHEDULEROPS_API_BURST", "9")
                .containsEntry("SCHEDULEROPS_RECONCILE_THREADS", "3")
                .containsEntry(
                        "SCHEDULEROPS_EXTENDER_IMAGE",
                        "registry.example.com/ops/extender:" + E2eSettings.releaseVersion())
                .as("the operator's own image, which runs the scheduler pods' init container")
                .containsEntry("SCHEDULEROPS_OPERATOR_IMAGE", "registry.example.com/ops/operator:9.9.9");
        assertThat(chart.stream().map(o -> o.path("kind").asText())).doesNotContain("Service");
    }

    /**
     * workloadNamespace moves the operator's write access with the workloads: the workload Role and its binding are
     * there (the operator's ServiceAccount stays in the release namespace); cluster-wide nothing changes.
     */
    @Test
    void workloadNamespaceMovesTheWorkloadRole() {
        List<JsonNode> chart = template("--set", "workloadNamespace=platform-scheduling");
        JsonNode role = chart.stream()
                .filter(o -> o.path("kind").asText().equals("Role")
                        && o.at("/metadata/name").asText().equals(OPERATOR))
                .filter(o -> !o.at("/metadata/namespace").asText().equals("kube-system"))
                .findFirst()
                .orElseThrow();
        assertThat(role.at("/metadata/namespace").asText()).isEqualTo("platform-scheduling");
        JsonNode binding = chart.stream()
                .filter(o -> o.path("kind").asText().equals("RoleBinding")
                        && o.at("/metadata/namespace").asText().equals("platform-scheduling"))
                .findFirst()
                .orElseThrow();
        assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(NAMESPACE);
        assertThat(chart.stream()
                        .filter(o -> o.path("kind").asText().startsWith("Role"))
                        .map(o -> o.at("/metadata/namespace").asText())
                        .distinct())
                .containsExactlyInAnyOrder("platform-scheduling", "kube-system", "default");
    }

    /** The admission policy exempts the release's own ServiceAccount, and can be left out. */
    @Test
    void theAdmissionPolicyFollowsTheReleaseAndIsOnByDefault() {
        JsonNode policy = Commands.find(
                template("--set", "fullnameOverride=sched-ops"), "ValidatingAdmissionPolicy", "sched-ops-labels");
        assertThat(policy.at("/spec/matchConditions/0/expression").asText())
                .isEqualTo("request.userInfo.username != 'system:serviceaccount:" + NAMESPACE + ":sched-ops'");
        assertThat(template("--set", "admissionPolicy.enabled=false").stream()
                        .map(o -> o.path("kind").asText()))
                .doesNotContain("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
    }

    @Test
    void protectedNamespacesReachTheOperator() {
        assertThat(env(Commands.find(template(), "Deployment", OPERATOR).at("/spec/template/spec/containers/0")))
                .as("unset: the operator's default list")
                .doesNotContainKey("SCHEDULEROPS_PROTECTED_NAMESPACES");
        assertThat(env(Commands.find(
                                template("--set", "protectedNamespaces={kube-system,payments}"), "Deployment", OPERATOR)
                        .at("/spec/template/spec/containers/0")))
                .containsEntry("SCHEDULEROPS_PROTECTED_NAMESPACES", "kube-system,payments");
    }

    @Test
    void theReleaseLeaseSidecarIsOnUnlessTheValueTurnsItOff() {
        assertThat(env(Commands.find(template(), "Deployment", OPERATOR).at("/spec/template/spec/containers/0")))
                .as("unset: the operator's default, on")
                .doesNotContainKey("SCHEDULEROPS_RELEASE_LEASE_SIDECAR");
        assertThat(env(Commands.find(template("--set", "releaseLeaseSidecar=false"), "Deployment", OPERATOR)
                        .at("/spec/template/spec/containers/0")))
                .containsEntry("SCHEDULEROPS_RELEASE_LEASE_SIDECAR", "false");
    }

    @Test
    void serviceMonitorIsOptIn() {
        assertThat(template().stream().map(o -> o.path("kind").asText())).doesNotContain("ServiceMonitor");

        JsonNode monitor =
                Commands.find(template("--set", "metrics.serviceMonitor.enabled=true"), "ServiceMonitor", OPERATOR);
        assertThat(monitor.at("/spec/endpoints/0/port").asText()).isEqualTo("http");
        assertThat(monitor.at("/spec/endpoints/0/path").asText()).isEqualTo("/metrics");
    }

    /**
     * {@code monitoring.enabled} installs what {@code kubectl apply -k deploy/monitoring} does, from the same files
     * (the chart links that directory): the same objects with the same content, the PodMonitors and their token in the
     * workload namespace.
     */
    @Test
    void monitoringIsOptInAndTheSameAsTheKustomizeComponent() {
        List<String> monitoringKinds = List.of("PodMonitor", "PrometheusRule");
        assertThat(template().stream().map(o -> o.path("kind").asText())).doesNotContainAnyElementsOf(monitoringKinds);

        List<JsonNode> chart = template("--set", "monitoring.enabled=true", "--set", "workloadNamespace=platform");
        for (JsonNode object : Commands.kustomize("deploy/monitoring")) {
            String kind = object.path("kind").asText();
            String name = object.at("/metadata/name").asText();
            JsonNode rendered = Commands.find(chart, kind, name);
            String expectedNamespace =
                    List.of("PodMonitor", "ServiceAccount", "Secret").contains(kind)
                            ? "platform"
                            : object.at("/metadata/namespace").isMissingNode() ? "" : NAMESPACE;
            assertThat(rendered.at("/metadata/namespace").asText())
                    .as("%s %s's namespace", kind, name)
                    .isEqualTo(expectedNamespace);
            for (String field : List.of("/spec", "/rules", "/data", "/roleRef", "/type")) {
                assertThat(rendered.at(field)).as("%s %s %s", kind, name, field).isEqualTo(object.at(field));
            }
        }
        assertThat(Commands.find(chart, "ClusterRoleBinding", "schedulerops:scheduler-metrics-reader")
                        .at("/subjects/0/namespace")
                        .asText())
                .isEqualTo("platform");
    }

    /**
     * {@code podEvents.enabled} grants what deploy/pod-events does (the same rules, bound to the release's
     * ServiceAccount) and turns the feature on; off by default, with neither the role nor the setting.
     */
    @Test
    void podEventsAreOptInAndTheSameAsTheKustomizeComponent() {
        List<JsonNode> off = template();
        assertThat(off.stream().map(o -> o.at("/metadata/name").asText())).doesNotContain(OPERATOR + "-pod-events");
        assertThat(env(Commands.find(off, "Deployment", OPERATOR).at("/spec/template/spec/containers/0")))
                .doesNotContainKey("SCHEDULEROPS_POD_EVENTS");

        List<JsonNode> chart = template(
                "--set",
                "podEvents.enabled=true",
                "--set",
                "podEvents.graceSeconds=30",
                "--set",
                "podEvents.ignoreSchedulers={volcano,yunikorn}");
        List<JsonNode> overlay = Commands.kustomize(podEventsOverlay());
        assertThat(env(Commands.find(overlay, "Deployment", OPERATOR).at("/spec/template/spec/containers/0")))
                .as("deploy/ with the deploy/pod-events component")
                .containsEntry("SCHEDULEROPS_POD_EVENTS", "true");
        assertThat(Commands.find(overlay, "ClusterRoleBinding", OPERATOR + "-pod-events")
                        .at("/subjects/0/namespace")
                        .asText())
                .isEqualTo(NAMESPACE);
        assertThat(Commands.find(chart, "ClusterRole", OPERATOR + "-pod-events").path("rules"))
                .isEqualTo(Commands.find(overlay, "ClusterRole", OPERATOR + "-pod-events")
                        .path("rules"));
        JsonNode binding = Commands.find(chart, "ClusterRoleBinding", OPERATOR + "-pod-events");
        assertThat(binding.at("/roleRef/name").asText()).isEqualTo(OPERATOR + "-pod-events");
        assertThat(binding.at("/subjects/0/name").asText()).isEqualTo(OPERATOR);
        assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(NAMESPACE);
        assertThat(env(Commands.find(chart, "Deployment", OPERATOR).at("/spec/template/spec/containers/0")))
                .containsEntry("SCHEDULEROPS_POD_EVENTS", "true")
                .containsEntry("SCHEDULEROPS_POD_EVENTS_GRACE_SECONDS", "30")
                .containsEntry("SCHEDULEROPS_POD_EVENTS_IGNORE_SCHEDULERS", "volcano,yunikorn");
    }

    /** An overlay of deploy/ with the pod-events component, as a user writes it (kustomize wants relative paths). */
    private static String podEventsOverlay() {
        Path root = E2eSettings.repoRoot();
        Path overlay = root.resolve("e2e/target/pod-events-overlay");
        try {
            Files.createDirectories(overlay);
            Files.writeString(
                    overlay.resolve("kustomization.yaml"),
                    "resources:\n  - " + overlay.relativize(root.resolve("deploy")) + "\ncomponents:\n  - "
                            + overlay.relativize(root.resolve("deploy/pod-events")) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return root.relativize(overlay).toString();
    }

    @Test
    void schemaRejectsInvalidValues() {
        Commands.Result negativeReplicas = helm("template", "schedulerops", CHART, "--set", "replicas=-1");
        assertThat(negativeReplicas.exitCode()).isNotZero();
        assertThat(negativeReplicas.stderr()).contains("replicas");

        Commands.Result badNamespace = helm("template", "schedulerops", CHART, "--set", "workloadNamespace=Team_A");
        assertThat(badNamespace.exitCode()).isNotZero();
        assertThat(badNamespace.stderr()).contains("workloadNamespace");
    }

    private static int compareNumbersByValue(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    }

    private static Map<String, String> env(JsonNode container) {
        return StreamSupport.stream(container.path("env").spliterator(), false)
                .filter(e -> e.has("value"))
                .collect(Collectors.toMap(
                        e -> e.path("name").asText(), e -> e.path("value").asText()));
    }

    private static List<JsonNode> template(String... extra) {
        List<String> args =
                new ArrayList<>(List.of("template", "schedulerops", CHART, "--namespace", NAMESPACE, "--include-crds"));
        args.addAll(List.of(extra));
        return Commands.yamlDocuments(helm(args.toArray(String[]::new))
                .requireSuccess("helm template")
                .stdout());
    }

    private static Commands.Result helm(String... args) {
        List<String> command = new ArrayList<>(List.of(helm.toString()));
        command.addAll(List.of(args));
        return Commands.run(command, Duration.ofMinutes(1));
    }
}
