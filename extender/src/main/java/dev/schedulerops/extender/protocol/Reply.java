package dev.schedulerops.extender.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON reply under construction. Generated JSON goes into a growing byte array; long raw runs copied from the
 * request (kept node objects) are referenced, not copied, once they exceed {@link #REFERENCE_THRESHOLD}. The reply is
 * then a short list of byte ranges whose total length is known before the first byte is sent.
 */
public final class Reply {
    /** Raw runs at least this long are sent straight from the request body instead of being copied. */
    static final int REFERENCE_THRESHOLD = 32 * 1024;

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final List<ByteBuffer> segments = new ArrayList<>();
    private byte[] buf;
    private int start;
    private int len;
    /** Where the one segment's array goes back to once sent, for a reply from {@link #pooled}. */
    private ReplyBuffers buffers;

    public Reply() {
        this(256);
    }

    public Reply(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    /**
     * A reply written in full in {@code json[0, length)}, an array taken from {@code buffers}, sent as it is. The
     * writer calls {@link #release} once it has been sent.
     */
    public static Reply pooled(byte[] json, int length, ReplyBuffers buffers) {
        Reply reply = new Reply(16);
        reply.segments.add(ByteBuffer.wrap(json, 0, length));
        reply.buffers = buffers;
        return reply;
    }

    /**
     * Gives the reply's array back to the {@link ReplyBuffers} it came from, if any: only once the reply has been
     * written in full, and nothing reads it afterwards. A reply that is never released is simply garbage collected.
     */
    public synchronized void release() {
        if (buffers != null) {
            buffers.give(segments.get(0).array());
            buffers = null;
        }
    }

    public Reply ascii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[len++] = (byte) s.charAt(i);
        }
        return this;
    }

    public Reply ch(char c) {
        ensure(1);
        buf[len++] = (byte) c;
        return this;
    }

    /** Appends bytes that are already JSON (constants encoded once). */
    public Reply bytes(byte[] json) {
        ensure(json.length);
        System.arraycopy(json, 0, buf, len, json.length);
        len += json.length;
        return this;
    }

    public Reply number(long value) {
        if (value >= 0 && value < 100) {
            ensure(2);
            if (value >= 10) {
                buf[len++] = (byte) ('0' + value / 10);
            }
            buf[len++] = (byte) ('0' + value % 10);
            return this;
        }
        return ascii(Long.toString(value));
    }

    /** Writes a JSON string literal, escaping as Go's encoding/json would need to read it back. */
    public Reply string(String s) {
        int n = s.length();
        ensure(n + 2);
        byte[] b = buf;
        int pos = len;
        b[pos++] = '"';
        int i = 0;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
                break;
            }
            b[pos++] = (byte) c;
        }
        len = pos;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                ensure(1);
                buf[len++] = (byte) c;
            } else {
                escapeOrEncode(s, i, c);
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                }
            }
        }
        ensure(1);
        buf[len++] = '"';
        return this;
    }

    private void escapeOrEncode(String s, int i, char c) {
        ensure(12);
        switch (c) {
            case '"' -> twoChars('\\', '"');
            case '\\' -> twoChars('\\', '\\');
            case '\n' -> twoChars('\\', 'n');
            case '\r' -> twoChars('\\', 'r');
            case '\t' -> twoChars('\\', 't');
            default -> {
                if (c < 0x20) {
                    unicodeEscape(c);
                } else if (Character.isHighSurrogate(c)
                        && i + 1 < s.length()
                        && Character.isLowSurrogate(s.charAt(i + 1))) {
                    byte[] utf8 = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                    System.arraycopy(utf8, 0, buf, len, utf8.length);
                    len += utf8.length;
                } else if (Character.isSurrogate(c)) {
                    unicodeEscape('\ufffd');
                } else {
                    byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                    System.arraycopy(utf8, 0, buf, len, utf8.length);
                    len += utf8.length;
                }
            }
        }
    }

    private void twoChars(char a, char b) {
        buf[len++] = (byte) a;
        buf[len++] = (byte) b;
    }

    private void unicodeEscape(char c) {
        buf[len++] = '\\';
        buf[len++] = 'u';
        buf[len++] = HEX[(c >> 12) & 0xf];
        buf[len++] = HEX[(c >> 8) & 0xf];
        buf[len++] = HEX[(c >> 4) & 0xf];
        buf[len++] = HEX[c & 0xf];
    }

    /** Appends {@code source[from, to)} verbatim, by reference when long enough. */
    public Reply raw(byte[] source, int from, int to) {
        int n = to - from;
        if (n >= REFERENCE_THRESHOLD) {
            cut();
            segments.add(ByteBuffer.wrap(source, from, n));
        } else {
            ensure(n);
            System.arraycopy(source, from, buf, len, n);
            len += n;
        }
        return this;
    }

    /** Closes the current generated segment so that a referenced one can follow it. */
    private void cut() {
        if (len > start) {
            segments.add(ByteBuffer.wrap(buf, start, len - start));
        }
        start = len;
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            int capacity = Math.max(buf.length * 2, len + extra);
            if (start > 0 && start == len) {
                // Everything before start is already referenced by a segment: start a fresh array.
                buf = new byte[capacity];
                start = 0;
                len = 0;
            } else if (start > 0) {
                byte[] next = new byte[Math.max(capacity - start, len - start + extra)];
                System.arraycopy(buf, start, next, 0, len - start);
                len -= start;
                start = 0;
                buf = next;
            } else {
                buf = java.util.Arrays.copyOf(buf, capacity);
            }
        }
    }

    /** The reply as buffers (fresh views, safe to consume), in order; their total length is {@link #length()}. */
    public List<ByteBuffer> segments() {
        cut();
        List<ByteBuffer> views = new ArrayList<>(segments.size());
        for (ByteBuffer segment : segments) {
            views.add(segment.duplicate());
        }
        return views;
    }

    public long length() {
        long total = len - start;
        for (ByteBuffer segment : segments) {
            total += segment.remaining();
        }
        return total;
    }

    public byte[] toByteArray() {
        byte[] out = new byte[(int) length()];
        int pos = 0;
        for (ByteBuffer segment : segments()) {
            int n = segment.remaining();
            segment.get(out, pos, n);
            pos += n;
        }
        return out;
    }

    @Override
    public String toString() {
        return new String(toByteArray(), StandardCharsets.UTF_8);
    }
}
