package dev.schedulerops.extender.verbs;

import dev.schedulerops.extender.nodecache.NodeCache;
import dev.schedulerops.extender.protocol.ExtenderArgs;
import dev.schedulerops.extender.protocol.Reply;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Filter of a names-only request read by the scanner (names with their hashes), in one pass over the names: each is
 * looked up in the node cache and, when it has the label, copied straight into the reply's {@code NodeNames}; the
 * others are remembered and written once the pass is over, into a second buffer sent after the first. The same
 * answer as the general path of {@link ExtenderVerbs} (which {@code ExtenderVerbsTest} compares), without its
 * intermediate arrays or a second copy of the reply.
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
     */
    static ExtenderVerbs.Outcome answer(ExtenderArgs args, NodeCache cache, byte[] lacksLabel, byte[] unknownNode) {
        byte[] body = args.body();
        int[] ranges = args.nameRanges();
        int[] hashes = args.nameHashes();
        int n = args.nodeCount();
        // The first part holds every name at most once, each with a comma: the literals' bytes plus n.
        // SLACK: a short name is copied as two eight-byte words, which may write past its end (never past the array).
        byte[] first = new byte[HEAD.length + (n == 0 ? 0 : ranges[2 * n - 1] - ranges[0]) + n + MIDDLE.length + SLACK];
        System.arraycopy(HEAD, 0, first, 0, HEAD.length);
        int pos = HEAD.length;
        int kept = 0;
        int[] failed = new int[n];
        byte[][] reasons = new byte[n][];
        int failedCount = 0;
        int failedBytes = 0;
        for (int i = 0; i < n; i++) {
            int from = ranges[2 * i];
            int to = ranges[2 * i + 1];
            String value = cache.labelValue(body, from + 1, to - 1, hashes[i]);
            if (value != null && value != NodeCache.UNKNOWN_NODE) {
                if (kept++ > 0) {
                    first[pos++] = ',';
                }
                pos = copy(body, from, to, first, pos);
            } else {
                byte[] reason = value == null ? lacksLabel : unknownNode;
                failed[failedCount] = i;
                reasons[failedCount++] = reason;
                failedBytes += to - from + 2 + reason.length;
            }
        }
        System.arraycopy(MIDDLE, 0, first, pos, MIDDLE.length);
        pos += MIDDLE.length;

        byte[] second = new byte[failedBytes + TAIL.length];
        int at = 0;
        for (int f = 0; f < failedCount; f++) {
            if (f > 0) {
                second[at++] = ',';
            }
            int i = failed[f];
            int from = ranges[2 * i];
            int length = ranges[2 * i + 1] - from;
            System.arraycopy(body, from, second, at, length);
            at += length;
            second[at++] = ':';
            System.arraycopy(reasons[f], 0, second, at, reasons[f].length);
            at += reasons[f].length;
        }
        System.arraycopy(TAIL, 0, second, at, TAIL.length);
        at += TAIL.length;
        return new ExtenderVerbs.Outcome(200, Reply.ofParts(first, pos, second, at), n, kept);
    }
}
