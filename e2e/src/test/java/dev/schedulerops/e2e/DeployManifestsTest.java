package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.Crds;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.RolloutSlots;
import dev.schedulerops.operator.runtime.OperatorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The install manifests in deploy/: what {@code kubectl kustomize deploy/} renders, and what {@code kubectl apply -k
 * deploy/} does to the real control plane of e2e/cluster (RBAC accepted, the operator Deployment Available on a KWOK
 * node, the ServiceAccount allowed what the operator does and nothing more).
 */
@ExtendWith(ClusterExtension.class)
class DeployManifestsTest {

    private static final Logger LOG = LoggerFactory.getLogger(DeployManifestsTest.class);

    static final String NAMESPACE = "schedulerops-system";
    static final String OPERATOR = "schedulerops-operator";
    static final String CRD_NAME = Crds.NAME;
    static final String CRD_FILE = Crds.FILE;
    /** SchedulerProfilePreview: installed with the rest, answered only with deploy/previews. */
    static final String PREVIEW_CRD_NAME = "schedulerprofilepreviews.schedulerops.dev";

    private static final String SERVICE_ACCOUNT_USER = "system:serviceaccount:" + NAMESPACE + ":" + OPERATOR;

    private static Cluster cluster;
    private static boolean installAttempted;
    private static boolean crdExistedBefore;

    @BeforeAll
    static void useCluster(Cluster shared) {
        cluster = shared;
    }

    @Test
    void kustomizationRendersTheOperatorInstall() {
        List<JsonNode> objects = Commands.kustomize();

        assertThat(objects.stream().map(Commands::identity))
                .containsExactlyInAnyOrder(
                        "Namespace//" + NAMESPACE,
                        "CustomResourceDefinition//" + CRD_NAME,
                        "CustomResourceDefinition//" + PREVIEW_CRD_NAME,
                        "ServiceAccount/" + NAMESPACE + "/" + OPERATOR,
                        "ClusterRole//" + OPERATOR,
                        "ClusterRoleBinding//" + OPERATOR,
                        "Role/" + NAMESPACE + "/" + OPERATOR,
                        "RoleBinding/" + NAMESPACE + "/" + OPERATOR,
                        "Role/kube-system/" + OPERATOR,
                        "RoleBinding/kube-system/" + OPERATOR,
                        "Role/default/" + OPERATOR + "-events",
                        "RoleBinding/default/" + OPERATOR + "-events",
                        "Role/default/" + OPERATOR + "-api-server",
                        "RoleBinding/default/" + OPERATOR + "-api-server",
                        "ClusterRole//" + Names.SCHEDULER_CLUSTER_ROLE,
                        "ClusterRole//" + Names.EXTENDER_NODES_CLUSTER_ROLE,
                        "ClusterRole//" + Names.EXTENDER_BINDER_CLUSTER_ROLE,
                        "ValidatingAdmissionPolicy//" + OPERATOR + "-labels",
                        "ValidatingAdmissionPolicyBinding//" + OPERATOR + "-labels",
                        "ValidatingAdmissionPolicy//" + OPERATOR + "-pod-labels",
                        "ValidatingAdmissionPolicyBinding//" + OPERATOR + "-pod-labels",
                        "ValidatingAdmissionPolicy//" + OPERATOR + "-rbac",
                        "ValidatingAdmissionPolicyBinding//" + OPERATOR + "-rbac",
                        "ValidatingAdmissionPolicy//" + OPERATOR + "-leases",
                        "ValidatingAdmissionPolicyBinding//" + OPERATOR + "-leases",
                        "Deployment/" + NAMESPACE + "/" + OPERATOR,
                        "Service/" + NAMESPACE + "/" + OPERATOR + "-metrics",
                        "NetworkPolicy/" + NAMESPACE + "/" + OPERATOR,
                        "PodDisruptionBudget/" + NAMESPACE + "/" + OPERATOR);
        // A drain evicts one operator replica at a time, and the replicas spread over nodes where they can: with
        // replicas: 2, a warm one always runs (docs/profiles.md, "HA during node drains").
        JsonNode budget = Commands.find(objects, "PodDisruptionBudget", OPERATOR);
        assertThat(budget.at("/spec/maxUnavailable").asInt()).isEqualTo(1);
        JsonNode operatorPods = Commands.find(objects, "Deployment", OPERATOR).at("/spec/template/metadata/labels");
        budget.at("/spec/selector/matchLabels").fields().forEachRemaining(label -> assertThat(
                        operatorPods.path(label.getKey()).asText())
                .as("the budget selects the operator's pods by %s", label.getKey())
                .isEqualTo(label.getValue().asText()));
        JsonNode spread =
                Commands.find(objects, "Deployment", OPERATOR).at("/spec/template/spec/topologySpreadConstraints/0");
        assertThat(spread.path("topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
        assertThat(spread.path("whenUnsatisfiable").asText()).isEqualTo("ScheduleAnyway");
        for (JsonNode object : objects) {
            if (object.path("kind").asText().equals("CustomResourceDefinition")) {
                continue; // generated by the operator build, labelled there
            }
            assertThat(Commands.labels(object))
                    .as("labels of %s", Commands.identity(object))
                    .containsEntry("app.kubernetes.io/name", OPERATOR)
                    .containsEntry("app.kubernetes.io/part-of", "schedulerops")
                    .doesNotContainEntry("app.kubernetes.io/managed-by", "schedulerops-operator")
                    .containsEntry("app.kubernetes.io/component", "operator")
                    .containsEntry("app.kubernetes.io/managed-by", "kustomize");
        }
        JsonNode namespace = Commands.find(objects, "Namespace", NAMESPACE);
        assertThat(Commands.labels(namespace)).containsEntry("pod-security.kubernetes.io/enforce", "restricted");
        JsonNode binding = Commands.find(objects, "ClusterRoleBinding", OPERATOR);
        assertThat(binding.at("/roleRef/name").asText()).isEqualTo(OPERATOR);
        assertThat(binding.at("/subjects/0/name").asText()).isEqualTo(OPERATOR);
        assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(NAMESPACE);
    }

    @Test
    void crdCopiesAreIdenticalToTheGeneratedCrd() throws IOException {
        assertCrdCopiesInSync();
    }

    /** The release version is written once (root pom); every file users install from carries it as set-version writes. */
    @Test
    void everyInstallFileCarriesTheReleaseVersion() throws IOException {
        String version = E2eSettings.releaseVersion();
        Path root = E2eSettings.repoRoot();
        Path copy = Files.createTempDirectory(E2eSettings.targetDir(), "set-version");
        List<String> files = List.of(
                "pom.xml",
                "README.md",
                "extender/README.md",
                "deploy/README.md",
                "deploy/set-version",
                "deploy/kustomization.yaml",
                "deploy/operator/deployment.yaml",
                "deploy/helm/schedulerops/Chart.yaml");
        for (String file : files) {
            Files.createDirectories(copy.resolve(file).getParent());
            Files.copy(root.resolve(file), copy.resolve(file), StandardCopyOption.COPY_ATTRIBUTES);
        }
        Commands.run(List.of(copy.resolve("deploy/set-version").toString()), Duration.ofSeconds(30))
                .requireSuccess("deploy/set-version");
        for (String file : files) {
            assertThat(Files.readString(copy.resolve(file)))
                    .as(
                            "%s as deploy/set-version writes it from <image.tag> %s (run deploy/set-version)",
                            file, version)
                    .isEqualTo(Files.readString(root.resolve(file)));
        }

        JsonNode chart = Commands.yamlDocuments(Files.readString(root.resolve("deploy/helm/schedulerops/Chart.yaml")))
                .get(0);
        assertThat(chart.path("version").asText()).isEqualTo(version);
        assertThat(chart.path("appVersion").asText()).isEqualTo(version);
        JsonNode deployment = Commands.find(Commands.kustomize(), "Deployment", OPERATOR);
        assertThat(deployment
                        .at("/metadata/labels")
                        .path("app.kubernetes.io/version")
                        .asText())
                .isEqualTo(version);
    }

    @Test
    void clusterRoleIsLeastPrivilege() {
        JsonNode role = Commands.find(Commands.kustomize(), "ClusterRole", OPERATOR);
        List<JsonNode> rules =
                StreamSupport.stream(role.path("rules").spliterator(), false).toList();

        for (JsonNode rule : rules) {
            for (String field : List.of("apiGroups", "resources", "verbs", "resourceNames")) {
                assertThat(Commands.strings(rule.path(field)))
                        .as("%s of %s", field, rule)
                        .doesNotContain("*");
            }
            assertThat(Commands.strings(rule.path("verbs"))).doesNotContain("escalate", "impersonate");
            assertThat(Commands.strings(rule.path("resources")))
                    .doesNotContain("customresourcedefinitions", "namespaces", "pods/log", "pods/exec");
            if (Commands.strings(rule.path("resources")).contains("pods")) {
                assertThat(Commands.strings(rule.path("resources")))
                        .as("pods are read on their own")
                        .containsExactly("pods");
                assertThat(Commands.strings(rule.path("verbs")))
                        .as("the operator reads its pods' status, never writes a pod")
                        .containsExactly("get", "list", "watch");
            }
            if (Commands.strings(rule.path("verbs")).contains("bind")) {
                assertThat(Commands.strings(rule.path("verbs")))
                        .as("bind is granted on its own, by name")
                        .containsExactly("bind");
                assertThat(rule.path("resourceNames").size()).isPositive();
            }
        }
        Map<String, Set<String>> bindable = rules.stream()
                .filter(rule -> Commands.strings(rule.path("verbs")).contains("bind"))
                .collect(Collectors.toMap(
                        rule -> String.join(",", Commands.strings(rule.path("resources"))),
                        rule -> Set.copyOf(Commands.strings(rule.path("resourceNames")))));
        assertThat(bindable)
                .containsOnly(Map.entry(
                        "clusterroles",
                        Set.of(
                                Names.SCHEDULER_CLUSTER_ROLE,
                                Names.VOLUME_SCHEDULER_CLUSTER_ROLE,
                                Names.EXTENDER_NODES_CLUSTER_ROLE,
                                Names.EXTENDER_BINDER_CLUSTER_ROLE)));
        // Cluster-wide, only what cluster-scoped objects need: no namespaced kind, and no Secrets anywhere.
        Set<String> clusterResources = rules.stream()
                .flatMap(rule -> Commands.strings(rule.path("resources")).stream())
                .collect(Collectors.toSet());
        assertThat(clusterResources)
                .containsExactlyInAnyOrder(
                        "schedulerprofiles",
                        "schedulerprofiles/status",
                        "schedulerprofiles/finalizers",
                        "clusterrolebindings",
                        "clusterroles",
                        "nodes");
    }

    /**
     * The operator's namespaced writes are Roles: everything in the workload namespace (its own), RoleBindings only in
     * kube-system (no Roles, Leases, ConfigMaps or Secrets there), events only in default.
     */
    @Test
    void namespacedWritesAreRolesInTheWorkloadNamespaceKubeSystemAndDefault() {
        List<JsonNode> objects = Commands.kustomize();
        Map<String, Set<String>> resourcesByNamespace = new java.util.TreeMap<>();
        for (JsonNode role : objects) {
            if (!role.path("kind").asText().equals("Role")) {
                continue;
            }
            resourcesByNamespace.put(
                    role.at("/metadata/namespace").asText(),
                    StreamSupport.stream(role.path("rules").spliterator(), false)
                            .flatMap(rule -> Commands.strings(rule.path("resources")).stream())
                            .collect(Collectors.toSet()));
        }
        assertThat(resourcesByNamespace).containsOnlyKeys(NAMESPACE, "kube-system", "default");
        assertThat(resourcesByNamespace.get(NAMESPACE))
                .contains("deployments", "secrets", "serviceaccounts", "roles", "rolebindings", "leases", "pods");
        assertThat(resourcesByNamespace.get("kube-system")).containsExactlyInAnyOrder("rolebindings", "roles");
        assertThat(resourcesByNamespace.get("default")).containsExactly("events");
        JsonNode kubeSystem = objects.stream()
                .filter(o -> o.path("kind").asText().equals("Role")
                        && o.at("/metadata/namespace").asText().equals("kube-system"))
                .findFirst()
                .orElseThrow();
        assertThat(StreamSupport.stream(kubeSystem.path("rules").spliterator(), false)
                        .filter(rule -> Commands.strings(rule.path("resources")).contains("roles"))
                        .toList())
                .as("in kube-system, roles only by bind on the authentication reader")
                .singleElement()
                .satisfies(rule -> {
                    assertThat(Commands.strings(rule.path("verbs"))).containsExactly("bind");
                    assertThat(Commands.strings(rule.path("resourceNames")))
                            .containsExactly("extension-apiserver-authentication-reader");
                });
        for (JsonNode binding : objects) {
            if (binding.path("kind").asText().endsWith("RoleBinding")) {
                assertThat(binding.at("/subjects/0/name").asText()).isEqualTo(OPERATOR);
                assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(NAMESPACE);
            }
        }
    }

    /**
     * The scheduler's role is system:kube-scheduler without the rules on Leases and LeaseCandidates (the default
     * scheduler's lease): no rule of it names them, and it grants nothing on Secrets or RBAC.
     */
    @Test
    void theSchedulersRoleCannotTouchAnyLease() {
        JsonNode role = Commands.find(Commands.kustomize(), "ClusterRole", Names.SCHEDULER_CLUSTER_ROLE);
        Set<String> resources = StreamSupport.stream(role.path("rules").spliterator(), false)
                .flatMap(rule -> Commands.strings(rule.path("resources")).stream())
                .collect(Collectors.toSet());
        assertThat(resources)
                .contains("pods", "pods/binding", "nodes", "events")
                .doesNotContain("leases", "leasecandidates", "endpoints", "secrets", "configmaps", "*");
    }

    /** The admission policy exempts exactly the operator's ServiceAccount, the one the install creates. */
    @Test
    void theLabelPolicyExemptsOnlyTheOperatorsServiceAccount() {
        JsonNode policy = Commands.find(Commands.kustomize(), "ValidatingAdmissionPolicy", OPERATOR + "-labels");
        assertThat(policy.at("/spec/matchConditions/0/expression").asText())
                .isEqualTo("request.userInfo.username != '" + SERVICE_ACCOUNT_USER + "'");
        assertThat(policy.at("/spec/failurePolicy").asText()).isEqualTo("Fail");
        JsonNode binding =
                Commands.find(Commands.kustomize(), "ValidatingAdmissionPolicyBinding", OPERATOR + "-labels");
        assertThat(Commands.strings(binding.at("/spec/validationActions"))).containsExactly("Deny");
        // The RBAC policy holds the operator alone to what it renders; everyone else is RBAC's business.
        JsonNode rbac = Commands.find(Commands.kustomize(), "ValidatingAdmissionPolicy", OPERATOR + "-rbac");
        assertThat(rbac.at("/spec/matchConditions/0/expression").asText())
                .isEqualTo("request.userInfo.username == '" + SERVICE_ACCOUNT_USER + "'");
        assertThat(rbac.at("/spec/failurePolicy").asText()).isEqualTo("Fail");
        assertThat(Commands.strings(rbac.at("/spec/matchConstraints/resourceRules/0/operations")))
                .containsExactly("CREATE", "UPDATE", "DELETE");
        for (String suffix : List.of("-pod-labels", "-rbac", "-leases")) {
            assertThat(Commands.strings(
                            Commands.find(Commands.kustomize(), "ValidatingAdmissionPolicyBinding", OPERATOR + suffix)
                                    .at("/spec/validationActions")))
                    .as(suffix)
                    .containsExactly("Deny");
        }
    }

    @Test
    void operatorDeploymentIsHardened() {
        JsonNode deployment = Commands.find(Commands.kustomize(), "Deployment", OPERATOR);
        JsonNode pod = deployment.at("/spec/template/spec");
        JsonNode container = pod.at("/containers/0");

        assertThat(pod.at("/serviceAccountName").asText()).isEqualTo(OPERATOR);
        assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
        assertThat(pod.at("/securityContext/runAsUser").asInt()).isEqualTo(65532);
        assertThat(pod.at("/securityContext/seccompProfile/type").asText()).isEqualTo("RuntimeDefault");
        assertThat(container.at("/image").asText())
                .isEqualTo("ghcr.io/schedulerops/schedulerops-operator:" + E2eSettings.releaseVersion());
        assertThat(Commands.strings(container.at("/args"))).containsExactly("run");
        assertThat(container.at("/securityContext/allowPrivilegeEscalation").asBoolean(true))
                .isFalse();
        assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean())
                .isTrue();
        assertThat(Commands.strings(container.at("/securityContext/capabilities/drop")))
                .containsExactly("ALL");
        assertThat(container.at("/ports/0/name").asText()).isEqualTo("http");
        assertThat(container.at("/ports/0/containerPort").asInt()).isEqualTo(8080);
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
        assertThat(container.at("/resources/requests/cpu").isMissingNode()).isFalse();
        assertThat(container.at("/resources/requests/memory").isMissingNode()).isFalse();
        assertThat(container.at("/resources/limits/memory").isMissingNode()).isFalse();
        assertThat(container.at("/volumeMounts/0/mountPath").asText()).isEqualTo("/tmp");
        assertThat(pod.at("/volumes/0/emptyDir").isObject()).isTrue();

        Map<String, JsonNode> env = StreamSupport.stream(container.path("env").spliterator(), false)
                .collect(Collectors.toMap(e -> e.path("name").asText(), e -> e));
        assertThat(env.get("SCHEDULEROPS_LEADER_ELECTION").path("value").asText())
                .isEqualTo("true");
        assertThat(env.get("SCHEDULEROPS_WORKLOAD_NAMESPACE")
                        .at("/valueFrom/fieldRef/fieldPath")
                        .asText())
                .isEqualTo("metadata.namespace");
        assertThat(env.get("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES").has("value"))
                .as("the default: no value (the API server drops an empty one, so every apply would patch it)")
                .isFalse();
        assertThat(env.get("SCHEDULEROPS_EXTENDER_IMAGE").path("value").asText())
                .isEqualTo("ghcr.io/schedulerops/schedulerops-extender:" + E2eSettings.releaseVersion());
        assertThat(env.get("SCHEDULEROPS_OPERATOR_IMAGE").path("value").asText())
                .as("the operator's own image (it runs the scheduler pods' init container): the container's image")
                .isEqualTo(container.path("image").asText());
        assertThat(env.get("SCHEDULEROPS_SCHEDULER_IMAGE_REPOSITORY")
                        .path("value")
                        .asText())
                .isEqualTo("registry.k8s.io/kube-scheduler");
        assertThat(env.get("SCHEDULEROPS_LOG_FORMAT").path("value").asText()).isEqualTo("json");
        assertThat(env.get("SCHEDULEROPS_HTTP_PORT").path("value").asText()).isEqualTo("8080");
        assertThat(env.get("SCHEDULEROPS_MAX_CONCURRENT_ROLLOUTS").path("value").asText())
                .isEqualTo(String.valueOf(RolloutSlots.DEFAULT_MAX));
        assertThat(Double.parseDouble(
                        env.get("SCHEDULEROPS_API_QPS").path("value").asText()))
                .isEqualTo(OperatorConfig.DEFAULT_API_QPS);
        assertThat(env.get("SCHEDULEROPS_API_BURST").path("value").asText())
                .isEqualTo(String.valueOf(OperatorConfig.DEFAULT_API_BURST));
        assertThat(env.get("SCHEDULEROPS_RECONCILE_THREADS").path("value").asText())
                .isEqualTo(String.valueOf(OperatorConfig.DEFAULT_RECONCILE_THREADS));
    }

    @Test
    void applyInstallsTheOperatorAndItBecomesAvailable() {
        install();

        JsonNode deployment = Commands.json(kubectl("-n", NAMESPACE, "get", "deployment", OPERATOR, "-o", "json"));
        assertThat(condition(deployment, "Available")).isEqualTo("True");
        assertThat(deployment.at("/status/availableReplicas").asInt()).isEqualTo(1);
        JsonNode pods = Commands.json(
                kubectl("-n", NAMESPACE, "get", "pods", "-l", "app.kubernetes.io/name=" + OPERATOR, "-o", "json"));
        assertThat(pods.path("items")).isNotEmpty();
        for (JsonNode pod : pods.path("items")) {
            // Admitted in a namespace that enforces the restricted Pod Security Standard.
            assertThat(pod.at("/spec/serviceAccountName").asText()).isEqualTo(OPERATOR);
            assertThat(pod.at("/spec/nodeName").asText()).isNotEmpty();
        }
        JsonNode namespace = Commands.json(kubectl("get", "namespace", NAMESPACE, "-o", "json"));
        assertThat(namespace
                        .at("/metadata/labels/pod-security.kubernetes.io~1enforce")
                        .asText())
                .isEqualTo("restricted");
        JsonNode crd = Commands.json(kubectl("get", "crd", CRD_NAME, "-o", "json"));
        assertThat(condition(crd, "Established")).isEqualTo("True");
    }

    @Test
    void applyingAgainChangesNothing() {
        install();

        String deploy = E2eSettings.repoRoot().resolve("deploy").toString();
        Map<String, String> before = resourceVersions(deploy);
        String again = kubectl("apply", "-k", deploy);
        // kubectl's client-side apply always sends a PodDisruptionBudget a patch (its selector is replaced whole, so
        // the computed patch is never empty) and says "configured"; what counts is that no object changed.
        assertThat(again.lines()
                        .filter(line -> !line.startsWith("customresourcedefinition"))
                        .filter(line -> !line.startsWith("poddisruptionbudget.policy/")))
                .as("a second kubectl apply -k deploy/ (the generated CRD is checked by the operator's build)")
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).endsWith(" unchanged"));
        assertThat(resourceVersions(deploy))
                .as("the resource versions of deploy/'s objects after a second kubectl apply -k")
                .isEqualTo(before);
    }

    /** Every object of the kustomization as the API server holds it, by kind and name, with its resource version. */
    private static Map<String, String> resourceVersions(String kustomization) {
        JsonNode list = Commands.json(kubectl("get", "-k", kustomization, "-o", "json"));
        Map<String, String> versions = new java.util.TreeMap<>();
        for (JsonNode item : list.path("items")) {
            if (item.path("kind").asText().equals("CustomResourceDefinition")) {
                continue; // its status moves on its own
            }
            versions.put(
                    Commands.identity(item),
                    item.at("/metadata/resourceVersion").asText());
        }
        return versions;
    }

    @Test
    void serviceAccountMayDoWhatTheOperatorDoes() {
        install();
        List<List<String>> allowed = List.of(
                List.of("list", "schedulerprofiles.schedulerops.dev"),
                List.of("watch", "schedulerprofiles.schedulerops.dev"),
                List.of("patch", "schedulerprofiles.schedulerops.dev", "--subresource=status"),
                List.of("update", "schedulerprofiles.schedulerops.dev", "--subresource=finalizers"),
                // What a profile becomes, in the workload namespace (the operator's own).
                List.of("create", "deployments.apps", "-n", NAMESPACE),
                List.of("delete", "poddisruptionbudgets.policy", "-n", NAMESPACE),
                List.of("create", "configmaps", "-n", NAMESPACE),
                List.of("create", "serviceaccounts", "-n", NAMESPACE),
                List.of("patch", "services", "-n", NAMESPACE),
                List.of("create", "roles.rbac.authorization.k8s.io", "-n", NAMESPACE),
                List.of("create", "secrets", "-n", NAMESPACE),
                List.of("update", "secrets", "-n", NAMESPACE),
                List.of("watch", "secrets", "-n", NAMESPACE),
                List.of("create", "networkpolicies.networking.k8s.io", "-n", NAMESPACE),
                List.of("delete", "networkpolicies.networking.k8s.io", "-n", NAMESPACE),
                // Its pods' status says why a Deployment is not available (PodTrouble).
                List.of("watch", "pods", "-n", NAMESPACE),
                // Each scheduler's lease Role (escalation check), and its own leader election (fabric8 renews with
                // PATCH: without it the operator loses leadership).
                List.of("create", "leases.coordination.k8s.io", "-n", NAMESPACE),
                List.of("patch", "leases.coordination.k8s.io/schedulerops-operator", "-n", NAMESPACE),
                List.of("create", "rolebindings.rbac.authorization.k8s.io", "-n", "kube-system"),
                List.of(
                        "bind",
                        "roles.rbac.authorization.k8s.io/extension-apiserver-authentication-reader",
                        "-n",
                        "kube-system"),
                List.of("create", "events", "-n", "default"),
                // RBAC lets it delete any ClusterRoleBinding (it cannot name in advance the ones profiles will
                // have); the admission policy narrows that to its own, which can-i does not see:
                // theOperatorsTokenCannotDeleteBindingsItDidNotRender asks the API server itself.
                List.of("delete", "clusterrolebindings.rbac.authorization.k8s.io"),
                List.of("get", "endpointslices.discovery.k8s.io/kubernetes", "-n", "default"),
                List.of("bind", "clusterroles.rbac.authorization.k8s.io/" + Names.SCHEDULER_CLUSTER_ROLE),
                List.of("bind", "clusterroles.rbac.authorization.k8s.io/system:volume-scheduler"),
                List.of("bind", "clusterroles.rbac.authorization.k8s.io/" + Names.EXTENDER_NODES_CLUSTER_ROLE),
                List.of("bind", "clusterroles.rbac.authorization.k8s.io/" + Names.EXTENDER_BINDER_CLUSTER_ROLE),
                List.of("list", "nodes"));
        for (List<String> check : allowed) {
            assertThat(canI(check)).as("can-i %s", check).isTrue();
        }
    }

    @Test
    void serviceAccountMayNotDoMore() {
        install();
        List<List<String>> denied = List.of(
                // Nothing namespaced outside its workload namespace: a team's namespace is not its business.
                List.of("create", "deployments.apps", "-n", "team-a"),
                List.of("create", "configmaps", "-n", "team-a"),
                List.of("list", "secrets", "-n", "team-a"),
                List.of("get", "secrets", "-n", "kube-system"),
                List.of("watch", "secrets", "-A"),
                List.of("watch", "pods", "-A"),
                List.of("create", "events", "-n", "team-a"),
                List.of("create", "roles.rbac.authorization.k8s.io", "-n", "kube-system"),
                List.of("delete", "roles.rbac.authorization.k8s.io", "-n", "kube-system"),
                List.of("update", "leases.coordination.k8s.io", "-n", "team-a"),
                List.of("patch", "leases.coordination.k8s.io/kube-scheduler", "-n", "kube-system"),
                List.of("list", "leases.coordination.k8s.io", "-A"),
                // None of the scheduler's or extender's powers itself.
                List.of("create", "pods", "--subresource=binding", "-n", "team-a"),
                List.of("delete", "pods", "-n", "team-a"),
                List.of("create", "pods", "-n", NAMESPACE),
                List.of("patch", "pods", "-n", "team-a"),
                List.of("get", "persistentvolumes"),
                List.of("get", "pods", "--subresource=log", "-n", NAMESPACE),
                List.of("create", "pods", "--subresource=exec", "-n", NAMESPACE),
                List.of("create", "serviceaccounts", "--subresource=token", "-n", NAMESPACE),
                List.of("create", "clusterroles.rbac.authorization.k8s.io"),
                List.of("update", "nodes"),
                List.of("bind", "clusterroles.rbac.authorization.k8s.io/system:kube-scheduler"),
                List.of("bind", "clusterroles.rbac.authorization.k8s.io/cluster-admin"),
                List.of("bind", "clusterroles.rbac.authorization.k8s.io/admin"),
                List.of("escalate", "clusterroles.rbac.authorization.k8s.io"),
                List.of("impersonate", "users"),
                List.of("create", "schedulerprofiles.schedulerops.dev"),
                List.of("delete", "schedulerprofiles.schedulerops.dev"),
                List.of("delete", "customresourcedefinitions.apiextensions.k8s.io"),
                List.of("create", "namespaces"),
                List.of("list", "endpointslices.discovery.k8s.io", "-n", "default"),
                List.of("get", "endpointslices.discovery.k8s.io", "-n", NAMESPACE),
                List.of("*", "*", "-A"));
        for (List<String> check : denied) {
            assertThat(canI(check)).as("can-i %s", check).isFalse();
        }
    }

    /** RBAC's escalation check, run by the API server on a server-side dry run under the operator's identity. */
    @Test
    void apiServerLetsTheOperatorGrantExactlyWhatItGrants() {
        install();
        assertThat(
                        createAsOperator(
                                """
                        apiVersion: rbac.authorization.k8s.io/v1
                        kind: ClusterRoleBinding
                        metadata:
                          name: "schedulerops:deploy-test:kube-scheduler"
                          labels: {app.kubernetes.io/managed-by: schedulerops-operator, schedulerops.dev/profile: deploy-test}
                        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "schedulerops:kube-scheduler"}
                        subjects: [{kind: ServiceAccount, name: deploy-test-scheduler, namespace: schedulerops-system}]
                        ---
                        apiVersion: rbac.authorization.k8s.io/v1
                        kind: ClusterRoleBinding
                        metadata:
                          name: "schedulerops:deploy-test:volume-scheduler"
                          labels: {app.kubernetes.io/managed-by: schedulerops-operator, schedulerops.dev/profile: deploy-test}
                        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:volume-scheduler}
                        subjects: [{kind: ServiceAccount, name: deploy-test-scheduler, namespace: schedulerops-system}]
                        ---
                        apiVersion: rbac.authorization.k8s.io/v1
                        kind: ClusterRoleBinding
                        metadata:
                          name: "schedulerops:deploy-test:extender-binder"
                          labels: {app.kubernetes.io/managed-by: schedulerops-operator, schedulerops.dev/profile: deploy-test}
                        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "schedulerops:extender-binder"}
                        subjects: [{kind: ServiceAccount, name: deploy-test-extender, namespace: schedulerops-system}]
                        ---
                        apiVersion: rbac.authorization.k8s.io/v1
                        kind: RoleBinding
                        metadata:
                          name: "schedulerops:deploy-test:auth-reader"
                          namespace: kube-system
                          labels: {app.kubernetes.io/managed-by: schedulerops-operator, schedulerops.dev/profile: deploy-test}
                        roleRef:
                          apiGroup: rbac.authorization.k8s.io
                          kind: Role
                          name: extension-apiserver-authentication-reader
                        subjects: [{kind: ServiceAccount, name: deploy-test-scheduler, namespace: schedulerops-system}]
                        ---
                        apiVersion: rbac.authorization.k8s.io/v1
                        kind: Role
                        metadata:
                          name: deploy-test-scheduler
                          namespace: schedulerops-system
                          labels: {app.kubernetes.io/managed-by: schedulerops-operator, schedulerops.dev/profile: deploy-test}
                        rules:
                          - apiGroups: [coordination.k8s.io]
                            resources: [leases]
                            verbs: [create]
                          - apiGroups: [coordination.k8s.io]
                            resources: [leases]
                            verbs: [get, update]
                            resourceNames: [deploy-test-scheduler]
                        """))
                .satisfies(result -> assertThat(result.exitCode())
                        .as("dry-run create of the RBAC the operator renders for a profile: %s", result.stderr())
                        .isZero());

        for (String role : List.of("cluster-admin", "system:kube-scheduler")) {
            Commands.Result refused = createAsOperator(
                    """
                    apiVersion: rbac.authorization.k8s.io/v1
                    kind: ClusterRoleBinding
                    metadata:
                      name: "schedulerops:deploy-test:kube-scheduler"
                      labels: {app.kubernetes.io/managed-by: schedulerops-operator, schedulerops.dev/profile: deploy-test}
                    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "%s"}
                    subjects: [{kind: ServiceAccount, name: scheduler, namespace: schedulerops-system}]
                    """
                            .formatted(role));
            assertThat(refused.exitCode()).as("binding %s", role).isNotZero();
            assertThat(refused.stderr()).contains("attempting to grant RBAC permissions not currently held");
        }

        Commands.Result aLeaseRoleInATeamNamespace = createAsOperator(
                """
                apiVersion: rbac.authorization.k8s.io/v1
                kind: Role
                metadata: {name: schedulerops-deploy-test-lease, namespace: team-a}
                rules:
                  - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create]}
                """);
        assertThat(aLeaseRoleInATeamNamespace.exitCode()).isNotZero();
    }

    /**
     * The second review's finding: RBAC lets the operator delete any ClusterRoleBinding and any RoleBinding in
     * kube-system, and the escalation check does not look at deletes. With the operator's own token (a real one, from
     * the TokenRequest API), kubectl's server-side dry runs are refused by deploy/admission's RBAC policy, while what
     * the operator renders passes.
     */
    @Test
    void theOperatorsTokenCannotDeleteBindingsItDidNotRender() throws IOException {
        install();
        Path kubeconfig = operatorKubeconfig();
        for (List<String> delete : List.of(
                List.of("delete", "clusterrolebinding", "system:kube-scheduler", "--dry-run=server"),
                List.of("delete", "clusterrolebinding", "system:kube-controller-manager", "--dry-run=server"),
                List.of(
                        "-n",
                        "kube-system",
                        "delete",
                        "rolebinding",
                        "system::extension-apiserver-authentication-reader",
                        "--dry-run=server"),
                List.of("-n", NAMESPACE, "delete", "rolebinding", OPERATOR, "--dry-run=server"))) {
            Commands.Result refused = kubectlWith(kubeconfig, delete);
            assertThat(refused.exitCode())
                    .as("kubectl %s as the operator: %s", String.join(" ", delete), refused.stdout())
                    .isNotZero();
            assertThat(refused.stderr())
                    .as("kubectl %s as the operator", String.join(" ", delete))
                    .contains("ValidatingAdmissionPolicy '" + OPERATOR + "-rbac'")
                    .contains("writes only the RBAC objects it renders");
        }
        assertThat(kubectl("get", "clusterrolebinding", "system:kube-scheduler", "-o", "name"))
                .contains("system:kube-scheduler");
        Commands.Result whoami =
                kubectlWith(kubeconfig, List.of("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"));
        assertThat(whoami.stdout()).as("the token is the operator's").isEqualTo(SERVICE_ACCOUNT_USER);
    }

    /** A kubeconfig holding the operator ServiceAccount's token alone (no client certificate, which would win). */
    private static Path operatorKubeconfig() throws IOException {
        String token = dev.schedulerops.e2e.support.ServiceAccountTokens.request(
                cluster.client(), NAMESPACE, OPERATOR, Duration.ofMinutes(10));
        io.fabric8.kubernetes.client.Config admin = cluster.client().getConfiguration();
        String ca = admin.getCaCertData() != null
                ? admin.getCaCertData()
                : java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(admin.getCaCertFile())));
        Path file = Files.createTempFile("operator-token-", ".kubeconfig");
        file.toFile().deleteOnExit();
        Files.writeString(
                file,
                """
                apiVersion: v1
                kind: Config
                clusters: [{name: e2e, cluster: {server: "%s", certificate-authority-data: %s}}]
                users: [{name: operator, user: {token: %s}}]
                contexts: [{name: operator, context: {cluster: e2e, user: operator}}]
                current-context: operator
                """
                        .formatted(admin.getMasterUrl(), ca, token));
        return file;
    }

    private static Commands.Result kubectlWith(Path kubeconfig, List<String> args) {
        List<String> command = new ArrayList<>(List.of(Commands.kubectl(), "--kubeconfig", kubeconfig.toString()));
        command.addAll(args);
        return Commands.run(command, Duration.ofMinutes(1));
    }

    @AfterAll
    static void uninstall() {
        if (!installAttempted) {
            return;
        }
        LOG.info("removing the deploy/ install from the test cluster");
        // The admission policy first: the other test classes' operators run as an admin, whose writes of the
        // operator's labels it would refuse.
        for (String policy : List.of("-labels", "-pod-labels", "-rbac", "-leases")) {
            kubectlAllowingFailure(
                    "delete",
                    "validatingadmissionpolicybinding,validatingadmissionpolicy",
                    OPERATOR + policy,
                    "--ignore-not-found");
        }
        kubectlAllowingFailure("delete", "namespace", NAMESPACE, "--ignore-not-found", "--wait=true", "--timeout=120s");
        kubectlAllowingFailure("delete", "clusterrolebinding", OPERATOR, "--ignore-not-found");
        kubectlAllowingFailure("delete", "clusterrole", OPERATOR, "--ignore-not-found");
        kubectlAllowingFailure("delete", "-n", "kube-system", "rolebinding,role", OPERATOR, "--ignore-not-found");
        for (String inDefault : List.of("-events", "-api-server")) {
            kubectlAllowingFailure(
                    "delete", "-n", "default", "rolebinding,role", OPERATOR + inDefault, "--ignore-not-found");
        }
        if (crdExistedBefore) {
            return; // someone else's CRD (and perhaps their profiles): leave it
        }
        Commands.Result profiles =
                kubectlAllowingFailure("get", "schedulerprofiles.schedulerops.dev", "-A", "-o", "name");
        if (profiles.exitCode() == 0 && profiles.stdout().isBlank()) {
            kubectlAllowingFailure("delete", "crd", CRD_NAME, "--ignore-not-found", "--wait=true", "--timeout=60s");
            kubectlAllowingFailure(
                    "delete", "crd", PREVIEW_CRD_NAME, "--ignore-not-found", "--wait=true", "--timeout=60s");
        } else {
            LOG.info("leaving CRD {} in place: SchedulerProfiles exist", CRD_NAME);
        }
    }

    static void assertCrdCopiesInSync() throws IOException {
        Path root = E2eSettings.repoRoot();
        for (String file : List.of(CRD_FILE, PREVIEW_CRD_NAME + "-v1.yml")) {
            Path source = root.resolve("crds").resolve(file);
            if (!Files.isRegularFile(source)) {
                fail("crds/" + file + " is missing: build the operator module (it generates the CRDs)");
            }
            for (Path copy : List.of(
                    root.resolve("deploy/crds").resolve(file),
                    root.resolve("deploy/helm/schedulerops/crds").resolve(file))) {
                assertThat(copy)
                        .as(
                                "%s is a copy of crds/%s: run ./mvnw -pl operator process-classes",
                                root.relativize(copy), file)
                        .hasSameBinaryContentAs(source);
            }
        }
    }

    private static synchronized void install() {
        if (installAttempted) {
            assertThat(condition(
                            Commands.json(kubectl("-n", NAMESPACE, "get", "deployment", OPERATOR, "-o", "json")),
                            "Available"))
                    .isEqualTo("True");
            return;
        }
        try {
            // Never overwrite a shared cluster's CRD with a stale copy.
            assertCrdCopiesInSync();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        cluster.ensureNodes(1, Map.of("kubernetes.io/os", "linux")); // the Deployment's nodeSelector
        crdExistedBefore = kubectlAllowingFailure("get", "crd", CRD_NAME).exitCode() == 0;
        installAttempted = true;
        Commands.Result apply = kubectlAllowingFailure(
                "apply", "-k", E2eSettings.repoRoot().resolve("deploy").toString());
        assertThat(apply.exitCode())
                .as("kubectl apply -k deploy/: %s", apply.stderr())
                .isZero();
        // Not kubectl wait alone: it fails at once ("accessor error") while the new CRD has no status.conditions yet.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (kubectlAllowingFailure("wait", "--for=condition=Established", "crd/" + CRD_NAME, "--timeout=10s")
                        .exitCode()
                != 0) {
            if (System.nanoTime() > deadline) {
                fail("CRD " + CRD_NAME + " not Established within 60 s");
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for CRD " + CRD_NAME);
            }
        }
        Commands.Result rollout = kubectlAllowingFailure(
                "-n", NAMESPACE, "rollout", "status", "deployment/" + OPERATOR, "--timeout=180s");
        assertThat(rollout.exitCode())
                .as("operator rollout: %s %s", rollout.stdout(), rollout.stderr())
                .isZero();
        kubectl("-n", NAMESPACE, "wait", "--for=condition=Available", "deployment/" + OPERATOR, "--timeout=60s");
    }

    private static boolean canI(List<String> check) {
        List<String> args = new ArrayList<>(List.of("auth", "can-i"));
        args.addAll(check);
        args.add("--as=" + SERVICE_ACCOUNT_USER);
        Commands.Result result = kubectlAllowingFailure(args.toArray(String[]::new));
        String answer = result.stdout().strip();
        if (!answer.equals("yes") && !answer.equals("no")) {
            fail("kubectl auth can-i " + check + " answered '" + answer + "': " + result.stderr());
        }
        return answer.equals("yes");
    }

    private static Commands.Result createAsOperator(String yaml) {
        return Commands.run(
                List.of(
                        Commands.kubectl(),
                        "--kubeconfig",
                        cluster.kubeconfig().toString(),
                        "create",
                        "--dry-run=server",
                        "--as=" + SERVICE_ACCOUNT_USER,
                        "-f",
                        "-"),
                yaml,
                Duration.ofSeconds(60));
    }

    private static String condition(JsonNode object, String type) {
        for (JsonNode condition : object.at("/status/conditions")) {
            if (condition.path("type").asText().equals(type)) {
                return condition.path("status").asText();
            }
        }
        return "absent";
    }

    private static String kubectl(String... args) {
        Commands.Result result = kubectlAllowingFailure(args);
        result.requireSuccess("kubectl " + String.join(" ", args));
        return result.stdout();
    }

    private static Commands.Result kubectlAllowingFailure(String... args) {
        List<String> command = new ArrayList<>(
                List.of(Commands.kubectl(), "--kubeconfig", cluster.kubeconfig().toString()));
        command.addAll(List.of(args));
        return Commands.run(command, Duration.ofMinutes(4));
    }
}
