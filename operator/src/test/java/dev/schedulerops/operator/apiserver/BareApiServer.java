package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.preview.LoopbackPorts;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd and kube-apiserver on random 127.0.0.1 ports, and nothing else: no controller manager, no scheduler, no nodes.
 * Authentication is a static token of a {@code system:masters} user; the service-account key pair is generated here;
 * the serving certificate is the API server's own self-signed one (the client trusts it: loopback only). Logs and data
 * go under {@code target/apiserver-tier/}. {@link #close()} stops both processes; a JVM shutdown hook does too, so a
 * failed or interrupted run leaves nothing behind.
 */
final class BareApiServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BareApiServer.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final List<Process> processes = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::stopProcesses, "bare-apiserver-stop");
    private final Path workDir;
    private final String token = UUID.randomUUID().toString();
    /** The operator's own user, so that the audit log tells its requests from the tests'. */
    private final String operatorToken = UUID.randomUUID().toString();

    private int securePort;

    private BareApiServer(Path workDir) {
        this.workDir = workDir;
    }

    static BareApiServer start(ControlPlaneBinaries binaries, Path workDir) {
        BareApiServer server = new BareApiServer(workDir);
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        try {
            server.startProcesses(binaries);
            return server;
        } catch (RuntimeException | IOException e) {
            server.close();
            throw e instanceof RuntimeException r ? r : new UncheckedIOException((IOException) e);
        }
    }

    private void startProcesses(ControlPlaneBinaries binaries) throws IOException {
        Files.createDirectories(workDir);
        int etcdClient = LoopbackPorts.free();
        int etcdPeer = LoopbackPorts.free();
        securePort = LoopbackPorts.free();
        String etcdUrl = "http://127.0.0.1:" + etcdClient;
        String peerUrl = "http://127.0.0.1:" + etcdPeer;
        launch(
                "etcd",
                List.of(
                        binaries.etcd().toString(),
                        "--name=tier",
                        "--data-dir=" + workDir.resolve("etcd-data"),
                        "--listen-client-urls=" + etcdUrl,
                        "--advertise-client-urls=" + etcdUrl,
                        "--listen-peer-urls=" + peerUrl,
                        "--initial-advertise-peer-urls=" + peerUrl,
                        "--initial-cluster=tier=" + peerUrl,
                        "--unsafe-no-fsync=true",
                        "--log-level=warn"));

        KeyPair serviceAccountKeys = rsaKeyPair();
        Path signingKey = pem(
                workDir.resolve("sa.key"),
                "PRIVATE KEY",
                serviceAccountKeys.getPrivate().getEncoded());
        Path verifyingKey = pem(
                workDir.resolve("sa.pub"),
                "PUBLIC KEY",
                serviceAccountKeys.getPublic().getEncoded());
        Path tokens = workDir.resolve("tokens.csv");
        Files.writeString(
                tokens,
                token + "," + ADMIN_USER + "," + ADMIN_USER + ",system:masters\n" + operatorToken + "," + OPERATOR_USER
                        + "," + OPERATOR_USER + ",system:masters\n",
                StandardCharsets.UTF_8);
        // Every request at Metadata level, written before the answer (the log backend blocks): SteadyStateTest counts
        // the operator's writes from the API server's own record. Events with their body: a created Event's name is
        // generated, so only its involvedObject says which profile it is about.
        Path auditPolicy = workDir.resolve("audit-policy.yaml");
        Files.writeString(
                auditPolicy,
                """
                apiVersion: audit.k8s.io/v1
                kind: Policy
                omitStages: [RequestReceived]
                rules:
                - level: Request
                  resources: [{group: "", resources: [events]}]
                - level: Metadata
                """,
                StandardCharsets.UTF_8);
        launch(
                "kube-apiserver",
                List.of(
                        binaries.apiServer().toString(),
                        "--etcd-servers=" + etcdUrl,
                        "--bind-address=127.0.0.1",
                        "--advertise-address=127.0.0.1",
                        "--secure-port=" + securePort,
                        "--cert-dir=" + workDir.resolve("certs"),
                        "--token-auth-file=" + tokens,
                        "--audit-policy-file=" + auditPolicy,
                        "--audit-log-path=" + auditLog(),
                        "--audit-log-maxsize=0",
                        "--authorization-mode=RBAC",
                        "--service-account-issuer=https://kubernetes.default.svc",
                        "--service-account-key-file=" + verifyingKey,
                        "--service-account-signing-key-file=" + signingKey,
                        "--service-cluster-ip-range=10.96.0.0/16",
                        "--enable-priority-and-fairness=false",
                        "--v=1"));
        awaitReady();
    }

    private void launch(String name, List<String> command) throws IOException {
        Path log = workDir.resolve(name + ".log");
        Process process = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        processes.add(process);
        LOG.info("started {} (pid {}), log {}", name, process.pid(), log);
    }

    private void awaitReady() {
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        RuntimeException last = null;
        try (KubernetesClient client = client()) {
            while (Instant.now().isBefore(deadline)) {
                for (Process process : processes) {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("a control-plane process exited with " + process.exitValue()
                                + "; see the logs in " + workDir);
                    }
                }
                try {
                    String ready = client.raw("/readyz");
                    if ("ok".equals(ready)
                            && client.namespaces().withName("default").get() != null) {
                        LOG.info("bare kube-apiserver ready on https://127.0.0.1:{}", securePort);
                        return;
                    }
                } catch (RuntimeException e) {
                    last = e;
                }
                sleep(Duration.ofMillis(250));
            }
        }
        throw new IllegalStateException(
                "kube-apiserver was not ready within " + START_TIMEOUT + "; see the logs in " + workDir, last);
    }

    static final String OPERATOR_USER = "tier-operator";
    /** The user of {@link #client()}: the tests, and the operators of their own ({@link OwnOperator}). */
    static final String ADMIN_USER = "tier-admin";

    /** The API server's audit log: one JSON event a line, every request at Metadata level (Events at Request). */
    Path auditLog() {
        return workDir.resolve("audit.log");
    }

    /** A new client authenticated as a {@code system:masters} user; the caller closes it. */
    KubernetesClient client() {
        return client(token);
    }

    /** A new client for the operator, as {@link #OPERATOR_USER} (also {@code system:masters}); the caller closes it. */
    KubernetesClient operatorClient() {
        return client(operatorToken);
    }

    private KubernetesClient client(String bearerToken) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl("https://127.0.0.1:" + securePort)
                .withOauthToken(bearerToken)
                .withTrustCerts(true)
                .withDisableHostnameVerification(true)
                .withRequestTimeout(20_000)
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    Path workDir() {
        return workDir;
    }

    @Override
    public void close() {
        stopProcesses();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or ran: nothing to remove
        }
    }

    /** The API server first, then etcd: SIGTERM, then SIGKILL after a grace period. */
    private synchronized void stopProcesses() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            Process process = processes.get(i);
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
    }

    private static KeyPair rsaKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path pem(Path file, String type, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
        return file;
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
