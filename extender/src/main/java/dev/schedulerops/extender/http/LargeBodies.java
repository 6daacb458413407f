package dev.schedulerops.extender.http;

import java.util.ArrayList;
import java.util.List;

/**
 * The arrays of large request bodies (full-node requests: 12 MB for 1000 kubelet-like nodes), kept once their answer
 * has been written for the next large body. A fresh array of that size is allocated straight into the old generation
 * and must be zeroed; with the Deployment's heap (the serial collector in a 512Mi container) every full-node request
 * then ended in a full collection, 35 to 50 ms of CPU. A body that outgrows {@link #FROM} bytes takes an idle array
 * big enough for its {@code Content-Length}, if there is one; else it grows as it arrives, as before, and its last
 * array is rounded up to a whole {@link #GRAIN} so that the next body of about the same size fits it.
 *
 * <p>Memory still follows the bytes that arrive: a body takes a kept array only once it holds more than {@link #FROM}
 * bytes, and the pool allocates nothing itself. It keeps at most {@link #MAX_IDLE} arrays and at most
 * {@code maxIdleBytes} in all, dropping the smallest first; an array goes back only after its answer was written in
 * full (after a failed write the connection may still hold a reply that points into it).
 */
final class LargeBodies {
    /** Bodies larger than this take (and give back) a kept array; smaller ones are trimmed to their length. */
    static final int FROM = 1024 * 1024;

    static final int GRAIN = 1024 * 1024;
    /** kube-scheduler has one or two calls in flight at a time. */
    static final int MAX_IDLE = 4;

    private final long maxIdleBytes;
    private final List<byte[]> idle = new ArrayList<>();

    LargeBodies(long maxIdleBytes) {
        this.maxIdleBytes = maxIdleBytes;
    }

    /** The smallest idle array of at least {@code size} bytes, now the caller's; null when there is none. */
    synchronized byte[] take(long size) {
        int best = -1;
        for (int i = 0; i < idle.size(); i++) {
            int length = idle.get(i).length;
            if (length >= size && (best < 0 || length < idle.get(best).length)) {
                best = i;
            }
        }
        return best < 0 ? null : idle.remove(best);
    }

    /** Keeps {@code array} for a later body, if it is large and there is room (the smallest go first). */
    synchronized void giveBack(byte[] array) {
        if (array.length <= FROM || array.length > maxIdleBytes) {
            return;
        }
        idle.add(array);
        while (idle.size() > MAX_IDLE || idleBytes() > maxIdleBytes) {
            idle.remove(smallest());
        }
    }

    /** The size of the last array of a body that grows to {@code size} bytes: a whole grain, at most {@code cap}. */
    static int rounded(long size, long cap) {
        long grains = (size + GRAIN - 1) / GRAIN;
        return (int) Math.min(grains * GRAIN, Math.max(size, cap));
    }

    synchronized long idleBytes() {
        long total = 0;
        for (byte[] array : idle) {
            total += array.length;
        }
        return total;
    }

    private int smallest() {
        int smallest = 0;
        for (int i = 1; i < idle.size(); i++) {
            if (idle.get(i).length < idle.get(smallest).length) {
                smallest = i;
            }
        }
        return smallest;
    }
}
