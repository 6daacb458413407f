package dev.schedulerops.extender.http;

import dev.schedulerops.extender.http.BodyReader.Body;
import dev.schedulerops.extender.protocol.BadRequestException;
import dev.schedulerops.extender.protocol.Replies;
import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.ExtenderVerbs.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
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
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    /**
     * Bodies up to this size are answered on the thread that read them (a names-only request of 5000 nodes is 66 KB
     * and takes about 0.1 ms); larger ones on a pool thread.
     */
    static final int INLINE_BODY_BYTES = 256 * 1024;

    private final ExtenderVerbs verbs;
    private final ExtenderMetrics metrics;
    private final BooleanSupplier ready;
    private final BooleanSupplier stopping;
    private final int maxBodyBytes;
    private final BodyBudget budget;
    private final LargeBodies large;
    /** kube-scheduler has one or two calls in flight at a time. */
    private final ReplyChunks chunks = new ReplyChunks(4);

    private final ReadDeadlines deadlines;
    private final Predicate<Request> onHealthPort;

    /**
     * @param stopping whether the server is stopping: each verb answer then closes its connection, so that the
     *     client's next request opens a new one through the Service, to a pod that is not stopping
     * @param budget what all request bodies may hold together
     * @param large where the arrays of large bodies go once answered, for the next large body
     * @param deadlines told when each request's headers and body have been read and when it was answered
     * @param onHealthPort whether a request came in on the health port, which serves only /healthz, /readyz and
     *     /metrics; every other port serves only the verbs the extender was configured to answer. A path served on
     *     the other port, or a verb not configured, is answered 404 as an unknown path is.
     */
    ExtenderHandler(
            ExtenderVerbs verbs,
            ExtenderMetrics metrics,
            BooleanSupplier ready,
            BooleanSupplier stopping,
            int maxBodyBytes,
            BodyBudget budget,
            LargeBodies large,
            ReadDeadlines deadlines,
            Predicate<Request> onHealthPort) {
        super(InvocationType.NON_BLOCKING);
        this.verbs = verbs;
        this.metrics = metrics;
        this.ready = ready;
        this.stopping = stopping;
        this.maxBodyBytes = maxBodyBytes;
        this.budget = budget;
        this.large = large;
        this.deadlines = deadlines;
        this.onHealthPort = onHealthPort;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        deadlines.headersRead(request);
        Exchange exchange = new Exchange(request, response, callback);
        Route route = Route.forPath(exchange.path);
        // /readyz is also on the verb port, behind its TLS: a new scheduler pod's init container asks it there, the way
        // kube-scheduler will call (operator: await-extender).
        if (route != null && route != Route.READYZ && (route.extenderVerb == null) != onHealthPort.test(request)) {
            route = null;
        }
        if (route != null && route.extenderVerb != null && !verbs.serves(route.extenderVerb)) {
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
                deadlines.bodyRead(request);
                health(exchange, route);
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
                budget,
                large,
                body -> exchange.safely(verb, () -> {
                    exchange.holdBody(body);
                    deadlines.bodyRead(request);
                    if (verb == Route.BIND || body.length() > INLINE_BODY_BYTES) {
                        dispatch(exchange, verb, body);
                    } else {
                        answer(exchange, verb, body);
                    }
                }),
                failure -> exchange.safely(verb, () -> exchange.refuse(verb, failure)));
        return true;
    }

    private void dispatch(Exchange exchange, Route route, Body body) {
        dispatch(exchange, route, () -> answer(exchange, route, body));
    }

    private void dispatch(Exchange exchange, Route route, Runnable step) {
        try {
            exchange.request.getComponents().getThreadPool().execute(() -> exchange.safely(route, step));
        } catch (RejectedExecutionException stopping) {
            exchange.refuse(
                    route, new HttpFailure(HttpStatus.SERVICE_UNAVAILABLE_503, "the extender is stopping", true));
        }
    }

    private void health(Exchange exchange, Route route) {
        switch (route) {
            case HEALTHZ -> exchange.text(route, HttpStatus.OK_200, TEXT, "ok\n");
            case READYZ -> {
                if (ready.getAsBoolean()) {
                    exchange.text(route, HttpStatus.OK_200, TEXT, "ok\n");
                } else {
                    exchange.text(route, HttpStatus.SERVICE_UNAVAILABLE_503, TEXT, "not ready\n");
                }
            }
            case METRICS -> exchange.text(route, HttpStatus.OK_200, PROMETHEUS_TEXT, metrics.scrape());
            default -> throw new IllegalStateException("not a health route: " + route);
        }
    }

    private void answer(Exchange exchange, Route route, Body body) {
        Outcome outcome;
        try {
            outcome = verbs.answer(route.extenderVerb, body.array(), body.length());
        } catch (BadRequestException e) {
            exchange.refuse(route, new HttpFailure(HttpStatus.BAD_REQUEST_400, e.getMessage(), true));
            return;
        }
        if (outcome.catchUpFirst()) {
            // No thread waits for the read: the answer is made on a pool thread once the cache has caught up.
            verbs.catchUp(exchange.started)
                    .whenComplete((caughtUp, never) ->
                            dispatch(exchange, route, () -> answerCaughtUp(exchange, route, body, caughtUp)));
            return;
        }
        send(exchange, route, outcome);
    }

    private void answerCaughtUp(Exchange exchange, Route route, Body body, Boolean caughtUp) {
        Outcome outcome;
        try {
            outcome = verbs.answerCaughtUp(route.extenderVerb, body.array(), body.length());
        } catch (BadRequestException e) {
            exchange.refuse(route, new HttpFailure(HttpStatus.BAD_REQUEST_400, e.getMessage(), true));
            return;
        }
        metrics.catchUp(!Boolean.TRUE.equals(caughtUp) ? "unavailable" : outcome.nodesOut() > 0 ? "kept" : "rejected");
        send(exchange, route, outcome);
    }

    private void send(Exchange exchange, Route route, Outcome outcome) {
        metrics.nodes(route, outcome.nodesIn(), outcome.nodesOut());
        if (outcome.status() != HttpStatus.OK_200) {
            LOG.warn("answered {} {}: {}", route.path, outcome.status(), outcome.reply());
        }
        exchange.send(route, outcome.status(), outcome.reply());
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

    /**
     * One request on its way through: what is needed to answer it, and when it started. It completes the request's
     * callback exactly once, and counts the request in the metrics when its answer has been written.
     */
    private final class Exchange {
        final Request request;
        final Response response;
        /** The request's callback, which first ends the request: see {@link #ended}. */
        final Callback callback;

        final String path;
        final long started = System.nanoTime();
        private final AtomicBoolean ended = new AtomicBoolean();
        /** The body, reserved in the budget until the request has ended. */
        private volatile Body body;

        Exchange(Request request, Response response, Callback callback) {
            this.request = request;
            this.response = response;
            this.callback = new Callback.Nested(callback) {
                @Override
                public void succeeded() {
                    ended(true);
                    super.succeeded();
                }

                @Override
                public void failed(Throwable cause) {
                    ended(false);
                    super.failed(cause);
                }
            };
            String requested = request.getHttpURI().getPath();
            this.path = requested == null ? "" : requested;
        }

        void holdBody(Body body) {
            this.body = body;
        }

        /**
         * Once, when the answer has been written or failed: the body's reservation goes back to the budget (the
         * reply may have been written straight from the body's array, so not before), a large body's array goes back
         * for the next large body if the answer was written (after a failure the connection may still hold a reply
         * that points into it), and what arrives next on the connection belongs to a new request.
         */
        private void ended(boolean written) {
            if (ended.compareAndSet(false, true)) {
                Body held = body;
                body = null;
                if (held != null) {
                    budget.release(held.array().length);
                    if (written) {
                        large.giveBack(held.array());
                    }
                }
                deadlines.answered(request);
            }
        }

        /**
         * Runs {@code step} off the thread that called {@link #handle} (where Jetty would catch what it throws): a
         * bug, or an Error such as an exhausted heap, still gets an answer (500) or at least ends the request, rather
         * than leaving the client waiting on a connection no timeout closes.
         */
        void safely(Route route, Runnable step) {
            try {
                step.run();
            } catch (Throwable bug) {
                LOG.error("failed {} {}", request.getMethod(), path, bug);
                if (response.isCommitted()) {
                    callback.failed(bug);
                } else {
                    send(route, HttpStatus.INTERNAL_SERVER_ERROR_500, Replies.httpError("internal error: " + bug));
                }
            }
        }

        /** Answers a refused request with its status and a JSON error, and one WARN log line. */
        void refuse(Route route, HttpFailure failure) {
            LOG.warn("rejected {} {}: {} {}", request.getMethod(), path, failure.status, failure.getMessage());
            if (failure.retryLater) {
                response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
            }
            if (!failure.bodyRead) {
                // The body was not (fully) read: close the connection rather than leave the client guessing whether
                // Jetty can reuse it, so a pooled client never sends its next request on a connection being closed.
                response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            }
            if (failure.status == HttpStatus.METHOD_NOT_ALLOWED_405 && route != null) {
                response.getHeaders().put(HttpHeader.ALLOW, route.allowedMethods());
            }
            send(route, failure.status, Replies.httpError(failure.getMessage()));
        }

        /** Writes a JSON reply with a known length. */
        void send(Route route, int status, Reply reply) {
            response.setStatus(status);
            if (stopping.getAsBoolean()) {
                response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            }
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, reply.length());
            ReplyWriter.write(response, reply, chunks, counted(route, status));
        }

        void text(Route route, int status, String contentType, String body) {
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
            response.write(true, BufferUtil.toBuffer(body, StandardCharsets.UTF_8), counted(route, status));
        }

        /** The request's callback, which first counts the request, with the time until its answer was written. */
        Callback counted(Route route, int status) {
            return Callback.from(() -> metrics.request(route, status, System.nanoTime() - started), callback);
        }
    }
}
