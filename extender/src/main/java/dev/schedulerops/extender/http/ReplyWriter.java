package dev.schedulerops.extender.http;

import dev.schedulerops.extender.protocol.Reply;
import java.nio.ByteBuffer;
import java.util.List;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;

/**
 * Writes a reply without blocking a thread. A reply of one segment is written as it is. A reply of several segments
 * (generated JSON and runs of the request body it refers to, see {@link Reply}) of up to {@link #GATHER_BYTES} is first
 * copied into one buffer and written at once: one system call, and one wake-up of the client that reads it, instead
 * of one per segment. A longer one (a full-node filter reply: the kept nodes' bytes, 9.8 MB in some 200 runs for 1000
 * nodes) is copied into direct {@link ReplyChunks} and written a chunk at a time, each write started when the previous
 * one has completed. The copy costs nothing extra: the JDK copies every heap buffer it writes to a socket into a
 * direct one first, the whole remainder of the buffer again at each partial write. Written run by run, such a reply
 * took a system call per run and more; what chunks saved is measured in
 * bench/results/20261129-full-node-chunks.full-node.md (bench/README, "Full-node requests").
 */
final class ReplyWriter extends IteratingCallback {
    static final int GATHER_BYTES = 64 * 1024;

    private final Response response;
    private final List<ByteBuffer> segments;
    private final ReplyChunks chunks;
    private final Callback done;
    private ByteBuffer chunk;
    private int next;

    private ReplyWriter(Response response, List<ByteBuffer> segments, ReplyChunks chunks, Callback done) {
        this.response = response;
        this.segments = segments;
        this.chunks = chunks;
        this.done = done;
    }

    static void write(Response response, Reply reply, ReplyChunks chunks, Callback whenWritten) {
        Callback done = releasedOnSuccess(reply, whenWritten);
        List<ByteBuffer> segments = reply.segments();
        if (segments.isEmpty()) {
            response.write(true, BufferUtil.EMPTY_BUFFER, done);
        } else if (segments.size() == 1) {
            response.write(true, segments.get(0), done);
        } else if (reply.length() <= GATHER_BYTES) {
            response.write(true, ByteBuffer.wrap(reply.toByteArray()), done);
        } else {
            new ReplyWriter(response, segments, chunks, done).iterate();
        }
    }

    /**
     * Releases the reply's array once it has been written. Not after a failure: the connection may still hold the
     * buffer then, and the array is left to the garbage collector.
     */
    private static Callback releasedOnSuccess(Reply reply, Callback done) {
        return new Callback.Nested(done) {
            @Override
            public void succeeded() {
                reply.release();
                super.succeeded();
            }
        };
    }

    /** Fills the chunk with the next bytes of the reply and writes it; runs again once that write has completed. */
    @Override
    protected Action process() {
        if (next == segments.size()) {
            return Action.SUCCEEDED;
        }
        if (chunk == null) {
            chunk = chunks.take();
        }
        chunk.clear();
        while (chunk.hasRemaining() && next < segments.size()) {
            ByteBuffer segment = segments.get(next);
            if (segment.remaining() <= chunk.remaining()) {
                chunk.put(segment);
                next++;
            } else {
                int limit = segment.limit();
                segment.limit(segment.position() + chunk.remaining());
                chunk.put(segment);
                segment.limit(limit);
            }
        }
        chunk.flip();
        response.write(next == segments.size(), chunk, this);
        return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteSuccess() {
        if (chunk != null) {
            chunks.give(chunk);
        }
        done.succeeded();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        done.failed(cause);
    }

    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }
}
