package dev.schedulerops.extender.http;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A few direct buffers of {@link #CHUNK_BYTES} that large replies are copied into, a chunk at a time, to be written
 * to the socket. A chunk goes back once its reply was written in full; after a failed write the connection may still
 * hold it, and it is left to the garbage collector. At most {@code capacity} are kept.
 */
final class ReplyChunks {
    /**
     * Small enough that a write of one chunk usually goes into the socket's send buffer in one system call, large
     * enough that a full-node filter reply of 1000 nodes (9.8 MB) takes a few dozen writes. Chosen by hand against
     * 64 KiB, 128 KiB and 1 MiB over loopback (not a results file; none of them did better).
     */
    static final int CHUNK_BYTES = 256 * 1024;

    private final AtomicReferenceArray<ByteBuffer> free;

    ReplyChunks(int capacity) {
        free = new AtomicReferenceArray<>(capacity);
    }

    /** An empty chunk, kept or new. */
    ByteBuffer take() {
        for (int i = 0; i < free.length(); i++) {
            ByteBuffer chunk = free.get(i);
            if (chunk != null && free.compareAndSet(i, chunk, null)) {
                return chunk.clear();
            }
        }
        return ByteBuffer.allocateDirect(CHUNK_BYTES);
    }

    /** Keeps {@code chunk} for a later reply, if there is room. */
    void give(ByteBuffer chunk) {
        for (int i = 0; i < free.length(); i++) {
            if (free.get(i) == null && free.compareAndSet(i, null, chunk)) {
                return;
            }
        }
    }

    int idle() {
        int idle = 0;
        for (int i = 0; i < free.length(); i++) {
            idle += free.get(i) == null ? 0 : 1;
        }
        return idle;
    }
}
