package dev.schedulerops.operator.preview;

/** A sandbox could not do its work; the message says what and is shown to the user as the preview's failure. */
public final class SandboxException extends RuntimeException {
    public SandboxException(String message) {
        super(message);
    }

    public SandboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
