package dev.schedulerops.operator.preview;

import java.time.Duration;

/** A point in time to give up at, and the pause between two looks at something that is not there yet. */
record Deadline(long nanos) {
    static Deadline in(Duration timeout) {
        return new Deadline(System.nanoTime() + timeout.toNanos());
    }

    boolean passed() {
        return System.nanoTime() - nanos >= 0;
    }

    Duration left() {
        return Duration.ofNanos(Math.max(0, nanos - System.nanoTime()));
    }

    /** Waits before looking again (a poll interval, never a wait for something to happen). */
    void pause(Duration interval) {
        try {
            Thread.sleep(Math.min(interval.toMillis(), Math.max(1, left().toMillis())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted", e);
        }
    }
}
