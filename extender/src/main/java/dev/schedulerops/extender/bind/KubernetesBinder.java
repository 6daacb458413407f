package dev.schedulerops.extender.bind;

import dev.schedulerops.extender.protocol.BindingArgs;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds a pod only when it is this extender's to bind: it reads the pod ({@code GET
 * /api/v1/namespaces/NS/pods/NAME}) and requires the UID the request names and {@code spec.schedulerName} equal to
 * the scheduler name this extender serves. Then it creates a {@code v1.Binding} through the pod's {@code binding}
 * subresource, as kube-scheduler's DefaultBinder does, with the UID in the Binding's metadata: the API server refuses
 * it if the pod was replaced by another of the same name in between.
 *
 * <p>The pod is read for each bind rather than kept by an informer: a bind happens once per pod, the read is always
 * current (kube-scheduler may bind a pod an informer has not seen yet), and an informer on every pod of the cluster
 * would cost memory in proportion to the cluster. The price is {@code get} on {@code pods} in every namespace for the
 * extender's ServiceAccount, besides {@code create} on {@code pods/binding}.
 */
public final class KubernetesBinder implements Binder {
    private static final Logger LOG = LoggerFactory.getLogger(KubernetesBinder.class);
    private static final String WARM_UP_POD =
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"warm-up\"},"
                    + "\"spec\":{\"schedulerName\":\"warm-up\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}";

    private final KubernetesClient client;
    private final Duration timeout;
    private final String schedulerName;
    /** The API server's base URL without trailing slashes; the client's master URL does not change. */
    private final String apiBase;

    /**
     * @param timeout for reading the pod and creating the Binding together
     * @param schedulerName the only {@code spec.schedulerName} whose pods are bound; null binds no pod at all
     */
    public KubernetesBinder(KubernetesClient client, Duration timeout, String schedulerName) {
        this.client = client;
        this.timeout = timeout;
        this.schedulerName = schedulerName;
        this.apiBase = client.getMasterUrl().toString().replaceAll("/+$", "");
    }

    /**
     * Pays, once at start, what a fresh extender's first bind would pay: the JSON mapping of Pod and Binding, and the
     * connection and TLS handshake to the API server ({@code GET /version}, which every client may read). With the
     * machine loaded, a first bind spent more than the whole {@code timeout} reading the pod (ExtenderOnClusterTest,
     * beside the real-node tier). Best effort: a failure is logged, and the binds that follow try on their own.
     */
    public CompletableFuture<Void> warmUp() {
        if (schedulerName == null) {
            return CompletableFuture.completedFuture(null); // it binds nothing, so nothing waits for a first bind
        }
        long started = System.nanoTime();
        return CompletableFuture.runAsync(() -> {
                    client.getKubernetesSerialization().unmarshal(WARM_UP_POD, Pod.class);
                    client.getKubernetesSerialization().asJson(new BindingBuilder().build());
                })
                .thenCompose(mapped -> client.getHttpClient()
                        .sendAsync(
                                client.getHttpClient()
                                        .newHttpRequestBuilder()
                                        .uri(URI.create(apiBase + "/version"))
                                        .build(),
                                String.class))
                .orTimeout(timeout.toMillis() * 10, TimeUnit.MILLISECONDS)
                .handle((response, error) -> {
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    if (error != null) {
                        LOG.warn("warming up for binds failed (the binds will try on their own): {}", error.toString());
                    } else {
                        LOG.info("warmed up for binds in {} ms: GET /version answered {}", millis, response.code());
                    }
                    return null;
                });
    }

    @Override
    public BindResult bind(BindingArgs args) {
        if (schedulerName == null) {
            return refused(args, "no scheduler name is configured (--scheduler-name, SCHEDULEROPS_SCHEDULER_NAME)");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpResponse<String> read;
        try {
            read = send(client.getHttpClient().newHttpRequestBuilder().uri(podUri(args)), deadline);
        } catch (ExecutionException | TimeoutException e) {
            return unreadable(args, cause(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unreadable(args, "interrupted");
        }
        if (read.code() == 404) {
            return refused(args, "there is no such pod");
        }
        if (!read.isSuccessful()) {
            String hint = read.code() == 403 ? " (the extender's ServiceAccount needs get on pods)" : "";
            return unreadable(args, statusMessage(read) + hint);
        }
        Pod pod;
        try {
            pod = client.getKubernetesSerialization().unmarshal(read.body(), Pod.class);
        } catch (RuntimeException e) {
            return unreadable(args, "the API server's answer is not a pod: " + e.getMessage());
        }
        String uid = pod.getMetadata() == null ? null : pod.getMetadata().getUid();
        if (!args.podUid().equals(uid)) {
            return refused(args, "the pod's UID is " + uid + ", the request names " + args.podUid());
        }
        String podScheduler = pod.getSpec() == null ? null : pod.getSpec().getSchedulerName();
        if (!schedulerName.equals(podScheduler)) {
            return refused(
                    args,
                    "the pod's spec.schedulerName is " + podScheduler + ", this extender binds for " + schedulerName);
        }
        return createBinding(args, deadline);
    }

    private BindResult createBinding(BindingArgs args, long deadline) {
        Binding binding = new BindingBuilder()
                .withNewMetadata()
                .withName(args.podName())
                .withNamespace(args.podNamespace())
                .withUid(args.podUid())
                .endMetadata()
                .withNewTarget()
                .withApiVersion("v1")
                .withKind("Node")
                .withName(args.node())
                .endTarget()
                .build();
        String json = client.getKubernetesSerialization().asJson(binding);
        try {
            HttpResponse<String> response = send(
                    client.getHttpClient()
                            .newHttpRequestBuilder()
                            .uri(URI.create(podUri(args) + "/binding"))
                            .post("application/json", json),
                    deadline);
            if (response.isSuccessful()) {
                LOG.info("bound pod {}/{} to node {}", args.podNamespace(), args.podName(), args.node());
                return BindResult.bound();
            }
            return bindingFailed(args, statusMessage(response));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return bindingFailed(args, "interrupted");
        } catch (ExecutionException | TimeoutException e) {
            return bindingFailed(args, cause(e));
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            throw new TimeoutException("no time left of the " + timeout.toMillis() + " ms for a bind");
        }
        return client.getHttpClient().sendAsync(request.build(), String.class).get(remaining, TimeUnit.NANOSECONDS);
    }

    private String podUri(BindingArgs args) {
        return apiBase + "/api/v1/namespaces/" + encode(args.podNamespace()) + "/pods/" + encode(args.podName());
    }

    private static BindResult refused(BindingArgs args, String why) {
        LOG.warn(
                "refused to bind pod {}/{} (UID {}) to node {}: {}",
                args.podNamespace(),
                args.podName(),
                args.podUid(),
                args.node(),
                why);
        return new BindResult.Refused(why);
    }

    private static BindResult unreadable(BindingArgs args, String why) {
        LOG.warn(
                "cannot bind pod {}/{} to node {}: reading the pod failed: {}",
                args.podNamespace(),
                args.podName(),
                args.node(),
                why);
        return new BindResult.PodUnreadable(why);
    }

    private static BindResult bindingFailed(BindingArgs args, String reason) {
        String failure = "binding pod " + args.podNamespace() + "/" + args.podName() + " to node " + args.node()
                + " failed: " + reason;
        LOG.warn("{}", failure);
        return new BindResult.BindingFailed(failure);
    }

    private static String cause(Exception e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return cause.toString();
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
