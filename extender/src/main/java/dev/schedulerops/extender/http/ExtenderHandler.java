package dev.schedulerops.extender.http;

import dev.schedulerops.extender.protocol.BadRequestException;
import dev.schedulerops.extender.protocol.Replies;
import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.ExtenderVerbs.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes requests to the extender verbs (verb port) and the health, readiness and metrics endpoints (health port). Bad input of any kind gets a
 * 4xx answer with a JSON body {@code {"error":"..."}} and one WARN log line; only a bug in the extender yields a 5xx.
 *
 * <p>The body is read into one array sized by {@code Content-Length} (bounded by the configured limit; allocated as the
 * bytes arrive, from at most {@link #FIRST_ALLOCATION}), decoded by streaming over it, and the reply is written as a few buffers that may point straight into the request.
 */
final class ExtenderHandler extends Handler.Abstract {
    private static final Logger LOG = LoggerFactory.getLogger(ExtenderHandler.class);
    private static final String JSON = "application/json";
    /**
     * The most a body array starts with before its bytes arrive; larger bodies grow by doubling up to their declared
     * length (still one exact-size array at the end). Most requests (names-only, a few hundred full nodes) fit.
     */
    static final int FIRST_ALLOCATION = 1024 * 1024;

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
        super(InvocationType.BLOCKING);
        this.verbs = verbs;
        this.metrics = metrics;
        this.ready = ready;
        this.maxBodyBytes = maxBodyBytes;
        this.onHealthPort = onHealthPort;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long started = System.nanoTime();
        String path = request.getHttpURI().getPath();
        Route route = Route.forPath(path == null ? "" : path);
        if (route != null && (route.extenderVerb == null) != onHealthPort.test(request)) {
            route = null;
        }
        int status;
        try {
            status = dispatch(route, path, request, response, callback);
        } catch (HttpFailure failure) {
            status = failure.status;
            LOG.warn("rejected {} {}: {} {}", request.getMethod(), path, status, failure.getMessage());
            if (!failure.bodyRead) {
                // The body was not (fully) read: close the connection rather than leave the client guessing whether
                // Jetty can reuse it, so a pooled client never sends its next request on a connection being closed.
                response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            }
            if (failure.status == HttpStatus.METHOD_NOT_ALLOWED_405 && route != null) {
                response.getHeaders().put(HttpHeader.ALLOW, route.allowedMethods());
            }
            send(response, callback, status, Replies.httpError(failure.getMessage()));
        } catch (RuntimeException bug) {
            status = HttpStatus.INTERNAL_SERVER_ERROR_500;
            LOG.error("failed {} {}", request.getMethod(), path, bug);
            send(response, callback, status, Replies.httpError("internal error: " + bug));
        }
        metrics.request(route, status, System.nanoTime() - started);
        return true;
    }

    private int dispatch(Route route, String path, Request request, Response response, Callback callback)
            throws HttpFailure {
        if (route == null) {
            throw new HttpFailure(HttpStatus.NOT_FOUND_404, "no such path: " + path);
        }
        String method = request.getMethod();
        if (!route.allows(method)) {
            throw new HttpFailure(
                    HttpStatus.METHOD_NOT_ALLOWED_405,
                    "method " + method + " not allowed on " + route.path + ", use " + route.allowedMethods());
        }
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
            default -> verb(route, request, response, callback);
        };
    }

    private int verb(Route route, Request request, Response response, Callback callback) throws HttpFailure {
        checkContentType(request);
        byte[] body = readBody(request);
        Outcome outcome;
        try {
            outcome = verbs.answer(route.extenderVerb, body);
        } catch (BadRequestException e) {
            throw new HttpFailure(HttpStatus.BAD_REQUEST_400, e.getMessage(), true);
        }
        metrics.nodes(route, outcome.nodesIn(), outcome.nodesOut());
        if (outcome.status() != HttpStatus.OK_200) {
            LOG.warn("answered {} {}: {}", route.path, outcome.status(), outcome.reply());
        }
        send(response, callback, outcome.status(), outcome.reply());
        return outcome.status();
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

    private byte[] readBody(Request request) throws HttpFailure {
        long declared = request.getLength();
        if (declared > maxBodyBytes) {
            throw tooLarge();
        }
        try (InputStream in = Content.Source.asInputStream(request)) {
            if (declared >= 0) {
                // Sized by Content-Length, but allocated as the bytes arrive: a client that declares 64 MiB and then
                // sends nothing (or a byte a second) must not make the extender hold 64 MiB per connection. Growing
                // fourfold holds at most four times what arrived, and copies a 12 MB full-node body 5 MB worth
                // instead of doubling's 15 MB.
                int size = (int) declared;
                byte[] body = new byte[Math.min(size, FIRST_ALLOCATION)];
                int read = 0;
                while (read < size) {
                    if (read == body.length) {
                        body = Arrays.copyOf(body, (int) Math.min(4L * body.length, size));
                    }
                    int n = in.read(body, read, body.length - read);
                    if (n < 0) {
                        throw new HttpFailure(
                                HttpStatus.BAD_REQUEST_400, "request body shorter than its Content-Length");
                    }
                    read += n;
                }
                return body;
            }
            byte[] body = new byte[8192];
            int length = 0;
            while (true) {
                if (length == body.length) {
                    if (length > maxBodyBytes) {
                        throw tooLarge();
                    }
                    body = Arrays.copyOf(body, (int) Math.min((long) length * 2, (long) maxBodyBytes + 1));
                }
                int n = in.read(body, length, body.length - length);
                if (n < 0) {
                    break;
                }
                length += n;
            }
            if (length > maxBodyBytes) {
                throw tooLarge();
            }
            return length == body.length ? body : Arrays.copyOf(body, length);
        } catch (IOException e) {
            throw new HttpFailure(HttpStatus.BAD_REQUEST_400, "could not read the request body: " + e.getMessage());
        }
    }

    private HttpFailure tooLarge() {
        return new HttpFailure(
                HttpStatus.PAYLOAD_TOO_LARGE_413,
                "request body exceeds the limit of " + maxBodyBytes + " bytes (--max-body-bytes)");
    }

    private static int text(Response response, Callback callback, int status, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.write(true, BufferUtil.toBuffer(body, StandardCharsets.UTF_8), callback);
        return status;
    }

    /** Writes a reply with a known length: all but the last segment blocking, the last one completing the request. */
    private static void send(Response response, Callback callback, int status, Reply reply) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, reply.length());
        List<ByteBuffer> segments = reply.segments();
        try {
            for (int i = 0; i < segments.size() - 1; i++) {
                try (Blocker.Callback written = Blocker.callback()) {
                    response.write(false, segments.get(i), written);
                    written.block();
                }
            }
        } catch (IOException e) {
            callback.failed(e);
            return;
        }
        response.write(
                true, segments.isEmpty() ? BufferUtil.EMPTY_BUFFER : segments.get(segments.size() - 1), callback);
    }

    /** A request the extender refuses, with the HTTP status that says why. */
    private static final class HttpFailure extends Exception {
        final int status;

        /** Whether the request body was read completely, so the connection can serve the next request. */
        final boolean bodyRead;

        HttpFailure(int status, String message) {
            this(status, message, false);
        }

        HttpFailure(int status, String message, boolean bodyRead) {
            super(message, null, false, false);
            this.status = status;
            this.bodyRead = bodyRead;
        }
    }
}
