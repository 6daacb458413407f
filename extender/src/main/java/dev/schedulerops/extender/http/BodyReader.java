package dev.schedulerops.extender.http;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * Reads a request body into one array without ever blocking a thread: it takes what has arrived and, when nothing
 * has, asks Jetty to call it again once more bytes are there. So a body that came with its headers (every names-only
 * request) is read at once on the thread that read the headers, and a slow sender holds no thread at all.
 *
 * <p>Memory follows the bytes that arrive, never what {@code Content-Length} announces: the array starts at
 * {@link #FIRST_ALLOCATION} (or the announced length, if smaller) and doubles as bytes come in that do not fit, up to
 * the announced length or, without one, the limit, and is trimmed to its size at the end. A client that announces 96
 * MiB and sends nothing holds 16 KiB. A body that outgrows {@link LargeBodies#FROM} moves into a kept array that holds
 * its announced length, when {@link LargeBodies} has one, and is not trimmed: it is handed over as a {@link Body} of a
 * length within a longer array. Every array is reserved in the {@link BodyBudget} before it is allocated or taken
 * (while one is copied into the next, both), so all bodies together stay within the budget; a body that does not fit
 * gets 503 with {@code Retry-After}.
 */
final class BodyReader implements Invocable.Task {
    /** The most a body array starts with before its bytes arrive. */
    static final int FIRST_ALLOCATION = 16 * 1024;

    /**
     * A whole request body: {@code array[0, length)}. The array is longer only for a body of more than
     * {@link LargeBodies#FROM} bytes, whose array goes back to {@link LargeBodies} once the answer has been written.
     */
    record Body(byte[] array, int length) {}

    private final Request request;
    private final int maxBodyBytes;
    private final BodyBudget budget;
    private final LargeBodies large;
    private final long declared;
    private final Consumer<Body> onBody;
    private final Consumer<HttpFailure> onFailure;
    /** Reserved in the budget for as long as this reader holds it. */
    private byte[] body;

    private int length;

    private BodyReader(
            Request request,
            int maxBodyBytes,
            BodyBudget budget,
            LargeBodies large,
            byte[] first,
            Consumer<Body> onBody,
            Consumer<HttpFailure> onFailure) {
        this.request = request;
        this.maxBodyBytes = maxBodyBytes;
        this.budget = budget;
        this.large = large;
        this.declared = request.getLength();
        this.body = first;
        this.onBody = onBody;
        this.onFailure = onFailure;
    }

    /**
     * Reads {@code request}'s body and hands it to {@code onBody}, or the reason it cannot be read to
     * {@code onFailure}: on this thread when the body is there already, else on the thread that reads the rest. A body
     * handed to {@code onBody} is still reserved in {@code budget}: whoever takes it releases its array's length once
     * the request is answered (and gives a large body's array back to {@code large} once its answer was written).
     * After a failure nothing is left reserved.
     */
    static void read(
            Request request,
            int maxBodyBytes,
            BodyBudget budget,
            LargeBodies large,
            Consumer<Body> onBody,
            Consumer<HttpFailure> onFailure) {
        long declared = request.getLength();
        if (declared > maxBodyBytes) {
            onFailure.accept(tooLarge(maxBodyBytes));
            return;
        }
        int first = declared >= 0 ? (int) Math.min(declared, FIRST_ALLOCATION) : FIRST_ALLOCATION;
        if (!budget.tryReserve(first)) {
            onFailure.accept(overBudget());
            return;
        }
        new BodyReader(request, maxBodyBytes, budget, large, new byte[first], onBody, onFailure).run();
    }

    /** Takes every chunk that has arrived; asks to be run again when it runs out before the end. */
    @Override
    public void run() {
        Object outcome;
        try {
            outcome = readAvailable();
        } catch (Throwable bug) { // e.g. no heap left for the array: answered, never left hanging
            outcome = new HttpFailure(
                    HttpStatus.INTERNAL_SERVER_ERROR_500, "internal error reading the request body: " + bug);
        }
        if (outcome instanceof Body complete) {
            onBody.accept(complete);
        } else if (outcome instanceof HttpFailure failure) {
            budget.release(body.length);
            body = null;
            onFailure.accept(failure);
        }
    }

    /** The whole {@link Body}, the reason it cannot be read, or null when more is demanded. */
    private Object readAvailable() {
        while (true) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                request.demand(this);
                return null;
            }
            if (Content.Chunk.isFailure(chunk)) {
                Throwable cause = chunk.getFailure();
                return new HttpFailure(
                        HttpStatus.BAD_REQUEST_400,
                        "could not read the request body: " + (cause == null ? "failed" : cause.getMessage()));
            }
            HttpFailure refused;
            boolean last = chunk.isLast();
            try {
                refused = append(chunk.getByteBuffer());
            } finally {
                chunk.release();
            }
            if (refused != null) {
                return refused;
            }
            if (last) {
                return finish();
            }
        }
    }

    private HttpFailure append(ByteBuffer bytes) {
        int n = bytes.remaining();
        if ((long) length + n > maxBodyBytes || (declared >= 0 && (long) length + n > declared)) {
            return tooLarge(maxBodyBytes);
        }
        if (length + n > body.length && !grow(length + n)) {
            return overBudget();
        }
        bytes.get(body, length, n);
        length += n;
        return null;
    }

    /** Makes room for {@code needed} bytes; false when the budget has none. */
    private boolean grow(int needed) {
        if (needed > LargeBodies.FROM && declared >= 0) {
            byte[] kept = large.take(declared);
            if (kept != null) {
                if (!budget.tryReserve(kept.length)) {
                    large.giveBack(kept);
                    return false;
                }
                System.arraycopy(body, 0, kept, 0, length);
                budget.release(body.length);
                body = kept;
                return true;
            }
        }
        long ceiling = declared >= 0 ? declared : maxBodyBytes;
        long grown = Math.min(Math.max(2L * body.length, needed), ceiling);
        return moveTo(grown > LargeBodies.FROM ? LargeBodies.rounded(grown, maxBodyBytes) : (int) grown);
    }

    private Object finish() {
        if (declared >= 0 && length < declared) {
            return new HttpFailure(HttpStatus.BAD_REQUEST_400, "request body shorter than its Content-Length");
        }
        if (length <= LargeBodies.FROM && length < body.length && !moveTo(length)) {
            return overBudget();
        }
        return new Body(body, length);
    }

    /** Copies the body into an array of {@code size}, reserved first; false when the budget has no room for it. */
    private boolean moveTo(int size) {
        if (!budget.tryReserve(size)) {
            return false;
        }
        byte[] moved;
        try {
            moved = Arrays.copyOf(body, size);
        } catch (Throwable noHeap) {
            budget.release(size);
            throw noHeap;
        }
        budget.release(body.length);
        body = moved;
        return true;
    }

    private static HttpFailure tooLarge(int maxBodyBytes) {
        return new HttpFailure(
                HttpStatus.PAYLOAD_TOO_LARGE_413,
                "request body exceeds the limit of " + maxBodyBytes + " bytes (--max-body-bytes)");
    }

    private static HttpFailure overBudget() {
        return HttpFailure.busy("the extender is busy: the request bodies it holds have reached its body budget"
                + " (--body-budget-bytes); retry later");
    }

    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }
}
