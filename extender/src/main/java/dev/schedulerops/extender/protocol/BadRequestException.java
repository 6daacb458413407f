package dev.schedulerops.extender.protocol;

/** The request body is not a valid extender request: malformed JSON, a wrong type or a missing field. */
public final class BadRequestException extends Exception {
    public BadRequestException(String message) {
        super(message, null, false, false);
    }
}
