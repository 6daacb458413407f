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
 * <p>The array is sized by {@code Content-Length}, bounded by the limit, but allocated as the bytes arrive, from at
 * most {@link #FIRST_ALLOCATION}: a client that declares 64 MiB and then sends nothing (or a byte a second) must not
 * make the extender hold 64 MiB per connection. Growing fourfold holds at most four times what arrived, and copies a
 * 12 MB full-node body 5 MB worth instead of doubling's 15 MB. A body without a length grows by doubling up to the
 * limit, and the result is trimmed to its size.
 */
final class BodyReader implements Invocable.Task {
    /** The most a body array starts with before its bytes arrive. Most requests fit. */
    static final int FIRST_ALLOCATION = 1024 * 1024;

    private final Request request;
    private final int maxBodyBytes;
    private final long declared;
    private final Consumer<byte[]> onBody;
    private final Consumer<HttpFailure> onFailure;
    private byte[] body;
    private int length;

    private BodyReader(Request request, int maxBodyBytes, Consumer<byte[]> onBody, Consumer<HttpFailure> onFailure) {
        this.request = request;
        this.maxBodyBytes = maxBodyBytes;
        this.declared = request.getLength();
        this.onBody = onBody;
        this.onFailure = onFailure;
        this.body = new byte[declared >= 0 ? (int) Math.min(declared, FIRST_ALLOCATION) : 8192];
    }

    /**
     * Reads {@code request}'s body and hands it to {@code onBody}, or the reason it cannot be read to
     * {@code onFailure}: on this thread when the body is there already, else on the thread that reads the rest.
     */
    static void read(Request request, int maxBodyBytes, Consumer<byte[]> onBody, Consumer<HttpFailure> onFailure) {
        if (request.getLength() > maxBodyBytes) {
            onFailure.accept(tooLarge(maxBodyBytes));
            return;
        }
        new BodyReader(request, maxBodyBytes, onBody, onFailure).run();
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
        if (outcome instanceof byte[] complete) {
            onBody.accept(complete);
        } else if (outcome instanceof HttpFailure failure) {
            onFailure.accept(failure);
        }
    }

    /** The whole body, the reason it cannot be read, or null when more is demanded. */
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
        if (length + n > body.length) {
            long grown = declared >= 0 ? Math.min(4L * body.length, declared) : 2L * body.length;
            body = Arrays.copyOf(body, (int) Math.min(Math.max(grown, (long) length + n), maxBodyBytes));
        }
        bytes.get(body, length, n);
        length += n;
        return null;
    }

    private Object finish() {
        if (declared >= 0 && length < declared) {
            return new HttpFailure(HttpStatus.BAD_REQUEST_400, "request body shorter than its Content-Length");
        }
        return length == body.length ? body : Arrays.copyOf(body, length);
    }

    private static HttpFailure tooLarge(int maxBodyBytes) {
        return new HttpFailure(
                HttpStatus.PAYLOAD_TOO_LARGE_413,
                "request body exceeds the limit of " + maxBodyBytes + " bytes (--max-body-bytes)");
    }

    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }
}
