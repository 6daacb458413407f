package dev.schedulerops.operator.preview;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Writes what the sandbox's components read at start: a fresh bearer token (the only identity the sandbox API server
 * knows, a member of system:masters), a service-account key pair (kube-apiserver requires one), the kubeconfig every
 * client of the sandbox uses, and each run's kube-scheduler configuration. All of it is made here and dies with the
 * sandbox: nothing is read from the live cluster or written to it.
 */
public final class SandboxFiles {
    static final String USER = "schedulerops-sandbox";

    private SandboxFiles() {}

    public static void write(SandboxLayout layout, SandboxPlan plan) throws IOException {
        writeControlPlane(layout);
        for (SandboxPlan.Run run : plan.runs()) {
            Files.writeString(
                    layout.schedulerConfig(run.name()),
                    SandboxSchedulerConfig.adapt(
                            run.schedulerConfig(),
                            run.sandboxSchedulerName(),
                            layout.kubeconfig().toString(),
                            run.extender() == null ? null : layout.extenderUrl(plan.extenderServing(run))));
        }
    }

    /** The files of etcd and kube-apiserver alone (a bare API server: the cost benchmark's "live" cluster). */
    public static void writeControlPlane(SandboxLayout layout) throws IOException {
        Files.createDirectories(layout.dir());
        // A sandbox starts empty: etcd's data of an earlier run in the same directory (--work-dir, kept with
        // --keep-work-dir) would come back with its objects.
        LocalSandbox.deleteRecursively(layout.etcdData());
        Files.createDirectories(layout.etcdData());
        Files.createDirectories(layout.certificates());
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Files.writeString(layout.token(), token, StandardCharsets.UTF_8);
        Files.writeString(layout.tokens(), token + "," + USER + "," + USER + ",system:masters\n");
        KeyPair keys = rsaKeyPair();
        pem(layout.serviceAccountKey(), "PRIVATE KEY", keys.getPrivate().getEncoded());
        pem(layout.serviceAccountPublicKey(), "PUBLIC KEY", keys.getPublic().getEncoded());
        Files.writeString(layout.kubeconfig(), kubeconfig(layout.apiServerUrl(), token));
    }

    /**
     * The sandbox API server serves the self-signed certificate it makes at start, on loopback only, so its clients
     * skip verification: the token is what keeps others out.
     */
    static String kubeconfig(String server, String token) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: sandbox
                  cluster:
                    server: %s
                    insecure-skip-tls-verify: true
                users:
                - name: sandbox
                  user:
                    token: %s
                contexts:
                - name: sandbox
                  context:
                    cluster: sandbox
                    user: sandbox
                current-context: sandbox
                """
                .formatted(server, token);
    }

    public static String token(SandboxLayout layout) throws IOException {
        return Files.readString(layout.token(), StandardCharsets.UTF_8).trim();
    }

    private static KeyPair rsaKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("RSA is always available", e);
        }
    }

    private static void pem(Path file, String type, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
    }
}
