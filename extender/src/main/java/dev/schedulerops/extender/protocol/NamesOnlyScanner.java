package dev.schedulerops.extender.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;

/**
 * The fast path of names-only requests, the shape kube-scheduler sends a {@code nodeCacheCapable} extender:
 * {@code {"Pod":{...},"Nodes":null,"NodeNames":["n1",...]}}. One pass over the name array, eight bytes at a time,
 * checks its syntax and finds every name; the pod, a few KB at most, is read by Jackson. It allocates one array, the
 * names' ranges, which it hands over untrimmed.
 *
 * <p>It recognises, it never judges: anything else (other keys, names with escapes, control characters or non-ASCII
 * bytes, duplicate keys, a non-null {@code Nodes}, an error anywhere) makes {@link #scan} return null, and the general
 * decoder reads the body and gives the answer or the error. So both paths agree on every body by construction: this
 * one only accepts bodies that are valid JSON and that the general decoder reads to the same arguments, which
 * {@code NamesOnlyScannerTest} checks against it on generated bodies.
 */
final class NamesOnlyScanner {
    private static final int NOT_PLAIN = -1;
    /** Node names have at most 253 bytes; longer strings are left to the general decoder and its limits. */
    private static final int MAX_NAME_BYTES = 4096;

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;

    private final byte[] body;
    private final int[] reusableRanges;
    private PodRef pod;
    private boolean nodesSeen;
    private int[] ranges;
    private int count;

    private NamesOnlyScanner(byte[] body, int[] reusableRanges) {
        this.body = body;
        this.reusableRanges = reusableRanges;
    }

    /** The arguments of a plain names-only request, or null for any other body (the general decoder reads it). */
    static ExtenderArgs scan(byte[] body) {
        return scan(body, new int[0]);
    }

    /** The same, filling {@code reusableRanges} instead of a new array if it is large enough. */
    static ExtenderArgs scan(byte[] body, int[] reusableRanges) {
        NamesOnlyScanner scanner = new NamesOnlyScanner(body, reusableRanges);
        if (scanner.request() != body.length || scanner.pod == null || scanner.ranges == null) {
            return null;
        }
        return new ExtenderArgs(scanner.pod, null, body, scanner.ranges, scanner.count, null);
    }

    /** Reads the request object; returns the offset past it and its trailing whitespace, or NOT_PLAIN. */
    private int request() {
        int i = whitespace(0);
        if (i >= body.length || body[i] != '{') {
            return NOT_PLAIN;
        }
        i = whitespace(i + 1);
        while (i >= 0 && i < body.length && body[i] == '"') {
            int keyEnd = plainKeyEnd(i + 1);
            if (keyEnd < 0) {
                return NOT_PLAIN;
            }
            int colon = whitespace(keyEnd + 1);
            if (colon >= body.length || body[colon] != ':') {
                return NOT_PLAIN;
            }
            i = whitespace(value(i + 1, keyEnd, whitespace(colon + 1)));
            if (i < 0 || i >= body.length) {
                return NOT_PLAIN;
            }
            if (body[i] == '}') {
                return whitespace(i + 1);
            }
            i = body[i] == ',' ? whitespace(i + 1) : NOT_PLAIN;
        }
        return NOT_PLAIN;
    }

    /** Reads the value of key {@code body[keyFrom, keyTo)} at {@code i}; returns the offset past it, or NOT_PLAIN. */
    private int value(int keyFrom, int keyTo, int i) {
        if (isKey("pod", keyFrom, keyTo) && pod == null) {
            return pod(i);
        }
        if (isKey("nodes", keyFrom, keyTo) && !nodesSeen && isNull(i)) {
            nodesSeen = true;
            return i + 4;
        }
        if (isKey("nodenames", keyFrom, keyTo) && ranges == null && i < body.length && body[i] == '[') {
            return names(i);
        }
        return NOT_PLAIN;
    }

    private int pod(int i) {
        // Checked here, not by Jackson: a parser that starts mid-body would skip a byte order mark there.
        if (i >= body.length || body[i] != '{') {
            return NOT_PLAIN;
        }
        try (JsonParser p = JsonFields.openAt(body, i)) {
            JsonToken token = p.nextToken();
            if (token != JsonToken.START_OBJECT) {
                return NOT_PLAIN;
            }
            pod = JsonFields.readPod(p, token);
            long end = p.currentTokenLocation().getByteOffset();
            // No byte offset: Jackson took the bytes for another encoding than UTF-8.
            return end < 0 ? NOT_PLAIN : i + (int) end + 1;
        } catch (IOException | BadRequestException e) {
            return NOT_PLAIN;
        }
    }

    /** Reads the name array that opens at {@code i}. */
    private int names(int i) {
        // Room for names of about 12 bytes, like "node-00001", so a typical array never regrows.
        int room = 2 * Math.max(16, (body.length - i) / 12);
        ranges = reusableRanges.length >= room ? reusableRanges : new int[room];
        i = whitespace(i + 1);
        if (i < body.length && body[i] == ']') {
            return i + 1;
        }
        while (i < body.length && body[i] == '"') {
            int close = closingQuote(i + 1);
            if (close < 0) {
                return NOT_PLAIN;
            }
            add(i, close + 1);
            i = close + 1;
            // What encoding/json writes between two names, checked first.
            if (i + 1 < body.length && body[i] == ',' && body[i + 1] == '"') {
                i++;
                continue;
            }
            i = whitespace(i);
            if (i >= body.length) {
                return NOT_PLAIN;
            }
            if (body[i] == ']') {
                return i + 1;
            }
            i = body[i] == ',' ? whitespace(i + 1) : NOT_PLAIN;
            if (i < 0) {
                return NOT_PLAIN;
            }
        }
        return NOT_PLAIN;
    }

    /**
     * The offset of the quote that closes the string literal whose characters start at {@code from}, or NOT_PLAIN
     * for a byte before it that is not printable ASCII or is a backslash.
     */
    private int closingQuote(int from) {
        int i = from;
        for (; i + Long.BYTES <= body.length; i += Long.BYTES) {
            long special = special(NameHash.word(body, i));
            if (special != 0) {
                int quote = i + (Long.numberOfTrailingZeros(special) >>> 3);
                return body[quote] == '"' ? quote : NOT_PLAIN;
            }
            if (i - from > MAX_NAME_BYTES) {
                return NOT_PLAIN;
            }
        }
        // The last few bytes of the body: one at a time.
        for (; i < body.length; i++) {
            if (body[i] == '"') {
                return i;
            }
            if (body[i] < 0x20 || body[i] == '\\') {
                return NOT_PLAIN;
            }
        }
        return NOT_PLAIN;
    }

    /**
     * The high bit of each byte of {@code word} that is a quote, a backslash, below 0x20 or above 0x7F (the checks of
     * "Bit Twiddling Hacks"). Bytes above a flagged byte may be flagged falsely; the lowest flagged byte is exact.
     */
    private static long special(long word) {
        long quote = word ^ QUOTES;
        long backslash = word ^ BACKSLASHES;
        return (((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash) | ((word - SPACES) & ~word) | word)
                & HIGHS;
    }

    private void add(int from, int to) {
        if (2 * count == ranges.length) {
            ranges = Arrays.copyOf(ranges, 4 * count);
        }
        ranges[2 * count] = from;
        ranges[2 * count + 1] = to;
        count++;
    }

    /** The end of a key with no escapes and only ASCII letters (every key of ExtenderArgs), or NOT_PLAIN. */
    private int plainKeyEnd(int i) {
        while (i < body.length && body[i] != '"') {
            byte c = body[i++];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
                return NOT_PLAIN;
            }
        }
        return i < body.length ? i : NOT_PLAIN;
    }

    /** Whether {@code body[from, to)} is {@code lowerCase} ignoring ASCII case, as Go matches JSON keys. */
    private boolean isKey(String lowerCase, int from, int to) {
        if (to - from != lowerCase.length()) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if ((body[i] | 0x20) != lowerCase.charAt(i - from)) {
                return false;
            }
        }
        return true;
    }

    private boolean isNull(int i) {
        return i + 4 <= body.length && body[i] == 'n' && body[i + 1] == 'u' && body[i + 2] == 'l' && body[i + 3] == 'l';
    }

    private int whitespace(int i) {
        if (i < 0) {
            return i;
        }
        while (i < body.length && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t')) {
            i++;
        }
        return i;
    }
}
