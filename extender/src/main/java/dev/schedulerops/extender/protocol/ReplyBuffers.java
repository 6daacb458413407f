package dev.schedulerops.extender.protocol;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A few byte arrays that the largest replies are written into and given back once sent. The names-only filter of
 * 5000 names answers 159 KB; a fresh array for each request is memory the CPU must first zero and then fetch into
 * its caches (with it, a fifth of that request's CPU time in process), while an array given back is still in them.
 *
 * <p>Arrays are taken and given back from any thread. One is given back only after its reply was written in full, so
 * no two replies ever share one. Arrays over {@link #MAX_BYTES} are not kept: a rare huge request does not pin its
 * memory, and the arrays kept hold at most {@code capacity * MAX_BYTES}.
 */
public final class ReplyBuffers {
    static final int MAX_BYTES = 1 << 20;

    private final AtomicReferenceArray<byte[]> free;

    /** @param capacity how many arrays to keep: about the most replies in flight at once */
    public ReplyBuffers(int capacity) {
        free = new AtomicReferenceArray<>(capacity);
    }

    /** An array of at least {@code length} bytes, holding whatever it held before: the caller overwrites it. */
    public byte[] take(int length) {
        for (int i = 0; i < free.length(); i++) {
            byte[] array = free.get(i);
            if (array != null && array.length >= length && free.compareAndSet(i, array, null)) {
                return array;
            }
        }
        // A quarter more, so that the next, slightly longer reply of a growing cluster fits too.
        return new byte[length > MAX_BYTES ? length : Math.min(MAX_BYTES, length + length / 4)];
    }

    /** Keeps {@code array} for a later reply, in an empty place or instead of a shorter array. */
    void give(byte[] array) {
        if (array.length > MAX_BYTES) {
            return;
        }
        for (int i = 0; i < free.length(); i++) {
            if (free.get(i) == null && free.compareAndSet(i, null, array)) {
                return;
            }
        }
        for (int i = 0; i < free.length(); i++) {
            byte[] kept = free.get(i);
            if (kept != null && kept.length < array.length && free.compareAndSet(i, kept, array)) {
                return;
            }
        }
    }
}
