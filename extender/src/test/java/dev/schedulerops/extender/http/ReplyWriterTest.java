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
 * A long reply of many segments is written in direct chunks, in order, each write after the previous one completed,
 * and its chunk goes back on the same terms.
 */
class ReplyWriterTest {
    private final List<Callback> pendingWrites = new ArrayList<>();
    private final List<ByteBuffer> written = new ArrayList<>();
    private final List<Boolean> lasts = new ArrayList<>();

    /** A response whose writes complete only when the test completes their callbacks. */
    private final Response response = (Response) Proxy.newProxyInstance(
            Response.class.getClassLoader(), new Class<?>[] {Response.class}, (proxy, method, args) -> {
                if (method.getName().equals("write") && args.length == 3) {
                    lasts.add((Boolean) args[0]);
                    written.add((ByteBuffer) args[1]);
                    pendingWrites.add((Callback) args[2]);
                    return null;
                }
                throw new UnsupportedOperationException(method.getName());
            });

    private final ReplyBuffers buffers = new ReplyBuffers(2);
    private final ReplyChunks chunks = new ReplyChunks(2);
    private final byte[] array = buffers.take(64);
    private final AtomicReference<String> outcome = new AtomicReference<>("pending");

    /** Writes a reply in {@code array}, taken from {@code buffers}; the outcome goes to {@code outcome}. */
    private void writePooledReply() {
        ReplyWriter.write(
                response,
                Reply.pooled(array, 10, buffers),
                chunks,
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

    /** A reply like a full-node filter's: generated JSON between long runs of the request body, referenced. */
    private static Reply longReplyOfManySegments(byte[] body) {
        Reply reply = new Reply();
        reply.ascii("{\"Nodes\":{\"items\":[");
        for (int from = 0; from < body.length; from += 100_000) {
            reply.raw(body, from, Math.min(body.length, from + 90_000)).ch(',');
        }
        return reply.ascii("]}}");
    }

    @Test
    void aLongReplyOfManySegmentsIsWrittenInDirectChunksOneAfterAnother() {
        byte[] body = new byte[1_000_000];
        new java.util.Random(7).nextBytes(body);
        Reply reply = longReplyOfManySegments(body);
        byte[] expected = reply.toByteArray();
        assertThat(reply.segments()).hasSizeGreaterThan(10);

        ReplyWriter.write(
                response, reply, chunks, Callback.from(() -> outcome.set("succeeded"), f -> outcome.set("failed")));
        java.io.ByteArrayOutputStream sent = new java.io.ByteArrayOutputStream();
        ByteBuffer firstChunk = written.get(0);
        for (int write = 0; write < pendingWrites.size(); write++) {
            ByteBuffer chunk = written.get(write);
            assertThat(chunk.isDirect()).isTrue();
            assertThat(chunk).as("the same chunk, refilled").isSameAs(firstChunk);
            assertThat(chunk.remaining()).isLessThanOrEqualTo(ReplyChunks.CHUNK_BYTES);
            assertThat(written).as("one write pending at a time").hasSize(write + 1);
            byte[] bytes = new byte[chunk.remaining()];
            chunk.get(bytes);
            sent.writeBytes(bytes);
            assertThat(outcome.get()).isEqualTo("pending");
            assertThat(chunks.idle()).as("while a write is pending").isZero();
            pendingWrites.get(write).succeeded();
        }

        assertThat(pendingWrites).hasSize((expected.length + ReplyChunks.CHUNK_BYTES - 1) / ReplyChunks.CHUNK_BYTES);
        assertThat(sent.toByteArray()).isEqualTo(expected);
        assertThat(lasts.subList(0, lasts.size() - 1))
                .as("writes before the last")
                .doesNotContain(true);
        assertThat(lasts.get(lasts.size() - 1))
                .as("the last write ends the response")
                .isTrue();
        assertThat(outcome.get()).isEqualTo("succeeded");
        assertThat(chunks.idle()).as("once the reply is written").isOne();
    }

    @Test
    void aFailedChunkWriteKeepsItsChunkFromThePool() {
        ReplyWriter.write(
                response,
                longReplyOfManySegments(new byte[1_000_000]),
                chunks,
                Callback.from(() -> outcome.set("succeeded"), f -> outcome.set("failed")));
        pendingWrites.get(0).succeeded();
        pendingWrites.get(1).failed(new IOException("connection reset"));

        assertThat(outcome.get()).isEqualTo("failed");
        assertThat(chunks.idle()).isZero();
    }
}
