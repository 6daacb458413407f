package dev.schedulerops.extender.http;

import dev.schedulerops.extender.protocol.BadRequestException;
import dev.schedulerops.extender.protocol.Replies;
import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.ExtenderVerbs.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes requests to the extender verbs (verb port) and the health, readiness and metrics endpoints (health port). Bad input of any kind gets a
 * 4xx answer with a JSON body {@code {"error":"..."}} and one WARN log line; only a bug in the extender yields a 5xx.
 *
 * <p>No thread ever waits here. The body is read into one array as it arrives ({@link BodyReader}) and the reply is
 * written as a few buffers, each write started when the previous one is done ({@link ReplyWriter}). A verb is
 * answered on the thread that read the body, the one that also watches the connections, which saves handing each
 * request to another thread (two thread wake-ups and context switches, more than a names-only answer costs): but
 * only when the answer is quick, a body under {@link #INLINE_BODY_BYTES}. A larger body (a full-node request of
 * thousands of nodes takes tens of milliseconds) and Bind (a call to the API server, which blocks) go to the thread
 * pool, so that they never hold up other connections.
 */
final class ExtenderHandler extends Handler.Abstract {
    private static final Logger LOG = LoggerFactory.getLogger(ExtenderHandler.class);
    private static final String JSON = "application/json";
    /**
     * Bodies up to this size are answered on the thread that read them (a names-only request of 5000 nodes is 66 KB
     * and takes about 0.1 ms); larger ones on a pool thread.
     */
    static final int INLINE_BODY_BYTES = 256 * 1024;

    private final ExtenderVerbs verbs;
    private final ExtenderMetrics metrics;
    private final BooleanSupplier ready;
    private final int maxBodyBytes;
    private final Predicate<Request> onHealthPort;

    /**
     * @param onHealthPort whether a request came in on the health port, which serves only /healthz, /readyz and
     *     /metrics; every other port serves only the verbs. A path served on the other port is answered 404.
     */
    ExtenderHandler(
            ExtenderVerbs verbs,
            ExtenderMetrics metrics,
            BooleanSupplier ready,
            int maxBodyBytes,
            Predicate<Request> onHealthPort) {
        super(InvocationType.NON_BLOCKING);
        this.verbs = verbs;
        this.metrics = metrics;
        this.ready = ready;
        this.maxBodyBytes = maxBodyBytes;
        this.onHealthPort = onHealthPort;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        Exchange exchange = new Exchange(request, response, callback);
        Route route = Route.forPath(exchange.path);
        if (route != null && (route.extenderVerb == null) != onHealthPort.test(request)) {
            route = null;
        }
        try {
            if (route == null) {
                throw new HttpFailure(HttpStatus.NOT_FOUND_404, "no such path: " + exchange.path);
            }
            if (!route.allows(request.getMethod())) {
                throw new HttpFailure(
                        HttpStatus.METHOD_NOT_ALLOWED_405,
                        "method " + request.getMethod() + " not allowed on " + route.path + ", use "
                                + route.allowedMethods());
            }
            if (route.extenderVerb == null) {
                exchange.done(route, health(route, response, callback));
                return true;
            }
            checkContentType(request);
        } catch (HttpFailure failure) {
            exchange.refuse(route, failure);
            return true;
        }
        Route verb = route;
        BodyReader.read(
                request,
                maxBodyBytes,
                body -> {
                    if (verb == Route.BIND || body.length > INLINE_BODY_BYTES) {
                        try {
                            request.getComponents().getThreadPool().execute(() -> answer(exchange, verb, body));
                        } catch (RejectedExecutionException full) {
                            exchange.refuse(
                                    verb,
                                    new HttpFailure(
                                            HttpStatus.SERVICE_UNAVAILABLE_503,
                                            "the extender is overloaded, retry",
                                            true));
                        }
                    } else {
                        answer(exchange, verb, body);
                    }
                },
                failure -> exchange.refuse(verb, failure));
        return true;
    }

    private int health(Route route, Response response, Callback callback) {
        return switch (route) {
            case HEALTHZ -> text(response, callback, HttpStatus.OK_200, "ok\n");
            case READYZ -> ready.getAsBoolean()
                    ? text(response, callback, HttpStatus.OK_200, "ok\n")
                    : text(response, callback, HttpStatus.SERVICE_UNAVAILABLE_503, "not ready\n");
            case METRICS -> {
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
                response.setStatus(HttpStatus.OK_200);
                response.write(true, BufferUtil.toBuffer(metrics.scrape(), StandardCharsets.UTF_8), callback);
                yield HttpStatus.OK_200;
            }
            default -> throw new IllegalStateException("not a health route: " + route);
        };
    }

    private void answer(Exchange exchange, Route route, byte[] body) {
        Outcome outcome;
        try {
            outcome = verbs.answer(route.extenderVerb, body);
        } catch (BadRequestException e) {
            exchange.refuse(route, new HttpFailure(HttpStatus.BAD_REQUEST_400, e.getMessage(), true));
            return;
        } catch (RuntimeException bug) {
            LOG.error("failed {} {}", exchange.request.getMethod(), exchange.path, bug);
            exchange.send(HttpStatus.INTERNAL_SERVER_ERROR_500, Replies.httpError("internal error: " + bug));
            exchange.done(route, HttpStatus.INTERNAL_SERVER_ERROR_500);
            return;
        }
        metrics.nodes(route, outcome.nodesIn(), outcome.nodesOut());
        if (outcome.status() != HttpStatus.OK_200) {
            LOG.warn("answered {} {}: {}", route.path, outcome.status(), outcome.reply());
        }
        exchange.send(outcome.status(), outcome.reply());
        exchange.done(route, outcome.status());
    }

    private static void checkContentType(Request request) throws HttpFailure {
        String contentType = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        if (contentType == null) {
            return;
        }
        int semicolon = contentType.indexOf(';');
        String mediaType = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
        if (!mediaType.equalsIgnoreCase(JSON)
                && !mediaType.toLowerCase(java.util.Locale.ROOT).endsWith("+json")) {
            throw new HttpFailure(
                    HttpStatus.UNSUPPORTED_MEDIA_TYPE_415,
                    "content type " + mediaType + " is not supported, send " + JSON);
        }
    }

    private static int text(Response response, Callback callback, int status, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.write(true, BufferUtil.toBuffer(body, StandardCharsets.UTF_8), callback);
        return status;
    }

    /** One request on its way through: what is needed to answer it, and when it started. */
    private final class Exchange {
        final Request request;
        final Response response;
        final Callback callback;
        final String path;
        final long started = System.nanoTime();

        Exchange(Request request, Response response, Callback callback) {
            this.request = request;
            this.response = response;
            this.callback = callback;
            String requested = request.getHttpURI().getPath();
            this.path = requested == null ? "" : requested;
        }

        /** Answers a refused request with its status and a JSON error, and one WARN log line. */
        void refuse(Route route, HttpFailure failure) {
            LOG.warn("rejected {} {}: {} {}", request.getMethod(), path, failure.status, failure.getMessage());
            if (!failure.bodyRead) {
                // The body was not (fully) read: close the connection rather than leave the client guessing whether
                // Jetty can reuse it, so a pooled client never sends its next request on a connection being closed.
                response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            }
            if (failure.status == HttpStatus.METHOD_NOT_ALLOWED_405 && route != null) {
                response.getHeaders().put(HttpHeader.ALLOW, route.allowedMethods());
            }
            send(failure.status, Replies.httpError(failure.getMessage()));
            done(route, failure.status);
        }

        /** Writes a reply with a known length. */
        void send(int status, Reply reply) {
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, reply.length());
            ReplyWriter.write(response, reply.segments(), callback);
        }

        void done(Route route, int status) {
            metrics.request(route, status, System.nanoTime() - started);
        }
    }
}
