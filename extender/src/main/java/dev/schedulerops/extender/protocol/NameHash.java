package dev.schedulerops.extender.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The hash of a node name's UTF-8 bytes, shared by the node cache's index and the request scanner that computes it
 * while it reads a name. Eight bytes at a time: every full word of the name in turn, then the last 0 to 7 bytes as a
 * little-endian word together with the length. A scanner that reads the name word by word gets the same value from
 * {@link #mix}, {@link #tail} and {@link #finish} without reading a byte twice.
 */
public final class NameHash {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long M1 = 0x9E3779B97F4A7C15L;
    private static final long M2 = 0xD6E8FEB86659FD93L;

    private NameHash() {}

    /** The hash of {@code bytes[from, to)}. */
    public static int of(byte[] bytes, int from, int to) {
        long h = 0;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            h = mix(h, word(bytes, i));
        }
        long tail = 0;
        for (int shift = 0; i < to; i++, shift += 8) {
            tail |= (bytes[i] & 0xffL) << shift;
        }
        return finish(h, tail, to - from);
    }

    /** The eight bytes at {@code bytes[i]}, the first one lowest. */
    public static long word(byte[] bytes, int i) {
        return (long) LONGS.get(bytes, i);
    }

    /** Folds one full word of the name into the running hash. */
    public static long mix(long h, long word) {
        return (h ^ word) * M1;
    }

    /** The first {@code count} (0 to 7) bytes of {@code word}: the part of the last word that belongs to the name. */
    public static long tail(long word, int count) {
        return word & ((1L << (count << 3)) - 1);
    }

    /** The hash of a name of {@code length} bytes from its running hash and its last, partial word. */
    public static int finish(long h, long tail, int length) {
        h = (h ^ tail ^ ((long) length << 56)) * M1;
        h ^= h >>> 32;
        h *= M2;
        return (int) (h ^ (h >>> 32));
    }
}
