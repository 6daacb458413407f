package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.schedulerops.operator.preview.LoopbackPorts;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Argo CD's application controller and repo server (the argocd binary of {@code e2e/tools/build argocd}, by its
 * multi-call names) and the Redis they share (Debian's redis-server), as processes of the test class on 127.0.0.1,
 * the controller against the e2e cluster with its kubeconfig ({@code ARGOCD_FAKE_IN_CLUSTER}: the in-cluster
 * destination {@code https://kubernetes.default.svc} is that cluster), in one namespace of its own holding
 * argocd-cm (the caller's), argocd-rbac-cm, argocd-secret and the default AppProject. No API server, UI, Dex or
 * ApplicationSet controller: Applications are created with the Kubernetes API.
 */
public final class ArgoCdControllers {
    private static final ResourceDefinitionContext APP_PROJECTS = new ResourceDefinitionContext.Builder()
            .withGroup("argoproj.io")
            .withVersion("v1alpha1")
            .withKind("AppProject")
            .withPlural("appprojects")
            .withNamespaced(true)
            .build();

    public static final String APPLICATION_API = "argoproj.io/v1alpha1";

    private final ChildProcess controller;

    private ArgoCdControllers(ChildProcess controller) {
        this.controller = controller;
    }

    /**
     * @param argocd the argocd binary (its directory holds the argocd-application-controller and argocd-repo-server
     *     links and crds/)
     * @param argocdCm the argocd-cm ConfigMap to run with (its metadata.namespace is replaced by {@code namespace})
     */
    public static ArgoCdControllers start(Cluster cluster, Path argocd, String namespace, ObjectNode argocdCm) {
        Path dir = argocd.getParent();
        cluster.kubectl(
                        "apply",
                        "--server-side",
                        "--force-conflicts",
                        "--field-manager=schedulerops-e2e",
                        "-f",
                        dir.resolve("crds").toString())
                .requireSuccess("applying Argo CD's CRDs");
        Crds.awaitEstablished(cluster, "applications.argoproj.io", "appprojects.argoproj.io");
        KubernetesClient client = cluster.client();
        ObjectNode cm = argocdCm.deepCopy();
        ((ObjectNode) cm.path("metadata")).put("namespace", namespace);
        for (JsonNode object : List.of(
                cm,
                Commands.json(
                        """
                        {"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": "argocd-rbac-cm", "namespace": "%s"}}"""
                                .formatted(namespace)),
                Commands.json(
                        """
                        {"apiVersion": "v1", "kind": "Secret",
                         "metadata": {"name": "argocd-secret", "namespace": "%s"},
                         "stringData": {"server.secretkey": "unused: no API server runs"}}"""
                                .formatted(namespace)),
                Commands.json(
                        """
                        {"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
                         "metadata": {"name": "default", "namespace": "%s"},
                         "spec": {"sourceRepos": ["*"], "destinations": [{"server": "*", "namespace": "*"}],
                                  "clusterResourceWhitelist": [{"group": "*", "kind": "*"}]}}"""
                                .formatted(namespace)))) {
            // Argo CD reads only ConfigMaps and Secrets labelled as its own (an install's argocd-cm is).
            ((ObjectNode) object.path("metadata")).putObject("labels").put("app.kubernetes.io/part-of", "argocd");
            GenericKubernetesResource resource =
                    Serialization.unmarshal(object.toString(), GenericKubernetesResource.class);
            if (resource.getKind().equals("AppProject")) {
                // Named explicitly: the API server's discovery can lag behind the CRD's Established condition, and
                // resource() asks discovery for the plural (a CI run failed with "no registered handler" there).
                client.genericKubernetesResources(APP_PROJECTS)
                        .inNamespace(namespace)
                        .resource(resource)
                        .create();
            } else {
                client.resource(resource).create();
            }
        }

        Path local = cluster.workDir("argocd-local");
        Map<String, String> environment = new HashMap<>(Map.of(
                "KUBECONFIG", cluster.kubeconfig().toString(),
                "ARGOCD_FAKE_IN_CLUSTER", "true",
                "ARGOCD_GPG_ENABLED", "false",
                "ARGOCD_TLS_DATA_PATH", local.resolve("tls").toString(),
                "ARGOCD_SSH_DATA_PATH", local.resolve("ssh").toString(),
                "ARGOCD_GNUPGHOME", local.resolve("gpg").toString(),
                "ARGOCD_PLUGINSOCKFILEPATH", local.resolve("cmp").toString()));
        for (String sub : List.of("tls", "ssh", "gpg", "cmp")) {
            cluster.workDir("argocd-local/" + sub);
        }
        int redisPort = LoopbackPorts.free();
        ChildProcess redis = cluster.startProcess(
                "redis-server",
                List.of(
                        "redis-server",
                        "--port",
                        String.valueOf(redisPort),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no"),
                Map.of());
        await(redis, () -> redis.log().contains("Ready to accept connections"));
        String redisAddress = "127.0.0.1:" + redisPort;
        int repoPort = LoopbackPorts.free();
        ChildProcess repoServer = cluster.startProcess(
                "argocd-repo-server",
                List.of(
                        dir.resolve("argocd-repo-server").toString(),
                        "--address=127.0.0.1",
                        "--port=" + repoPort,
                        "--disable-tls",
                        "--redis=" + redisAddress,
                        "--metrics-address=127.0.0.1",
                        "--metrics-port=" + LoopbackPorts.free(),
                        "--logformat=text"),
                environment);
        await(repoServer, () -> repoServer.log().contains("argocd-repo-server is listening on"));
        int controllerMetrics = LoopbackPorts.free();
        ChildProcess controller = cluster.startProcess(
                "argocd-application-controller",
                List.of(
                        dir.resolve("argocd-application-controller").toString(),
                        "--namespace=" + namespace,
                        "--kubeconfig=" + cluster.kubeconfig(),
                        "--redis=" + redisAddress,
                        "--repo-server=127.0.0.1:" + repoPort,
                        "--repo-server-plaintext",
                        // It has no address flag: the metrics port listens on every interface.
                        "--metrics-port=" + controllerMetrics,
                        "--logformat=text"),
                environment);
        await(controller, () -> Loopback.status(controllerMetrics, "/healthz") == 200);
        return new ArgoCdControllers(controller);
    }

    public ChildProcess controller() {
        return controller;
    }

    private static void await(ChildProcess process, java.util.function.BooleanSupplier ready) {
        Await.until(Duration.ofSeconds(60), process.logFile().getFileName() + " is up", () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException(process.logFile().getFileName() + " exited: " + process.tail());
            }
            return ready.getAsBoolean();
        });
    }
}
