package dev.schedulerops.extender.http;

import dev.schedulerops.extender.protocol.Reply;
import java.nio.ByteBuffer;
import java.util.List;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;

/**
 * Writes a reply's segments one after another without blocking a thread: each write starts when the previous one has
 * completed, and the last one completes the response. A reply of up to {@link #GATHER_BYTES} is first copied into one
 * buffer and written at once: one system call, and one wake-up of the client that reads it, instead of one per
 * segment, for the price of copying a few kilobytes.
 */
final class ReplyWriter extends IteratingCallback {
    static final int GATHER_BYTES = 64 * 1024;

    private final Response response;
    private final List<ByteBuffer> segments;
    private final Callback done;
    private int next;

    private ReplyWriter(Response response, List<ByteBuffer> segments, Callback done) {
        this.response = response;
        this.segments = segments;
        this.done = done;
    }

    static void write(Response response, Reply reply, Callback whenWritten) {
        Callback done = releasedOnSuccess(reply, whenWritten);
        List<ByteBuffer> segments = reply.segments();
        if (segments.isEmpty()) {
            response.write(true, BufferUtil.EMPTY_BUFFER, done);
        } else if (segments.size() > 1 && reply.length() <= GATHER_BYTES) {
            response.write(true, ByteBuffer.wrap(reply.toByteArray()), done);
        } else {
            new ReplyWriter(response, segments, done).iterate();
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

    @Override
    protected Action process() {
        if (next == segments.size()) {
            return Action.SUCCEEDED;
        }
        ByteBuffer segment = segments.get(next++);
        response.write(next == segments.size(), segment, this);
        return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteSuccess() {
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
