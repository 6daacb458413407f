package dev.schedulerops.extender.bind;

import dev.schedulerops.extender.protocol.BindingArgs;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a {@code v1.Binding} through the pod's {@code binding} subresource, as kube-scheduler's DefaultBinder does
 * ({@code POST /api/v1/namespaces/NS/pods/NAME/binding}), so the {@code pods/binding create} permission suffices. The
 * pod UID, when given, is sent as a precondition: the API server refuses to bind a different pod of the same name.
 */
public final class KubernetesBinder implements Binder {
    private static final Logger LOG = LoggerFactory.getLogger(KubernetesBinder.class);

    private final KubernetesClient client;
    private final Duration timeout;
    /** The API server's base URL without trailing slashes; the client's master URL does not change. */
    private final String apiBase;

    public KubernetesBinder(KubernetesClient client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
        this.apiBase = client.getMasterUrl().toString().replaceAll("/+$", "");
    }

    @Override
    public String bind(BindingArgs args) {
        Binding binding = new BindingBuilder()
                .withNewMetadata()
                .withName(args.podName())
                .withNamespace(args.podNamespace())
                .withUid(args.podUid().isEmpty() ? null : args.podUid())
                .endMetadata()
                .withNewTarget()
                .withApiVersion("v1")
                .withKind("Node")
                .withName(args.node())
                .endTarget()
                .build();
        String json = client.getKubernetesSerialization().asJson(binding);
        URI uri = URI.create(apiBase + "/api/v1/namespaces/" + encode(args.podNamespace()) + "/pods/"
                + encode(args.podName()) + "/binding");
        HttpRequest request = client.getHttpClient()
                .newHttpRequestBuilder()
                .uri(uri)
                .post("application/json", json)
                .build();
        try {
            HttpResponse<String> response = client.getHttpClient()
                    .sendAsync(request, String.class)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (response.isSuccessful()) {
                LOG.info("bound pod {}/{} to node {}", args.podNamespace(), args.podName(), args.node());
                return "";
            }
            String failure = failure(args, statusMessage(response));
            LOG.warn("{}", failure);
            return failure;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "binding interrupted";
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String failure = failure(args, cause.toString());
            LOG.warn("{}", failure);
            return failure;
        }
    }

    /** The {@code Error} of a failed binding; also what is logged. */
    private static String failure(BindingArgs args, String reason) {
        return "binding pod " + args.podNamespace() + "/" + args.podName() + " to node " + args.node() + " failed: "
                + reason;
    }

    private String statusMessage(HttpResponse<String> response) {
        String body = response.body();
        try {
            Status status = client.getKubernetesSerialization().unmarshal(body, Status.class);
            if (status != null && status.getMessage() != null) {
                return "HTTP " + response.code() + ": " + status.getMessage();
            }
        } catch (RuntimeException notAStatus) {
            // fall through to the raw body
        }
        return "HTTP " + response.code() + (body == null || body.isBlank() ? "" : ": " + body.strip());
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
