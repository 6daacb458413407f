package dev.schedulerops.extender.http;

import org.eclipse.jetty.http.HttpStatus;

/** A request the extender refuses, with the HTTP status that says why. */
final class HttpFailure extends Exception {
    final int status;

    /** Whether the request body was read completely, so the connection can serve the next request. */
    final boolean bodyRead;

    /** Whether the refusal is temporary: the answer then says when to retry ({@code Retry-After}). */
    final boolean retryLater;

    HttpFailure(int status, String message) {
        this(status, message, false);
    }

    HttpFailure(int status, String message, boolean bodyRead) {
        this(status, message, bodyRead, false);
    }

    private HttpFailure(int status, String message, boolean bodyRead, boolean retryLater) {
        super(message, null, false, false);
        this.status = status;
        this.bodyRead = bodyRead;
        this.retryLater = retryLater;
    }

    /** 503 with {@code Retry-After}: the request is fine, the extender cannot take it now. */
    static HttpFailure busy(String message) {
        return new HttpFailure(HttpStatus.SERVICE_UNAVAILABLE_503, message, false, true);
    }
}
