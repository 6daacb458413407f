package dev.schedulerops.e2e.support;

import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polling for conditions on a live cluster, the one way every e2e test waits. */
public final class Await {
    private static final long POLL_MILLIS = 250;

    private Await() {}

    /**
     * Waits until {@code condition} holds, looking at least once (a timeout that is zero or already spent still
     * asks). An exception or assertion failure while polling (say, the object does not exist yet) counts as "not yet"
     * and becomes the cause of the timeout.
     */
    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        Instant deadline = Instant.now().plus(timeout);
        Throwable last = null;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
                last = null;
            } catch (RuntimeException | AssertionError e) {
                last = e;
            }
            if (!Instant.now().isBefore(deadline)) {
                break;
            }
            sleep(POLL_MILLIS);
        }
        throw new AssertionError("timed out after " + timeout + " waiting until " + what, last);
    }

    /** Whether {@code condition} comes to hold within {@code timeout}: for what is reported, not required. */
    public static boolean within(Duration timeout, BooleanSupplier condition) {
        try {
            until(timeout, "a reported condition", condition);
            return true;
        } catch (AssertionError notWithin) {
            return false;
        }
    }

    /** Waits until {@code value} gives something other than null, and returns it; failures count as "not yet". */
    public static <T> T value(Duration timeout, String what, Supplier<T> value) {
        Object[] found = new Object[1];
        until(timeout, what, () -> (found[0] = value.get()) != null);
        @SuppressWarnings("unchecked")
        T result = (T) found[0];
        return result;
    }

    /** Asserts that {@code condition} keeps holding for the whole {@code duration}. */
    public static void holdsFor(Duration duration, String what, BooleanSupplier condition) {
        Instant end = Instant.now().plus(duration);
        while (Instant.now().isBefore(end)) {
            if (!condition.getAsBoolean()) {
                throw new AssertionError("expected for " + duration + ": " + what);
            }
            sleep(POLL_MILLIS);
        }
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
