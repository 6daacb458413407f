package dev.schedulerops.operator.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.schedulerops.operator.reconcile.SchedulerLeaseHandOver;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code release-lease}: the scheduler pod's native sidecar (an init container with {@code restartPolicy: Always}).
 * kube-scheduler gives its lease back when it stops, but that last update fails when a renewal is still in flight at
 * the SIGTERM (kubernetes/client-go#1417), and the standby then waits for the lease to run out. The kubelet stops a
 * native sidecar only after the pod's main containers have exited, and a pod being deleted restarts nothing; this
 * process also waits until kube-scheduler's port refuses connections ({@link #onStop}). Then no kube-scheduler of this
 * pod runs or will run, and a lease one of them holds is given back at once
 * ({@link SchedulerLeaseHandOver#releasedByItsPod}). The operator does the same from the kubelet's status report, which
 * comes later; whichever writes first wins (both updates carry the version they read).
 */
@Command(
        name = "release-lease",
        mixinStandardHelpOptions = true,
        description = "Waits for SIGTERM, then gives back the scheduler lease if a process of this pod holds it"
                + " (the scheduler pod's sidecar).")
public final class ReleaseLeaseCommand implements Callable<Integer> {
    static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
    /** Tries on a conflict or an error: the kubelet's grace period for the sidecar is what is left of the pod's. */
    static final int ATTEMPTS = 3;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--namespace", required = true, description = "The lease's namespace")
    String namespace;

    @Option(names = "--lease", required = true, description = "The lease kube-scheduler of this pod may hold")
    String lease;

    @Option(
            names = "--hostname-file",
            defaultValue = "/proc/sys/kernel/hostname",
            description = "Where this pod's hostname (kube-scheduler's identity up to '_') is read")
    Path hostnameFile;

    /** The lease's GET and PUT, as the API server answers them. */
    interface LeaseApi {
        /** The lease, or null when there is none. */
        Lease get() throws IOException, InterruptedException;

        /** The update's HTTP status; a dry run ({@code dryRun=All}) is checked and admitted but not stored. */
        int replace(Lease lease, boolean dryRun) throws IOException, InterruptedException;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        String hostname = Files.readString(hostnameFile, StandardCharsets.UTF_8).trim();
        LeaseApi api = InCluster.api(namespace, lease);
        // First, so that a pod stopped while this process is still warming up is handed over too.
        Thread hook = new Thread(() -> say(out, onStop(api, hostname, schedulerPort, SCHEDULER_STOP)), "release-lease");
        Runtime.getRuntime().addShutdownHook(hook);
        say(out, warmUp(api, hostname));
        // Runs until the kubelet stops it. Where the kubelet does not run native sidecars (before 1.29, or the
        // SidecarContainers feature off), this is an ordinary init container and kube-scheduler never starts: the
        // operator's setting SCHEDULEROPS_RELEASE_LEASE_SIDECAR=false leaves it out (docs/profiles.md). No guess here:
        // a native sidecar that exited because kube-scheduler was slow to start would be restarted, and hold the pod
        // NotReady meanwhile.
        new CountDownLatch(1).await();
        return 0;
    }

    /** How long, after the SIGTERM, kube-scheduler may still listen before the lease is left alone. */
    static final Duration SCHEDULER_STOP = Duration.ofSeconds(30);

    @Option(
            names = "--scheduler-port",
            defaultValue = "10259",
            description = "kube-scheduler's secure port: it listens there while it runs (this pod's network)")
    int schedulerPort;

    /**
     * The path the SIGTERM takes (TLS, HTTP, JSON both ways, the PUT) loaded and compiled now, not then: a dry-run
     * update of the lease as read writes nothing, and shows a missing right now.
     */
    static String warmUp(LeaseApi api, String hostname) {
        try {
            Lease current = api.get();
            String dryRun = current == null ? "" : "; a dry-run update answered HTTP " + api.replace(current, true);
            return "on SIGTERM, gives back the lease if a process of " + hostname + " holds it; held now by "
                    + holder(current) + dryRun;
        } catch (IOException | RuntimeException e) {
            return "cannot read the lease yet (" + e + "); will try again on SIGTERM";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while warming up";
        }
    }

    /**
     * At the SIGTERM: the kubelet sends it once kube-scheduler has exited, except when kube-scheduler outlived a
     * grace period under the kubelet's minimum (2 s; a force delete, a hard eviction), when both are signalled at about
     * the same time. So first wait until kube-scheduler's port refuses connections: a process that listens (frozen
     * or not) still holds it.
     */
    static String onStop(LeaseApi api, String hostname, int schedulerPort, Duration stopTimeout) {
        if (!awaitRefused(schedulerPort, stopTimeout)) {
            return "kube-scheduler still listens on port " + schedulerPort + " " + stopTimeout.toMillis()
                    + " ms after the SIGTERM: leaving the lease alone";
        }
        return giveBack(api, hostname, ATTEMPTS);
    }

    /** Whether 127.0.0.1:{@code port} came to refuse connections within {@code timeout}: nothing listens there. */
    static boolean awaitRefused(int port, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            if (refuses(port)) {
                return true;
            }
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            try {
                Thread.sleep(PORT_POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    static final Duration PORT_POLL = Duration.ofMillis(100);

    /**
     * Only a refusal counts: a connect that does not complete in time (a frozen process whose accept queue is full)
     * is a process that still listens.
     */
    private static boolean refuses(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Reads the lease and, if a process of this pod holds it, gives it back; on a conflict (someone wrote it since)
     * or an error, reads it again, at most {@code attempts} times. Returns what it did, to be logged.
     */
    static String giveBack(LeaseApi api, String hostname, int attempts) {
        Instant start = Instant.now();
        String last = "no attempt";
        for (int attempt = 1; attempt <= attempts; attempt++) {
            try {
                Lease current = api.get();
                Optional<Lease> released = SchedulerLeaseHandOver.releasedByItsPod(current, hostname, now());
                if (released.isEmpty()) {
                    return "lease not held by a process of " + hostname + " (holder: " + holder(current)
                            + "): nothing to give back";
                }
                int status = api.replace(released.get(), false);
                long ms = Duration.between(start, Instant.now()).toMillis();
                if (status / 100 == 2) {
                    return "gave back the lease held by " + holder(current) + " (" + ms + " ms, attempt " + attempt
                            + ")";
                }
                last = "HTTP " + status + " on the update";
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted; the lease is left to the operator or to run out";
            }
        }
        return "could not give back the lease after " + attempts + " attempts (last: " + last
                + "); the operator gives it back once the kubelet reports kube-scheduler stopped";
    }

    private static String holder(Lease lease) {
        if (lease == null || lease.getSpec() == null) {
            return "none (no lease)";
        }
        String holder = lease.getSpec().getHolderIdentity();
        return holder == null || holder.isEmpty() ? "nobody (given back)" : holder;
    }

    private static ZonedDateTime now() {
        return ZonedDateTime.now(ZoneOffset.UTC);
    }

    private static void say(PrintWriter out, String line) {
        out.println("[release-lease " + Instant.now() + "] " + line);
        out.flush();
    }

    /** The API server as a pod reaches it: the kubernetes Service's address, the service account's token and CA. */
    static final class InCluster implements LeaseApi {
        /**
         * A plain mapper with the model's own annotations (a Lease's times are formatted by them): fabric8's
         * KubernetesSerialization indexes every model class first, which cost this idle process a third of its memory.
         */
        static final ObjectMapper JSON = new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

        private final Supplier<HttpClient> clients;
        private final URI uri;
        private final Path tokenFile;

        InCluster(Supplier<HttpClient> clients, URI uri, Path tokenFile) {
            this.clients = clients;
            this.uri = uri;
            this.tokenFile = tokenFile;
        }

        static LeaseApi api(String namespace, String lease) {
            String host = System.getenv("KUBERNETES_SERVICE_HOST");
            String port = System.getenv("KUBERNETES_SERVICE_PORT");
            if (host == null || port == null) {
                throw new IllegalStateException("KUBERNETES_SERVICE_HOST/PORT not set: not in a pod");
            }
            String authority = host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
            return new InCluster(
                    new TrustingTheClusterCa(SERVICE_ACCOUNT.resolve("ca.crt")),
                    leaseUri("https://" + authority, namespace, lease),
                    SERVICE_ACCOUNT.resolve("token"));
        }

        static URI leaseUri(String server, String namespace, String lease) {
            return URI.create(server + "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases/" + lease);
        }

        @Override
        public Lease get() throws IOException, InterruptedException {
            HttpResponse<String> response =
                    clients.get().send(request(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 404) {
                return null;
            }
            if (response.statusCode() != 200) {
                throw new IOException("GET " + uri + ": HTTP " + response.statusCode());
            }
            return JSON.readValue(response.body(), Lease.class);
        }

        @Override
        public int replace(Lease lease, boolean dryRun) throws IOException, InterruptedException {
            return clients.get()
                    .send(
                            request(dryRun ? URI.create(uri + "?dryRun=All") : uri)
                                    .header("Content-Type", "application/json")
                                    .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(lease)))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        }

        /** The token is read each time: the kubelet rotates a projected service account token in place. */
        private HttpRequest.Builder request(URI target) throws IOException {
            return HttpRequest.newBuilder(target)
                    .timeout(REQUEST_TIMEOUT)
                    .header("Accept", "application/json")
                    .header(
                            "Authorization",
                            "Bearer "
                                    + Files.readString(tokenFile, StandardCharsets.UTF_8)
                                            .trim());
        }
    }

    /**
     * A client that trusts the cluster's CA as the kubelet has it now: the CA file is read at each request and the
     * client rebuilt when it changed (a CA rotation during the pod's life); if it cannot be read, the last one serves.
     */
    static final class TrustingTheClusterCa implements Supplier<HttpClient> {
        private final Path caFile;
        private String ca;
        private HttpClient client;

        TrustingTheClusterCa(Path caFile) {
            this.caFile = caFile;
        }

        @Override
        public synchronized HttpClient get() {
            try {
                String now = Files.readString(caFile, StandardCharsets.UTF_8);
                if (client == null || !now.equals(ca)) {
                    client = AwaitExtenderCommand.client(
                            AwaitExtenderCommand.sslContext(now, null, null), REQUEST_TIMEOUT);
                    ca = now;
                }
            } catch (IOException | GeneralSecurityException e) {
                if (client == null) {
                    throw new IllegalStateException("cannot read the cluster's CA " + caFile + ": " + e, e);
                }
            }
            return client;
        }
    }
}
