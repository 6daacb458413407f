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
 * <p>Open addressing with linear probing over a table at most half full. Each slot is two ints: the name's
 * {@link NameHash}, and its entry number with a bit that says whether the node has the label, so a filter learns all
 * it needs from the slot once the name is confirmed; the names themselves are packed into one byte array.
 */
public final class NodeLabelIndex {
    /** The value stored for a node that lacks the label (compared by identity). */
    static final String NO_LABEL = new String("<no label>");

    static final NodeLabelIndex EMPTY = new NodeLabelIndex(Map.of());

    private static final int EMPTY_SLOT = -1;
    private static final int LABELLED = 1;

    private final int mask;
    /** Slot {@code s}: {@code slots[2s]} = hash, {@code slots[2s+1]} = entry << 1 | LABELLED bit, or EMPTY_SLOT. */
    private final int[] slots;
    /** Entry {@code e}'s name is {@code names[nameStarts[e], nameStarts[e + 1])}. */
    private final byte[] names;

    private final int[] nameStarts;
    private final String[] values;

    /** @param labels node name → label value, {@link #NO_LABEL} for a node that lacks it */
    NodeLabelIndex(Map<String, String> labels) {
        int capacity = Integer.highestOneBit(Math.max(4, labels.size() * 2 - 1)) << 1;
        mask = capacity - 1;
        slots = new int[2 * capacity];
        Arrays.fill(slots, EMPTY_SLOT);
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
            int start = nameStarts[e];
            int end = nameStarts[e + 1];
            System.arraycopy(encoded[e], 0, names, start, encoded[e].length);
            int hash = NameHash.of(names, start, end);
            int slot = hash & mask;
            while (slots[2 * slot + 1] != EMPTY_SLOT) {
                slot = (slot + 1) & mask;
            }
            slots[2 * slot] = hash;
            slots[2 * slot + 1] = e << 1 | (values[e] == NO_LABEL ? 0 : LABELLED);
        }
    }

    /**
     * The label value of the node whose name is {@code utf8[from, to)}, as {@link NodeCache#labelValue(String)}
     * answers it: {@code null} when the node lacks the label, {@link NodeCache#UNKNOWN_NODE} when it is not indexed.
     */
    public String labelValue(byte[] utf8, int from, int to) {
        int entry = find(utf8, from, to);
        if (entry == EMPTY_SLOT) {
            return NodeCache.UNKNOWN_NODE;
        }
        String value = values[entry >>> 1];
        return value == NO_LABEL ? null : value;
    }

    /** The same, for a name as a string (one written with escapes in the request). */
    public String labelValue(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        return labelValue(utf8, 0, utf8.length);
    }

    /** Whether the index holds the name {@code utf8[from, to)}, and whether that node has the label. */
    public NodeCache.Presence presence(byte[] utf8, int from, int to) {
        int entry = find(utf8, from, to);
        if (entry == EMPTY_SLOT) {
            return NodeCache.Presence.UNKNOWN;
        }
        return (entry & LABELLED) != 0 ? NodeCache.Presence.LABELLED : NodeCache.Presence.UNLABELLED;
    }

    /** The entry word (entry << 1 | LABELLED bit) of the name {@code utf8[from, to)}, or EMPTY_SLOT. */
    private int find(byte[] utf8, int from, int to) {
        int hash = NameHash.of(utf8, from, to);
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            int entry = slots[2 * slot + 1];
            if (entry == EMPTY_SLOT || (slots[2 * slot] == hash && sameName(entry >>> 1, utf8, from, to))) {
                return entry;
            }
        }
    }

    /**
     * Whether entry {@code e}'s name is {@code utf8[from, to)}. Node names are mostly 8 to 16 bytes long; two
     * overlapping eight-byte reads compare such a name whole, where {@link Arrays#equals} spends longer getting ready.
     */
    private boolean sameName(int e, byte[] utf8, int from, int to) {
        int start = nameStarts[e];
        int end = nameStarts[e + 1];
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
