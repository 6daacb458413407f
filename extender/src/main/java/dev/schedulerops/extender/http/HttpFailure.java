package dev.schedulerops.extender.http;

/** A request the extender refuses, with the HTTP status that says why. */
final class HttpFailure extends Exception {
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
