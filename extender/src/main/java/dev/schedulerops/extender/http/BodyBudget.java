package dev.schedulerops.extender.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory all request bodies may hold together: an array for a body is allocated only once its size is reserved
 * here, and its reservation is given back when the request is over. So however many clients send at once, bodies
 * never hold more than {@link #capacity()} of the heap.
 */
final class BodyBudget {
    private final long capacity;
    private final AtomicLong reserved = new AtomicLong();

    BodyBudget(long capacity) {
        this.capacity = capacity;
    }

    /** Reserves {@code bytes} if they fit; false (and nothing reserved) if they do not. */
    boolean tryReserve(long bytes) {
        while (true) {
            long now = reserved.get();
            if (now + bytes > capacity) {
                return false;
            }
            if (reserved.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    /** The bytes reserved now. */
    long reserved() {
        return reserved.get();
    }

    long capacity() {
        return capacity;
    }
}
