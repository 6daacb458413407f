package dev.schedulerops.e2e;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.Crds;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.DeploymentReadiness;
import dev.schedulerops.operator.reconcile.ProfileEvents;
import dev.schedulerops.operator.runtime.OperatorConfig;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Access to the e2e/cluster control plane, shared by the tests that run the operator themselves. Profiles are
 * cluster-scoped and the cluster is shared by every test class, one class at a time: each class runs its own operator
 * with a workload namespace of its own (a restricted one) and a profile selector, {@link #RUN_LABEL} = that namespace,
 * which {@link #profile} puts on the class's profiles; {@link #deleteProfiles} removes them before the operator stops.
 */
final class OperatorTests {
    /** Namespaces that enforce the restricted Pod Security Standard. */
    static final Map<String, String> RESTRICTED = Map.of(
            "pod-security.kubernetes.io/enforce", "restricted",
            "pod-security.kubernetes.io/enforce-version", "latest");

    /** The label that puts a profile in the hands of one test class's operator (its value: the workload namespace). */
    static final String RUN_LABEL = "e2e.schedulerops.dev/run";

    private OperatorTests() {}

    static String suffix() {
        return UUID.randomUUID().toString().substring(0, 6);
    }

    /**
     * The CRD, and no profile left by an earlier class or run: their operators are gone, so their finalizers are
     * removed here (garbage collection then removes what they owned).
     */
    static void installCrd(KubernetesClient client) {
        Crds.install(client);
        for (SchedulerProfile stale :
                client.resources(SchedulerProfile.class).list().getItems()) {
            var profile = client.resources(SchedulerProfile.class)
                    .withName(stale.getMetadata().getName());
            profile.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
            profile.delete();
        }
    }

    /** A fresh {@code prefix-xxxxx} namespace enforcing {@link #RESTRICTED}, deleted when the class ends. */
    static String createRestrictedNamespace(Cluster cluster, String prefix) {
        return cluster.createNamespace(prefix, RESTRICTED).getMetadata().getName();
    }

    /** An in-process operator's settings: its workload namespace, and only the profiles of this run. */
    static OperatorConfig operatorConfig(Map<String, String> extra, String workloadNamespace) {
        Map<String, String> env = new HashMap<>(settings(workloadNamespace));
        env.putAll(extra);
        return OperatorConfig.fromEnvironment(env, Optional::empty);
    }

    /** The SCHEDULEROPS_* settings of an operator for this run (also as the jar's environment). */
    static Map<String, String> settings(String workloadNamespace) {
        return Map.of(
                OperatorConfig.ENV_WORKLOAD_NAMESPACE, workloadNamespace,
                OperatorConfig.ENV_PROFILE_SELECTOR, RUN_LABEL + "=" + workloadNamespace,
                OperatorConfig.ENV_LEADER_ELECTION, "false",
                OperatorConfig.ENV_HTTP_PORT, "0",
                OperatorConfig.ENV_HTTP_BIND_ADDRESS, "127.0.0.1");
    }

    /** A profile of the run whose workload namespace is {@code run}. */
    static SchedulerProfile profile(String run, String name, String specYaml) {
        String yaml =
                """
                apiVersion: schedulerops.dev/v1beta1
                kind: SchedulerProfile
                metadata:
                  name: %s
                  labels:
                    %s: %s
                spec:
                %s"""
                        .formatted(name, RUN_LABEL, run, specYaml.indent(2));
        return Serialization.unmarshal(yaml, SchedulerProfile.class);
    }

    /** Deletes the run's profiles and waits until their finalizers are done (call before stopping the operator). */
    static void deleteProfiles(KubernetesClient client, String run) {
        client.resources(SchedulerProfile.class).withLabel(RUN_LABEL, run).delete();
        Await.until(Duration.ofSeconds(120), "the profiles of " + run + " are gone", () -> client.resources(
                        SchedulerProfile.class)
                .withLabel(RUN_LABEL, run)
                .list()
                .getItems()
                .isEmpty());
    }

    /**
     * Installs the product as users do ({@code kubectl apply --server-side -k deploy/}) and waits until the operator
     * Deployment is available; {@link #uninstallTheDeployedProduct} removes it again.
     */
    static void installTheDeployedProduct(Cluster cluster, Duration timeout) {
        cluster.kubectl(
                        "apply",
                        "--server-side",
                        "-k",
                        cluster.repoRoot().resolve("deploy").toString())
                .requireSuccess("kubectl apply --server-side -k deploy/");
        awaitTheDeployedOperator(cluster.client(), timeout);
    }

    /** Waits until the operator's Deployment from deploy/ is Available at its current generation (a change rolled). */
    static void awaitTheDeployedOperator(KubernetesClient client, Duration timeout) {
        client.apps()
                .deployments()
                .inNamespace(InClusterTest.OPERATOR_NAMESPACE)
                .withName(InClusterTest.OPERATOR)
                .waitUntilCondition(
                        d -> d != null && DeploymentReadiness.isAvailableAtCurrentGeneration(d),
                        timeout.toSeconds(),
                        TimeUnit.SECONDS);
    }

    /**
     * Adds one KWOK node to {@code pool} and makes it the only node of the cluster with {@code label=value} (the label is
     * removed from every other node, real ones included); returns its name.
     */
    static String addTheOnlyLabelledNode(Cluster cluster, String pool, String label, String value) {
        return addTheOnlyLabelledNode(cluster, pool, label, value, java.util.OptionalInt.empty());
    }

    /** The same with room for {@code pods} pods on the node instead of e2e/cluster's 110. */
    static String addTheOnlyLabelledNode(
            Cluster cluster, String pool, String label, String value, java.util.OptionalInt pods) {
        KubernetesClient client = cluster.client();
        String node = cluster.addNodes(1, Map.of("schedulerops.dev/e2e-pool", pool), pods)
                .get(0);
        client.nodes()
                .list()
                .getItems()
                .forEach(n -> MergePatch.nodeLabel(client, n.getMetadata().getName(), label, null));
        MergePatch.nodeLabel(client, node, label, value);
        return node;
    }

    /**
     * The start of a real-node class: the real node ({@link RealNode#ensure}), one KWOK node that alone carries {@code
     * label=10} (so a pod scheduled through the extender lands on it), and the product installed from deploy/. Returns
     * that KWOK node.
     */
    static String installTheProductOnTheRealNode(Cluster cluster, String pool, String label, Duration timeout) {
        return installTheProductOnTheRealNode(cluster, pool, label, timeout, java.util.OptionalInt.empty());
    }

    /** The same with room for {@code pods} pods on the KWOK node. */
    static String installTheProductOnTheRealNode(
            Cluster cluster, String pool, String label, Duration timeout, java.util.OptionalInt pods) {
        RealNode.ensure();
        String node = addTheOnlyLabelledNode(cluster, pool, label, "10", pods);
        installTheDeployedProduct(cluster, timeout);
        return node;
    }

    /** Waits up to {@code timeout} for {@code pod} to be bound; returns its node. */
    static String awaitBound(KubernetesClient client, Pod pod, Duration timeout) {
        return client.pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .waitUntilCondition(
                        p -> p != null && p.getSpec().getNodeName() != null, timeout.toSeconds(), TimeUnit.SECONDS)
                .getSpec()
                .getNodeName();
    }

    /**
     * Drops, on the real node, every packet to the profile's extender Service (its pods stay Ready): the profile's
     * kube-scheduler can no longer reach its extender, and finds out only at its {@code httpTimeout}.
     */
    static RealNode.Blackhole blackholeTheExtenderService(KubernetesClient client, String profile) {
        Service service = client.services()
                .inNamespace(InClusterTest.OPERATOR_NAMESPACE)
                .withName(profile + Names.EXTENDER_SUFFIX)
                .get();
        int port = service.getSpec().getPorts().stream()
                .filter(p -> "http".equals(p.getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "no port named http in " + service.getSpec().getPorts()))
                .getPort();
        return RealNode.blackhole(service.getSpec().getClusterIP(), port);
    }

    /**
     * Cuts one pod off the API server on the real node, both ways (its packets to the {@code kubernetes} Service and
     * the replies to it), while the API server stays fine for everyone else.
     */
    static RealNode.Blackhole cutFromTheApiServer(KubernetesClient client, String podIp) {
        String apiServer = client.services()
                .inNamespace("default")
                .withName("kubernetes")
                .get()
                .getSpec()
                .getClusterIP();
        int endpointPort = client.discovery()
                .v1()
                .endpointSlices()
                .inNamespace("default")
                .withLabel("kubernetes.io/service-name", "kubernetes")
                .list()
                .getItems()
                .get(0)
                .getPorts()
                .get(0)
                .getPort();
        return RealNode.blackhole(podIp, apiServer, 443, endpointPort);
    }

    /** The image of a Deployment's first container, or "" for no Deployment. */
    static String image(Deployment deployment) {
        return deployment == null
                ? ""
                : deployment
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage();
    }

    /** The topology spread over nodes ({@code kubernetes.io/hostname}) of a Deployment's pods. */
    static io.fabric8.kubernetes.api.model.TopologySpreadConstraint hostnameSpread(Deployment deployment) {
        return deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints().stream()
                .filter(c -> c.getTopologyKey().equals("kubernetes.io/hostname"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no spread over kubernetes.io/hostname in "
                        + deployment.getMetadata().getName()));
    }

    /** A Deployment's available replicas; 0 for none, or no Deployment. */
    static int available(Deployment deployment) {
        return deployment == null
                        || deployment.getStatus() == null
                        || deployment.getStatus().getAvailableReplicas() == null
                ? 0
                : deployment.getStatus().getAvailableReplicas();
    }

    /** Waits until the profile is {@linkplain #isCurrent current}. */
    static void awaitCurrent(KubernetesClient client, String profile, Duration timeout) {
        Await.until(
                timeout,
                "profile " + profile + " is Ready",
                () -> isCurrent(client.resources(SchedulerProfile.class)
                        .withName(profile)
                        .get()));
    }

    /** The pods in {@code namespace} with {@code labels} that are not being deleted. */
    static List<Pod> livePods(KubernetesClient client, String namespace, Map<String, String> labels) {
        return client.pods().inNamespace(namespace).withLabels(labels).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    /**
     * Undoes {@link #installTheProductOnTheRealNode} and what a real-node class adds to it: its pods' namespace (when it
     * got that far), its profiles and the product, and {@code label} on the nodes that carry it for the class.
     */
    static void removeTheProductFromTheRealNode(
            Cluster cluster,
            String namespace,
            String label,
            List<String> labelledNodes,
            Duration timeout,
            String... profiles) {
        KubernetesClient client = cluster.client();
        if (namespace != null) {
            client.namespaces().withName(namespace).delete();
        }
        uninstallTheDeployedProduct(cluster, client, timeout, profiles);
        labelledNodes.stream()
                .filter(java.util.Objects::nonNull)
                .forEach(node -> MergePatch.nodeLabel(client, node, label, null));
    }

    /**
     * Deletes the profiles (the operator, still running, tears their objects down), then the product installed from
     * deploy/: the next class runs operators of its own, and no operator or admission policy may be left behind.
     */
    static void uninstallTheDeployedProduct(
            Cluster cluster, KubernetesClient client, Duration timeout, String... profiles) {
        uninstallProfiles(client, timeout, profiles);
        cluster.kubectl(
                "delete",
                "-k",
                cluster.repoRoot().resolve("deploy").toString(),
                "--wait=true",
                "--timeout=180s",
                "--ignore-not-found");
    }

    /** Deletes the profiles and waits until they are gone (the operator has torn their objects down). */
    static void uninstallProfiles(KubernetesClient client, Duration timeout, String... profiles) {
        for (String profile : profiles) {
            client.resources(SchedulerProfile.class).withName(profile).delete();
        }
        Await.until(timeout, "the profiles " + String.join(", ", profiles) + " are gone", () -> Stream.of(profiles)
                .allMatch(p ->
                        client.resources(SchedulerProfile.class).withName(p).get() == null));
    }

    /**
     * kstatus "Current", as Flux reads a custom resource: the status describes this generation and neither
     * Reconciling nor Stalled is True; and Ready is True, as Argo CD's health check reads it.
     */
    static boolean isCurrent(SchedulerProfile profile) {
        if (profile == null || profile.getStatus() == null) {
            return false;
        }
        Long generation = profile.getMetadata().getGeneration();
        boolean observed = generation.equals(profile.getStatus().getObservedGeneration());
        boolean abnormal = Stream.of("Reconciling", "Stalled").anyMatch(type -> condition(profile, type)
                .map(c -> "True".equals(c.getStatus()))
                .orElse(false));
        boolean ready = condition(profile, "Ready")
                .map(c -> "True".equals(c.getStatus()) && generation.equals(c.getObservedGeneration()))
                .orElse(false);
        return observed && !abnormal && ready;
    }

    static Optional<Condition> condition(SchedulerProfile profile, String type) {
        if (profile == null
                || profile.getStatus() == null
                || profile.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return profile.getStatus().getConditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst();
    }

    static List<String> reasons(KubernetesClient client, String profile) {
        return events(client, profile).map(Event::getReason).toList();
    }

    static List<String> warnings(KubernetesClient client, String profile) {
        return events(client, profile)
                .filter(e -> "Warning".equals(e.getType()))
                .map(Event::getReason)
                .toList();
    }

    /**
     * The events on a profile (in {@code default}, where events of cluster-scoped objects live), oldest first as the
     * API server lists them; only the current object's (by UID) while it exists, so that an earlier run's profile of
     * the same name does not count.
     */
    static Stream<Event> events(KubernetesClient client, String profile) {
        SchedulerProfile current =
                client.resources(SchedulerProfile.class).withName(profile).get();
        String uid = current == null ? null : current.getMetadata().getUid();
        return client.v1().events().inNamespace(ProfileEvents.NAMESPACE).list().getItems().stream()
                .filter(e -> SchedulerProfile.KIND.equals(e.getInvolvedObject().getKind())
                        && profile.equals(e.getInvolvedObject().getName())
                        && (uid == null || uid.equals(e.getInvolvedObject().getUid())));
    }

    /** Everything still labelled as the profile's: in the workload namespace, cluster-scoped and in kube-system. */
    static List<String> leftovers(KubernetesClient client, String workloadNamespace, String profile) {
        Map<String, String> labels = Map.of(Labels.PROFILE, profile);
        Stream<HasMetadata> namespaced = Stream.of(
                        Deployment.class,
                        ConfigMap.class,
                        io.fabric8.kubernetes.api.model.Secret.class,
                        io.fabric8.kubernetes.api.model.Service.class,
                        io.fabric8.kubernetes.api.model.ServiceAccount.class,
                        io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class,
                        io.fabric8.kubernetes.api.model.rbac.Role.class,
                        RoleBinding.class,
                        io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget.class)
                .flatMap(type ->
                        client
                                .resources(type)
                                .inNamespace(workloadNamespace)
                                .withLabels(labels)
                                .list()
                                .getItems()
                                .stream()
                                .map(HasMetadata.class::cast));
        Stream<HasMetadata> clusterScoped =
                client.rbac().clusterRoleBindings().withLabels(labels).list().getItems().stream()
                        .map(HasMetadata.class::cast);
        Stream<HasMetadata> kubeSystem =
                client.rbac().roleBindings().inNamespace("kube-system").withLabels(labels).list().getItems().stream()
                        .map(HasMetadata.class::cast);
        return Stream.of(namespaced, clusterScoped, kubeSystem)
                .flatMap(s -> s)
                .map(o -> o.getKind() + " " + o.getMetadata().getName())
                .toList();
    }

    /** The ClusterRole shipped in deploy/, read from the repository. */
    static ClusterRole shippedClusterRole() throws IOException {
        try (var in = Files.newInputStream(E2eSettings.repoRoot().resolve("deploy/rbac/cluster-role.yaml"))) {
            return Serialization.unmarshal(in, ClusterRole.class);
        }
    }

    /**
     * Applies deploy/rbac as `kubectl apply -k` would with the operator in {@code namespace}: its ServiceAccount and
     * workload Role there, the Roles in kube-system and default as they are, the operator's own names suffixed with
     * {@code suffix} so that test classes never share them (the profile roles, cluster-scoped and fixed by name, are
     * shared). Returns what to delete afterwards (the suffixed objects).
     */
    static List<HasMetadata> installShippedRbac(KubernetesClient admin, String namespace, String suffix)
            throws IOException {
        List<HasMetadata> created = new java.util.ArrayList<>();
        java.nio.file.Path rbac = E2eSettings.repoRoot().resolve("deploy/rbac");
        for (String file : List.of(
                "service-account.yaml",
                "cluster-role.yaml",
                "cluster-role-binding.yaml",
                "workload-role.yaml",
                "kube-system-role.yaml",
                "profile-roles.yaml")) {
            try (var in = Files.newInputStream(rbac.resolve(file))) {
                for (HasMetadata object : admin.load(in).items()) {
                    boolean profileRole = file.equals("profile-roles.yaml");
                    if (!profileRole && !(object instanceof io.fabric8.kubernetes.api.model.ServiceAccount)) {
                        object.getMetadata().setName(object.getMetadata().getName() + "-" + suffix);
                    }
                    if ("schedulerops-system".equals(object.getMetadata().getNamespace())) {
                        object.getMetadata().setNamespace(namespace);
                    }
                    if (object instanceof RoleBinding binding) {
                        binding.getSubjects().forEach(subject -> subject.setNamespace(namespace));
                        binding.getRoleRef().setName(binding.getRoleRef().getName() + "-" + suffix);
                    }
                    if (object instanceof ClusterRoleBinding binding) {
                        binding.getSubjects().forEach(subject -> subject.setNamespace(namespace));
                        binding.getRoleRef().setName(binding.getRoleRef().getName() + "-" + suffix);
                    }
                    admin.resource(object).serverSideApply();
                    if (!profileRole) {
                        created.add(object);
                    }
                }
            }
        }
        return created;
    }

    /**
     * Applies the cluster roles that profiles are bound to (deploy/rbac/profile-roles.yaml, shared by every test). An
     * operator run in the test JVM needs them as soon as a profile's pods really run: without them the extender cannot
     * list nodes and never becomes Ready.
     */
    static void installProfileRoles(KubernetesClient admin) throws IOException {
        try (var in = Files.newInputStream(E2eSettings.repoRoot().resolve("deploy/rbac/profile-roles.yaml"))) {
            for (HasMetadata role : admin.load(in).items()) {
                admin.resource(role).serverSideApply();
            }
        }
    }

    static List<ClusterRoleBinding> clusterRoleBindingsOf(KubernetesClient client, String profile) {
        return client.rbac()
                .clusterRoleBindings()
                .withLabels(Map.of(Labels.PROFILE, profile))
                .list()
                .getItems();
    }
}
