package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.ChildProcess;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.ExtenderProbe;
import dev.schedulerops.e2e.support.KubeSchedulerProcess;
import dev.schedulerops.e2e.support.Loopback;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.preview.LoopbackPorts;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The operator jar with a workload namespace of its own, and each profile it renders run as its pods would run it,
 * as local processes (KWOK runs no containers): the real kube-scheduler with the configuration from the ConfigMap the
 * operator wrote, and the extender jar with the environment of the extender Deployment the operator rendered and the
 * certificates it issued. Only addresses change: the extender listens on a free loopback port and the scheduler's
 * extender URL points there (its TLS files are the Secrets' contents, written to disk, and the server name is the
 * extender Service's, which the serving certificate names).
 */
final class ProfileHarness implements AutoCloseable {
    private static final YAMLMapper YAML = new YAMLMapper();

    private final Cluster cluster;
    private final KubernetesClient client;
    private final String namespace;
    private final ChildProcess operator;

    ProfileHarness(Cluster cluster, String prefix) {
        this.cluster = cluster;
        this.client = cluster.client();
        OperatorTests.installCrd(client);
        this.namespace = cluster.createNamespace(prefix).getMetadata().getName();
        this.operator = cluster.startProcess(
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
    }

    /** The operator's workload namespace; tests put their pods in namespaces of their own. */
    String namespace() {
        return namespace;
    }

    /** A profile's scheduler and (when it has one) its extender, both running. */
    record Running(
            String profile,
            ObjectNode config,
            Optional<ChildProcess> extender,
            int extenderHealthPort,
            KubeSchedulerProcess scheduler)
            implements AutoCloseable {
        /** Sum of a counter's samples on the extender's /metrics whose labels contain {@code labelFilter}. */
        double extenderMetric(String name, String labelFilter) {
            return Loopback.get(extenderHealthPort, "/metrics")
                    .body()
                    .lines()
                    .filter(l -> l.startsWith(name + "{") && l.contains(labelFilter))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                    .sum();
        }

        /** A probe of the extender's node cache, over the scheduler's own TLS files (see {@link ExtenderProbe}). */
        ExtenderProbe probe() {
            JsonNode bundled = config.at("/extenders/0");
            JsonNode tls = bundled.path("tlsConfig");
            return ExtenderProbe.of(
                    bundled.path("urlPrefix").asText(),
                    tls.hasNonNull("caFile") ? Path.of(tls.get("caFile").asText()) : null,
                    tls.hasNonNull("certFile") ? Path.of(tls.get("certFile").asText()) : null,
                    tls.hasNonNull("keyFile") ? Path.of(tls.get("keyFile").asText()) : null);
        }

        /** The extender process's CPU time so far (user and system), from /proc. */
        double extenderCpuSeconds() {
            long pid = extender.orElseThrow().pid();
            try {
                String stat = java.nio.file.Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            scheduler.close();
            extender.ifPresent(e -> e.stop(Duration.ofSeconds(10)));
        }
    }

    /**
     * Applies the profile (cluster-scoped, labelled for this harness's operator), waits for the operator to write its
     * scheduler ConfigMap, and runs what it rendered.
     */
    Running run(String profileName, String specYaml) throws IOException {
        client.resource(OperatorTests.profile(namespace, profileName, specYaml)).serverSideApply();
        Names names = new Names(profileName, namespace);
        ConfigMap configMap = client.configMaps()
                .inNamespace(namespace)
                .withName(names.schedulerConfig())
                .waitUntilCondition(cm -> cm != null, 120, TimeUnit.SECONDS);
        ObjectNode config = (ObjectNode) YAML.readTree(configMap.getData().get(Names.CONFIG_FILE));
        Optional<ChildProcess> extender = Optional.empty();
        int healthPort = -1;
        ObjectNode bundled = config.at("/extenders/0").isObject() ? (ObjectNode) config.at("/extenders/0") : null;
        if (bundled != null
                && bundled.path("urlPrefix").asText().contains("//" + names.extender() + "." + namespace + ".svc:")) {
            int port = LoopbackPorts.free();
            healthPort = LoopbackPorts.free();
            Path tlsDir = cluster.workDir("tls-" + profileName);
            extender = Optional.of(startExtender(names, port, healthPort, tlsDir));
            boolean https = bundled.path("urlPrefix").asText().startsWith("https://");
            bundled.put("urlPrefix", (https ? "https" : "http") + "://127.0.0.1:" + port);
            if (bundled.has("tlsConfig")) {
                writeSecret(names.schedulerClientSecret(), tlsDir, "scheduler-");
                ObjectNode tls = (ObjectNode) bundled.get("tlsConfig");
                if (tls.has("certFile")) {
                    tls.put(
                            "certFile",
                            tlsDir.resolve("scheduler-" + Names.TLS_CERT).toString());
                    tls.put(
                            "keyFile",
                            tlsDir.resolve("scheduler-" + Names.TLS_KEY).toString());
                }
                tls.put("caFile", tlsDir.resolve("scheduler-" + Names.CA_CERT).toString());
                // The serving certificate names the extender Service, not 127.0.0.1.
                tls.put("serverName", names.extenderDnsNames().get(2));
            }
        }
        KubeSchedulerProcess scheduler = cluster.startKubeScheduler(
                        "kube-scheduler-" + profileName, YAML.writeValueAsString(config), schedulerFlags(names))
                .awaitReady(Duration.ofSeconds(180));
        return new Running(profileName, config, extender, healthPort, scheduler);
    }

    /**
     * The flags of the scheduler container the operator rendered beyond its config file and verbosity: its feature
     * gates (the operator's defaults among them) and the profile's extra arguments.
     */
    private List<String> schedulerFlags(Names names) {
        Deployment deployment = client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(names.scheduler())
                .waitUntilCondition(d -> d != null, 120, TimeUnit.SECONDS);
        return deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand().stream()
                .filter(arg -> arg.startsWith("--") && !arg.startsWith("--config=") && !arg.startsWith("--v="))
                .toList();
    }

    /** The extender jar with the environment of the container the operator rendered; addresses and files local. */
    private ChildProcess startExtender(Names names, int port, int healthPort, Path tlsDir) {
        Deployment deployment = client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(names.extender())
                .waitUntilCondition(d -> d != null, 120, TimeUnit.SECONDS);
        Map<String, String> env = new HashMap<>();
        for (EnvVar var : deployment
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getEnv()) {
            if (var.getValue() != null) {
                env.put(var.getName(), var.getValue());
            }
        }
        assertThat(env).containsKey("SCHEDULEROPS_LABEL_KEY");
        // Heap sizing is relative to a container's memory limit, which a local process does not have.
        env.remove("JAVA_TOOL_OPTIONS");
        env.put("SCHEDULEROPS_PORT", Integer.toString(port));
        env.put("SCHEDULEROPS_HEALTH_PORT", Integer.toString(healthPort));
        env.put("SCHEDULEROPS_BIND_ADDRESS", "127.0.0.1");
        env.put("SCHEDULEROPS_LOG_FORMAT", "text");
        env.put("KUBECONFIG", cluster.kubeconfig().toString());
        if (env.containsKey("SCHEDULEROPS_TLS_CERT_FILE")) {
            writeSecret(names.extenderTlsSecret(), tlsDir, "extender-");
            env.put(
                    "SCHEDULEROPS_TLS_CERT_FILE",
                    tlsDir.resolve("extender-" + Names.TLS_CERT).toString());
            env.put(
                    "SCHEDULEROPS_TLS_KEY_FILE",
                    tlsDir.resolve("extender-" + Names.TLS_KEY).toString());
        }
        if (env.containsKey("SCHEDULEROPS_TLS_CLIENT_CA_FILE")) {
            env.put(
                    "SCHEDULEROPS_TLS_CLIENT_CA_FILE",
                    tlsDir.resolve("extender-" + Names.CLIENT_CA).toString());
        }
        ChildProcess process = cluster.startProcess(
                "extender-" + names.profile(),
                List.of(java(), "-jar", E2eSettings.extenderJar().toString()),
                env);
        // A JVM starting on a loaded 2-core machine has taken 90 s to be ready (TLS, the node list).
        Await.until(
                Duration.ofSeconds(180),
                "the extender of " + names.profile() + " is ready",
                () -> Loopback.status(healthPort, "/readyz") == 200);
        return process;
    }

    private void writeSecret(String name, Path dir, String prefix) {
        Secret secret = client.secrets()
                .inNamespace(namespace)
                .withName(name)
                .waitUntilCondition(s -> s != null && s.getData() != null, 60, TimeUnit.SECONDS);
        secret.getData().forEach((key, value) -> {
            try {
                Files.write(dir.resolve(prefix + key), Base64.getDecoder().decode(value));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Override
    public void close() {
        if (operator != null && operator.isAlive()) {
            OperatorTests.deleteProfiles(client, namespace);
        }
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
