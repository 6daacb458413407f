package dev.schedulerops.extender.verbs;

import dev.schedulerops.extender.nodecache.NodeCache;
import dev.schedulerops.extender.nodecache.NodeLabelIndex;
import dev.schedulerops.extender.protocol.ExtenderArgs;
import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.protocol.ReplyBuffers;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Filter of a names-only request whose names have no escapes, without allocating in proportion to its names. A first
 * pass looks every name up in one state of the node cache ({@link NodeCache#index}), adds up the reply's length and
 * lists the failed names in this thread's {@link Scratch}; the reply is then written, names copied from the request as
 * they are, into an array of exactly that length from {@link ReplyBuffers}, which the server takes back once the reply
 * is sent. The same answer as the general path of {@link ExtenderVerbs} ({@code NamesOnlyFilterTest} compares them).
 */
final class NamesOnlyFilter {
    private static final byte[] HEAD = ascii("{\"Nodes\":null,\"NodeNames\":[");
    private static final byte[] MIDDLE = ascii("],\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{");
    private static final byte[] TAIL = ascii("},\"Error\":\"\"}");

    private static final int SLACK = 2 * Long.BYTES;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private NamesOnlyFilter() {}

    /** Copies {@code from[start, end)} to {@code to[at...]}, which has {@link #SLACK} bytes to spare; returns the end. */
    private static int copy(byte[] from, int start, int end, byte[] to, int at) {
        int length = end - start;
        if (length <= SLACK && start + SLACK <= from.length) {
            LONGS.set(to, at, (long) LONGS.get(from, start));
            LONGS.set(to, at + Long.BYTES, (long) LONGS.get(from, start + Long.BYTES));
        } else {
            System.arraycopy(from, start, to, at, length);
        }
        return at + length;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param lacksLabel the reason of a node without the label, as a JSON string
     * @param unknownNode the reason of a node the cache has not seen, as a JSON string
     * @param scratch this thread's arrays, for the list of failed names
     * @param buffers where the reply's array comes from
     */
    static ExtenderVerbs.Outcome answer(
            ExtenderArgs args,
            NodeCache cache,
            byte[] lacksLabel,
            byte[] unknownNode,
            Scratch scratch,
            ReplyBuffers buffers) {
        byte[] body = args.body();
        int[] ranges = args.nameRanges();
        int n = args.nodeCount();
        // Each failed name's index, or its complement for a node the cache has not seen.
        int[] failed = scratch.failed(n);
        int failedCount = 0;
        // Each name with the comma after it, and in FailedAndUnresolvableNodes with its ':' and reason too.
        int keptBytes = 0;
        int failedBytes = 0;
        NodeLabelIndex index = cache.index();
        for (int i = 0; i < n; i++) {
            int from = ranges[2 * i];
            int to = ranges[2 * i + 1];
            NodeCache.Presence presence = index.presence(body, from + 1, to - 1);
            if (presence == NodeCache.Presence.LABELLED) {
                keptBytes += to - from + 1;
            } else if (presence == NodeCache.Presence.UNLABELLED) {
                failed[failedCount++] = i;
                failedBytes += to - from + 2 + lacksLabel.length;
            } else {
                failed[failedCount++] = ~i;
                failedBytes += to - from + 2 + unknownNode.length;
            }
        }
        // SLACK: a short name is copied as two eight-byte words, which may write past its end (never past the array).
        byte[] reply = buffers.take(HEAD.length + keptBytes + MIDDLE.length + failedBytes + TAIL.length + SLACK);
        System.arraycopy(HEAD, 0, reply, 0, HEAD.length);
        int at = HEAD.length;
        int nextFailed = failedCount > 0 ? nameOf(failed[0]) : n;
        for (int i = 0, f = 0; i < n; i++) {
            if (i == nextFailed) {
                nextFailed = ++f < failedCount ? nameOf(failed[f]) : n;
                continue;
            }
            at = copy(body, ranges[2 * i], ranges[2 * i + 1], reply, at);
            reply[at++] = ',';
        }
        at = writeAfterList(MIDDLE, reply, at);
        for (int f = 0; f < failedCount; f++) {
            int i = nameOf(failed[f]);
            byte[] reason = failed[f] < 0 ? unknownNode : lacksLabel;
            int from = ranges[2 * i];
            int length = ranges[2 * i + 1] - from;
            System.arraycopy(body, from, reply, at, length);
            at += length;
            reply[at++] = ':';
            System.arraycopy(reason, 0, reply, at, reason.length);
            at += reason.length;
            reply[at++] = ',';
        }
        at = writeAfterList(TAIL, reply, at);
        return new ExtenderVerbs.Outcome(200, Reply.pooled(reply, at, buffers), n, n - failedCount);
    }

    /** The index of the name an entry of the failed list stands for. */
    private static int nameOf(int failed) {
        return failed < 0 ? ~failed : failed;
    }

    /** Writes {@code json} at {@code at}, over the comma that ends a list unless the list is empty. */
    private static int writeAfterList(byte[] json, byte[] reply, int at) {
        if (reply[at - 1] == ',') {
            at--;
        }
        System.arraycopy(json, 0, reply, at, json.length);
        return at + json.length;
    }
}
