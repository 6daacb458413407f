package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * Asks a running extender what its node cache holds, as kube-scheduler would: a names-only {@code /prioritize} of one
 * node, over one kept-alive connection (mutual TLS with the scheduler's client certificate files, or plain HTTP). A
 * node with the label (a positive number as its value) scores 10 alone, a node without it 0. Prioritize never waits
 * for a catch-up, so the answer is the watch's cache as it is.
 */
public final class ExtenderProbe {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SSLSocketFactory sockets;
    private final URI prioritize;

    private ExtenderProbe(SSLSocketFactory sockets, URI prioritize) {
        this.sockets = sockets;
        this.prioritize = prioritize;
    }

    /**
     * @param urlPrefix the extender's URL (https with TLS)
     * @param caFile the CA that signs the extender's certificate; null for plain HTTP
     * @param certFile the client certificate; null for none
     * @param keyFile its key (PKCS#8 PEM)
     */
    public static ExtenderProbe of(String urlPrefix, Path caFile, Path certFile, Path keyFile) {
        return new ExtenderProbe(
                caFile == null ? null : context(caFile, certFile, keyFile).getSocketFactory(),
                URI.create(urlPrefix + "/prioritize"));
    }

    /** The score the extender gives {@code node} alone: 10 while its cache has the label with a positive value. */
    public int score(String node) {
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"probe\",\"namespace\":\"default\"}},\"Nodes\":null,"
                + "\"NodeNames\":[\"" + node + "\"]}";
        try {
            // HttpURLConnection keeps the connection alive for the next probe once the answer has been read whole.
            HttpURLConnection connection =
                    (HttpURLConnection) prioritize.toURL().openConnection();
            if (connection instanceof HttpsURLConnection https) {
                https.setSSLSocketFactory(sockets);
                // The certificate names the extender Service; the probe reaches it on 127.0.0.1.
                https.setHostnameVerifier((host, session) -> true);
            }
            connection.setConnectTimeout(3_000);
            connection.setReadTimeout(5_000);
            connection.setRequestMethod("POST");
            connection.setDoOutput(true);
            connection.setRequestProperty("Content-Type", "application/json");
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body.getBytes(StandardCharsets.UTF_8));
            }
            int status = connection.getResponseCode();
            String answer;
            try (InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
                answer = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (status != 200) {
                throw new IllegalStateException("prioritize answered " + status + ": " + answer);
            }
            JsonNode scores = JSON.readTree(answer);
            return scores.get(0).get("Score").asInt();
        } catch (IOException e) {
            throw new IllegalStateException("the extender did not answer the probe", e);
        }
    }

    private static SSLContext context(Path caFile, Path certFile, Path keyFile) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int i = 0;
            for (var certificate : dev.schedulerops.operator.tls.Pem.parseCertificates(Files.readString(caFile))) {
                trust.setCertificateEntry("ca-" + i++, certificate);
            }
            TrustManagerFactory trustManagers =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyManagerFactory keyManagers = null;
            if (certFile != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry(
                        "client",
                        dev.schedulerops.operator.tls.Pem.parsePrivateKey(Files.readString(keyFile)),
                        new char[0],
                        dev.schedulerops.operator.tls.Pem.parseCertificates(Files.readString(certFile))
                                .toArray(new java.security.cert.X509Certificate[0]));
                keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagers.init(keys, new char[0]);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(
                    keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the scheduler's TLS files " + caFile + ", " + certFile, e);
        }
    }
}
