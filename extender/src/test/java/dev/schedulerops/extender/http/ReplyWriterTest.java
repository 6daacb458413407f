package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.protocol.ReplyBuffers;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * A pooled reply's array goes back to its pool only once the connection is done with it: after its last write has
 * completed, never while the write is pending, and not after a failed write, when the connection may still hold it.
 */
class ReplyWriterTest {
    private final List<Callback> pendingWrites = new ArrayList<>();
    private final List<ByteBuffer> written = new ArrayList<>();

    /** A response whose writes complete only when the test completes their callbacks. */
    private final Response response = (Response) Proxy.newProxyInstance(
            Response.class.getClassLoader(), new Class<?>[] {Response.class}, (proxy, method, args) -> {
                if (method.getName().equals("write") && args.length == 3) {
                    written.add((ByteBuffer) args[1]);
                    pendingWrites.add((Callback) args[2]);
                    return null;
                }
                throw new UnsupportedOperationException(method.getName());
            });

    private final ReplyBuffers buffers = new ReplyBuffers(2);
    private final byte[] array = buffers.take(64);
    private final AtomicReference<String> outcome = new AtomicReference<>("pending");

    /** Writes a reply in {@code array}, taken from {@code buffers}; the outcome goes to {@code outcome}. */
    private void writePooledReply() {
        ReplyWriter.write(
                response,
                Reply.pooled(array, 10, buffers),
                Callback.from(() -> outcome.set("succeeded"), failure -> outcome.set("failed")));
    }

    @Test
    void thePooledArrayGoesBackOnlyOnceTheReplyIsWritten() {
        writePooledReply();

        assertThat(written).hasSize(1);
        assertThat(written.get(0).array()).isSameAs(array);
        assertThat(buffers.take(64)).as("while the write is pending").isNotSameAs(array);

        pendingWrites.get(0).succeeded();

        assertThat(outcome.get()).isEqualTo("succeeded");
        assertThat(buffers.take(64)).as("once it is written").isSameAs(array);
    }

    @Test
    void aFailedWriteLeavesTheArrayToTheGarbageCollector() {
        writePooledReply();
        pendingWrites.get(0).failed(new IOException("connection reset"));

        assertThat(outcome.get()).isEqualTo("failed");
        assertThat(buffers.take(64)).isNotSameAs(array);
    }
}
