package dev.schedulerops.extender.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The hash of a node name's UTF-8 bytes, by which the node cache's index finds a name as it lies in a request body.
 * Node names are mostly 8 to 16 bytes long ({@code node-00042}, {@code ip-10-0-3-17}); such a name is hashed from two
 * overlapping eight-byte reads, its first and its last eight bytes, with no loop. A longer name also folds in every
 * full word before its last eight bytes; a shorter one is its bytes as one zero-padded word.
 */
public final class NameHash {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long M1 = 0x9E3779B97F4A7C15L;
    private static final long M2 = 0xC2B2AE3D27D4EB4FL;

    private NameHash() {}

    /** The hash of {@code bytes[from, to)}. */
    public static int of(byte[] bytes, int from, int to) {
        int length = to - from;
        long h;
        if (length >= Long.BYTES && length <= 2 * Long.BYTES) {
            h = word(bytes, from) ^ Long.rotateRight(word(bytes, to - Long.BYTES), 32);
        } else if (length < Long.BYTES) {
            h = shortName(bytes, from, length);
        } else {
            h = 0;
            for (int i = from; i < to - Long.BYTES; i += Long.BYTES) {
                h = (h ^ word(bytes, i)) * M1;
            }
            h ^= Long.rotateRight(word(bytes, to - Long.BYTES), 32);
        }
        return finish(h, length);
    }

    /** The eight bytes at {@code bytes[i]}, the first one lowest. */
    public static long word(byte[] bytes, int i) {
        return (long) LONGS.get(bytes, i);
    }

    /** The {@code length} (0 to 7) bytes at {@code bytes[from]} as a word, zero above them. */
    private static long shortName(byte[] bytes, int from, int length) {
        if (from + Long.BYTES <= bytes.length) {
            return word(bytes, from) & ((1L << (length << 3)) - 1);
        }
        long word = 0;
        for (int k = 0; k < length; k++) {
            word |= (bytes[from + k] & 0xffL) << (k << 3);
        }
        return word;
    }

    /**
     * Multiplying carries bits only upwards: the upper half of {@code h} is first folded onto the lower, so that every
     * byte of the name reaches the bits the index takes its slot from (without it, names that differ only in a word's
     * top bytes, like {@code ip-192-168-3-17.us-west-2.compute.internal}, crowd into a few slots).
     */
    private static int finish(long h, int length) {
        h += length;
        return (int) (((h ^ (h >>> 32)) * M2) >>> 32);
    }
}
