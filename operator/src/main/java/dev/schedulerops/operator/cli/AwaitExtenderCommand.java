package dev.schedulerops.operator.cli;

import dev.schedulerops.operator.tls.Pem;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code await-extender}: the scheduler pod's init container. kube-scheduler may lead (and call its extender) within
 * milliseconds of starting, when its predecessor gives the lease back; a NetworkPolicy enforcer admits a new pod's
 * address some time after the pod gets it, and until then the extender's port refuses or drops that pod's calls, each
 * a failed scheduling attempt. This waits until the extender's port answers this pod over HTTP (any status: the path
 * is open), and gives up after {@code --timeout-seconds}, letting kube-scheduler start as it would have without it.
 */
@Command(
        name = "await-extender",
        mixinStandardHelpOptions = true,
        description = "Waits until the extender's port answers from this pod (the scheduler pod's init container);"
                + " always exits 0.")
public final class AwaitExtenderCommand implements Callable<Integer> {
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(1);
    static final Duration PAUSE = Duration.ofMillis(200);
    /** Answers on new connections in a row before kube-scheduler may start (see {@link #await}). */
    static final int ANSWERS_IN_A_ROW = 3;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--url",
            required = true,
            description = "What to GET, e.g. https://<service>.<namespace>.svc:8443/readyz")
    URI url;

    @Option(names = "--ca-file", description = "CA bundle the extender's serving certificate is checked against")
    Path caFile;

    @Option(names = "--cert-file", description = "Client certificate (mutual TLS)")
    Path certFile;

    @Option(names = "--key-file", description = "Client key (mutual TLS)")
    Path keyFile;

    @Option(names = "--timeout-seconds", defaultValue = "30", description = "Give up after this long (default 30)")
    int timeoutSeconds;

    /** What the wait came to: whether the port answered, after how many attempts and how long, and the last error. */
    record Outcome(boolean answered, int attempts, Duration waited, String detail) {}

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            SSLContext tls = caFile == null ? null : sslContext(read(caFile), read(certFile), read(keyFile));
            Outcome outcome =
                    await(() -> client(tls), url, Duration.ofSeconds(timeoutSeconds), PAUSE, ANSWERS_IN_A_ROW);
            out.println(
                    outcome.answered()
                            ? "extender answered " + url + " (" + outcome.detail() + ") " + ANSWERS_IN_A_ROW
                                    + " times in a row after " + outcome.attempts() + " attempt(s), "
                                    + outcome.waited().toMillis() + " ms"
                            : "extender did not answer " + url + " " + ANSWERS_IN_A_ROW + " times in a row within "
                                    + timeoutSeconds + " s (" + outcome.attempts() + " attempts, last: "
                                    + outcome.detail() + "); starting kube-scheduler anyway");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println("interrupted while waiting for the extender; starting kube-scheduler anyway");
        } catch (Exception e) {
            // Never keep kube-scheduler from starting: it reads the same files and says what is wrong with them.
            out.println("cannot wait for the extender (" + e + "); starting kube-scheduler anyway");
        }
        out.flush();
        return 0;
    }

    /**
     * Asks {@code url} until {@code answersInARow} attempts in a row get an HTTP answer (any status), each on a new
     * client and so a new connection, which kube-proxy sends to any of the extender's pods: one answer shows only that
     * one pod's node admits this pod. Gives up when {@code timeout} has passed.
     */
    static Outcome await(Supplier<HttpClient> clients, URI url, Duration timeout, Duration pause, int answersInARow)
            throws InterruptedException {
        Instant start = Instant.now();
        Instant deadline = start.plus(timeout);
        HttpRequest request =
                HttpRequest.newBuilder(url).timeout(ATTEMPT_TIMEOUT).GET().build();
        int attempts = 0;
        int inARow = 0;
        String last = "no attempt";
        while (true) {
            attempts++;
            try {
                HttpResponse<Void> response = clients.get().send(request, HttpResponse.BodyHandlers.discarding());
                last = "HTTP " + response.statusCode();
                if (++inARow >= answersInARow) {
                    return new Outcome(true, attempts, Duration.between(start, Instant.now()), last);
                }
                continue;
            } catch (IOException e) {
                inARow = 0;
                last = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            }
            if (!Instant.now().plus(pause).isBefore(deadline)) {
                return new Outcome(false, attempts, Duration.between(start, Instant.now()), last);
            }
            Thread.sleep(pause.toMillis());
        }
    }

    /** Plain HTTP without TLS settings; TLS with them. */
    static HttpClient client(SSLContext tls) {
        return client(tls, ATTEMPT_TIMEOUT);
    }

    /** The sidecars' HTTP/1.1 client (release-lease's too): plain without TLS settings, TLS with them. */
    static HttpClient client(SSLContext tls, Duration connectTimeout) {
        HttpClient.Builder builder =
                HttpClient.newBuilder().connectTimeout(connectTimeout).version(HttpClient.Version.HTTP_1_1);
        if (tls != null) {
            builder.sslContext(tls);
        }
        return builder.build();
    }

    static SSLContext sslContext(String caPem, String certPem, String keyPem) throws GeneralSecurityException {
        KeyStore trust = emptyKeyStore();
        List<X509Certificate> cas = Pem.parseCertificates(caPem);
        for (int i = 0; i < cas.size(); i++) {
            trust.setCertificateEntry("ca-" + i, cas.get(i));
        }
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        KeyManagerFactory keyManagers = null;
        if (certPem != null && keyPem != null) {
            KeyStore keys = emptyKeyStore();
            char[] password = new char[0];
            keys.setKeyEntry(
                    "client",
                    Pem.parsePrivateKey(keyPem),
                    password,
                    Pem.parseCertificates(certPem).toArray(new X509Certificate[0]));
            keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, password);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        return context;
    }

    private static KeyStore emptyKeyStore() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
        return store;
    }

    private static String read(Path file) throws IOException {
        return file == null ? null : Files.readString(file, StandardCharsets.UTF_8);
    }
}
