package dev.schedulerops.extender.nodecache;

import dev.schedulerops.extender.protocol.NameHash;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * An immutable snapshot of node name → label value, looked up by the UTF-8 bytes of a name as they lie in a request
 * body. Names-only requests carry thousands of names; looking them up without first turning each into a
 * {@link String} is what keeps a 5000-name filter call cheap.
 *
 * <p>Open addressing with linear probing over a table at most half full. Each slot is two ints (the name's hash and
 * its entry number) so a probe touches one cache line; the names themselves are packed into one byte array. Names are
 * hashed with {@link NameHash}, which a request scanner can compute as it reads a name.
 */
final class NodeLabelIndex {
    static final NodeLabelIndex EMPTY = new NodeLabelIndex(Map.of());

    private static final int EMPTY_SLOT = -1;

    private final int mask;
    /** Slot {@code s} is {@code slots[2s]} = hash, {@code slots[2s+1]} = entry number or {@link #EMPTY_SLOT}. */
    private final int[] slots;
    /** Entry {@code e}'s name is {@code names[nameStarts[e], nameStarts[e + 1])}. */
    private final byte[] names;

    private final int[] nameStarts;
    private final String[] values;

    /** @param labels node name → label value as the cache stores it (never null) */
    NodeLabelIndex(Map<String, String> labels) {
        int capacity = Integer.highestOneBit(Math.max(4, labels.size() * 2 - 1)) << 1;
        mask = capacity - 1;
        slots = new int[2 * capacity];
        for (int s = 0; s < capacity; s++) {
            slots[2 * s + 1] = EMPTY_SLOT;
        }
        byte[][] encoded = new byte[labels.size()][];
        values = new String[labels.size()];
        nameStarts = new int[labels.size() + 1];
        int entry = 0;
        for (Map.Entry<String, String> label : labels.entrySet()) {
            encoded[entry] = label.getKey().getBytes(StandardCharsets.UTF_8);
            values[entry] = label.getValue();
            nameStarts[entry + 1] = nameStarts[entry] + encoded[entry].length;
            entry++;
        }
        names = new byte[nameStarts[labels.size()]];
        for (int e = 0; e < encoded.length; e++) {
            System.arraycopy(encoded[e], 0, names, nameStarts[e], encoded[e].length);
            int hash = NameHash.of(names, nameStarts[e], nameStarts[e + 1]);
            int slot = hash & mask;
            while (slots[2 * slot + 1] != EMPTY_SLOT) {
                slot = (slot + 1) & mask;
            }
            slots[2 * slot] = hash;
            slots[2 * slot + 1] = e;
        }
    }

    /** The stored value for the name {@code utf8[from, to)}, or null when the index does not hold it. */
    String get(byte[] utf8, int from, int to) {
        return get(utf8, from, to, NameHash.of(utf8, from, to));
    }

    /** The same, for a caller that already has the name's {@link NameHash}. */
    String get(byte[] utf8, int from, int to, int hash) {
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            int entry = slots[2 * slot + 1];
            if (entry == EMPTY_SLOT) {
                return null;
            }
            if (slots[2 * slot] == hash && sameBytes(nameStarts[entry], nameStarts[entry + 1], utf8, from, to)) {
                return values[entry];
            }
        }
    }

    /**
     * Whether {@code names[start, end)} equals {@code utf8[from, to)}. Node names are mostly 8 to 16 bytes long; two
     * overlapping eight-byte reads compare such a name whole, where {@link Arrays#equals} spends longer getting ready.
     */
    private boolean sameBytes(int start, int end, byte[] utf8, int from, int to) {
        int length = end - start;
        if (length != to - from) {
            return false;
        }
        if (length < Long.BYTES || length > 2 * Long.BYTES) {
            return Arrays.equals(names, start, end, utf8, from, to);
        }
        return NameHash.word(names, start) == NameHash.word(utf8, from)
                && NameHash.word(names, end - Long.BYTES) == NameHash.word(utf8, to - Long.BYTES);
    }
}
