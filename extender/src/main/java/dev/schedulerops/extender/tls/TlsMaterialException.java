package dev.schedulerops.extender.tls;

/** TLS material that cannot be used; the message names the file and what is wrong with it. */
public final class TlsMaterialException extends Exception {
    TlsMaterialException(String message) {
        super(message);
    }

    TlsMaterialException(String message, Throwable cause) {
        super(message, cause);
    }
}
