package dev.schedulerops.extender.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;

/**
 * The fast path of names-only requests, the shape kube-scheduler sends a {@code nodeCacheCapable} extender:
 * {@code {"Pod":{...},"Nodes":null,"NodeNames":["n1",...]}}. One pass over the name array checks its syntax, finds
 * every name and computes its {@link NameHash} eight bytes at a time, so the node cache can look names up without
 * reading them again; the pod, a few KB at most, is read by Jackson.
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
    private PodRef pod;
    private boolean nodesSeen;
    private int[] ranges;
    private int[] hashes;
    private int count;

    private NamesOnlyScanner(byte[] body) {
        this.body = body;
    }

    /** The arguments of a plain names-only request, or null for any other body (the general decoder reads it). */
    static ExtenderArgs scan(byte[] body) {
        NamesOnlyScanner scanner = new NamesOnlyScanner(body);
        if (scanner.request() != body.length || scanner.pod == null || scanner.ranges == null) {
            return null;
        }
        int[] names = Arrays.copyOf(scanner.ranges, 2 * scanner.count);
        return new ExtenderArgs(scanner.pod, null, body, names, null, Arrays.copyOf(scanner.hashes, scanner.count));
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
        try (JsonParser p = JsonFields.openAt(body, i)) {
            JsonToken token = p.nextToken();
            if (token != JsonToken.START_OBJECT) {
                return NOT_PLAIN;
            }
            pod = JsonFields.readPod(p, token);
            return i + (int) p.currentTokenLocation().getByteOffset() + 1;
        } catch (IOException | BadRequestException e) {
            return NOT_PLAIN;
        }
    }

    /** Reads the name array that opens at {@code i}. */
    private int names(int i) {
        // Room for names of about 12 bytes, like "node-00001", so a typical array never regrows.
        int expected = Math.max(16, (body.length - i) / 12);
        ranges = new int[2 * expected];
        hashes = new int[expected];
        i = whitespace(i + 1);
        if (i < body.length && body[i] == ']') {
            return i + 1;
        }
        while (i < body.length && body[i] == '"') {
            i = name(i);
            if (i < 0) {
                return NOT_PLAIN;
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
     * Reads the string literal that opens at {@code open}, hashing its bytes on the way; returns the offset past its
     * closing quote, or NOT_PLAIN for a byte that is not printable ASCII or is a backslash.
     */
    private int name(int open) {
        int from = open + 1;
        int i = from;
        long h = 0;
        long tail = 0;
        while (true) {
            if (i + Long.BYTES <= body.length) {
                long word = NameHash.word(body, i);
                long special = special(word);
                if (special == 0) {
                    h = NameHash.mix(h, word);
                    i += Long.BYTES;
                    if (i - from > MAX_NAME_BYTES) {
                        return NOT_PLAIN;
                    }
                    continue;
                }
                int k = Long.numberOfTrailingZeros(special) >>> 3;
                if (body[i + k] != '"') {
                    return NOT_PLAIN;
                }
                tail = NameHash.tail(word, k);
                i += k;
                break;
            }
            // The last few bytes of the body: one at a time.
            int shift = 0;
            while (i < body.length && body[i] != '"') {
                if (body[i] < 0x20 || body[i] == '\\') {
                    return NOT_PLAIN;
                }
                tail |= (body[i++] & 0xffL) << shift;
                shift += 8;
            }
            if (i >= body.length || shift == 64) {
                return NOT_PLAIN;
            }
            break;
        }
        add(open, i + 1, NameHash.finish(h, tail, i - from));
        return i + 1;
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

    private void add(int from, int to, int hash) {
        if (count == hashes.length) {
            ranges = Arrays.copyOf(ranges, 4 * count);
            hashes = Arrays.copyOf(hashes, 2 * count);
        }
        ranges[2 * count] = from;
        ranges[2 * count + 1] = to;
        hashes[count++] = hash;
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
