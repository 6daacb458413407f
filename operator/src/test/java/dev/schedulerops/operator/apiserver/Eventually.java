package dev.schedulerops.operator.apiserver;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/** Waits for what the operator does asynchronously; seconds normally, generous for a loaded 2-core machine. */
final class Eventually {
    static final Duration TIMEOUT = Duration.ofSeconds(45);

    private Eventually() {}

    /** Polls until {@code check} returns true; fails naming {@code what} and the last value of {@code state}. */
    static void until(String what, Supplier<Boolean> check, Supplier<?> state) {
        Instant deadline = Instant.now().plus(TIMEOUT);
        RuntimeException last = null;
        while (Instant.now().isBefore(deadline)) {
            try {
                if (Boolean.TRUE.equals(check.get())) {
                    return;
                }
                last = null;
            } catch (RuntimeException e) {
                last = e;
            }
            BareApiServer.sleep(Duration.ofMillis(200));
        }
        throw new AssertionError("not within " + TIMEOUT + ": " + what + "; last seen: " + describe(state), last);
    }

    static void until(String what, Supplier<Boolean> check) {
        until(what, check, () -> "-");
    }

    private static String describe(Supplier<?> state) {
        try {
            return String.valueOf(state.get());
        } catch (RuntimeException e) {
            return "(could not read: " + e.getMessage() + ")";
        }
    }
}
