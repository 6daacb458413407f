package dev.schedulerops.extender.protocol;

/**
 * A validating reader of JSON text in {@code body[0, end)} that builds nothing: it finds where values, strings and keys
 * end, eight bytes at a time inside strings, and checks their syntax on the way. For the fast paths, which recognise
 * and never judge, so it is stricter than Jackson, never laxer: it takes only RFC 8259 JSON in well-formed UTF-8
 * (no overlong forms, no surrogates), nested at most {@link #MAX_DEPTH} deep, with keys of at most
 * {@link #MAX_KEY_BYTES} bytes and numbers of at most {@link #MAX_NUMBER_CHARS} characters. Anything else, or anything
 * it cannot judge, reads as {@link #NOT_PLAIN}, and the caller leaves the body to Jackson, which gives the answer or
 * the error.
 */
final class StrictJson {
    /** What every reader here returns for text it does not take. */
    static final int NOT_PLAIN = -1;

    static final int MAX_DEPTH = 62;
    static final int MAX_KEY_BYTES = 4096;
    static final int MAX_NUMBER_CHARS = 100;

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;

    final byte[] body;
    final int end;
    /** Whether the last string {@link #stringEnd} read had an escape sequence. */
    boolean escaped;

    StrictJson(byte[] body, int end) {
        this.body = body;
        this.end = end;
    }

    /** The offset of the first byte at or after {@code i} that is not JSON whitespace. */
    int whitespace(int i) {
        if (i < 0) {
            return i;
        }
        while (i < end) {
            byte c = body[i];
            if (c > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t')) {
                return i;
            }
            i++;
        }
        return i;
    }

    /** Whether {@code body[i]} is {@code c}. */
    boolean at(int i, char c) {
        return i >= 0 && i < end && body[i] == c;
    }

    /**
     * The offset past the string literal whose opening quote is at {@code i}, or NOT_PLAIN; sets {@link #escaped}.
     */
    int stringEnd(int i) {
        if (!at(i, '"')) {
            return NOT_PLAIN;
        }
        escaped = false;
        i++;
        while (true) {
            while (i + Long.BYTES <= end) {
                long special = special(NameHash.word(body, i));
                if (special != 0) {
                    i += Long.numberOfTrailingZeros(special) >>> 3;
                    break;
                }
                i += Long.BYTES;
            }
            if (i >= end) {
                return NOT_PLAIN;
            }
            byte c = body[i];
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\') {
                escaped = true;
                i = escapeEnd(i + 1);
            } else if (c < 0) {
                i = utf8End(i);
            } else if (c < 0x20) {
                return NOT_PLAIN;
            } else {
                i++; // the last bytes of the body, read one at a time
            }
            if (i < 0) {
                return NOT_PLAIN;
            }
        }
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

    /** The offset past the escape sequence whose character after the backslash is at {@code i}. */
    private int escapeEnd(int i) {
        if (i >= end) {
            return NOT_PLAIN;
        }
        switch (body[i]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                return i + 1;
            }
            case 'u' -> {
                if (i + 5 > end) {
                    return NOT_PLAIN;
                }
                int unit = 0;
                for (int k = i + 1; k < i + 5; k++) {
                    int digit = Character.digit(body[k], 16);
                    if (digit < 0) {
                        return NOT_PLAIN;
                    }
                    unit = unit << 4 | digit;
                }
                // Surrogates are left to the general decoder: whether a pair is whole, and whether a lone one is
                // refused, differs between keys and values there (FullNodesScannerTest found one).
                return Character.isSurrogate((char) unit) ? NOT_PLAIN : i + 5;
            }
            default -> {
                return NOT_PLAIN;
            }
        }
    }

    /** The offset past the well-formed UTF-8 sequence of two to four bytes that starts at {@code i}. */
    private int utf8End(int i) {
        int lead = body[i] & 0xff;
        int length;
        int low = 0x80;
        int high = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            if (lead == 0xE0) {
                low = 0xA0; // not overlong
            } else if (lead == 0xED) {
                high = 0x9F; // not a surrogate
            }
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            if (lead == 0xF0) {
                low = 0x90;
            } else if (lead == 0xF4) {
                high = 0x8F; // at most U+10FFFF
            }
        } else {
            return NOT_PLAIN;
        }
        if (i + length > end) {
            return NOT_PLAIN;
        }
        int second = body[i + 1] & 0xff;
        if (second < low || second > high) {
            return NOT_PLAIN;
        }
        for (int k = i + 2; k < i + length; k++) {
            if ((body[k] & 0xC0) != 0x80) {
                return NOT_PLAIN;
            }
        }
        return i + length;
    }

    /**
     * Reads a key and its colon at {@code i}: returns the offset of its value (past the whitespace after the colon),
     * or NOT_PLAIN. The key's literal is {@code body[i, keyEnd)}, with {@code keyEnd} the offset of the colon's
     * whitespace; callers that need it use {@link #stringEnd} themselves.
     */
    int afterKey(int i) {
        int keyEnd = stringEnd(i);
        if (keyEnd < 0 || keyEnd - i - 2 > MAX_KEY_BYTES) {
            return NOT_PLAIN;
        }
        return afterColon(keyEnd);
    }

    /** The offset of the value after the colon that follows {@code i} (whitespace allowed around it), or NOT_PLAIN. */
    int afterColon(int i) {
        i = whitespace(i);
        return at(i, ':') ? whitespace(i + 1) : NOT_PLAIN;
    }

    /**
     * The offset past the value that starts at {@code i}, or NOT_PLAIN. Containers are followed with a stack of one
     * bit a level (set: an object), so deep nesting costs no recursion.
     */
    int valueEnd(int i) {
        long objects = 0;
        int depth = 0;
        while (true) {
            // A value starts at i.
            if (i < 0 || i >= end) {
                return NOT_PLAIN;
            }
            byte c = body[i];
            if (c == '"') {
                i = stringEnd(i);
            } else if (c == '{' || c == '[') {
                if (depth == MAX_DEPTH) {
                    return NOT_PLAIN;
                }
                boolean object = c == '{';
                objects = object ? objects | (1L << depth) : objects & ~(1L << depth);
                depth++;
                i = whitespace(i + 1);
                if (at(i, object ? '}' : ']')) {
                    depth--;
                    i++;
                } else {
                    if (object) {
                        i = afterKey(i);
                    }
                    continue;
                }
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                i = numberEnd(i);
            } else if (c == 't') {
                i = literalEnd(i, "true");
            } else if (c == 'f') {
                i = literalEnd(i, "false");
            } else if (c == 'n') {
                i = literalEnd(i, "null");
            } else {
                return NOT_PLAIN;
            }
            // A value ended at i: close the containers it completes, up to the next value.
            while (true) {
                if (i < 0) {
                    return NOT_PLAIN;
                }
                if (depth == 0) {
                    return i;
                }
                i = whitespace(i);
                if (i >= end) {
                    return NOT_PLAIN;
                }
                boolean object = (objects & (1L << (depth - 1))) != 0;
                c = body[i];
                if (c == ',') {
                    i = whitespace(i + 1);
                    if (object) {
                        i = afterKey(i);
                    }
                    break;
                }
                if (c != (object ? '}' : ']')) {
                    return NOT_PLAIN;
                }
                depth--;
                i++;
            }
        }
    }

    /** The offset past the number at {@code i}: {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}. */
    private int numberEnd(int start) {
        int i = start;
        if (body[i] == '-') {
            i++;
        }
        if (i >= end) {
            return NOT_PLAIN;
        }
        if (body[i] == '0') {
            i++;
        } else {
            i = digitsEnd(i);
        }
        if (i > 0 && i < end && body[i] == '.') {
            i = digitsEnd(i + 1);
        }
        if (i > 0 && i < end && (body[i] == 'e' || body[i] == 'E')) {
            i++;
            if (i < end && (body[i] == '+' || body[i] == '-')) {
                i++;
            }
            i = digitsEnd(i);
        }
        return i < 0 || i - start > MAX_NUMBER_CHARS ? NOT_PLAIN : i;
    }

    /** The offset past one or more digits at {@code i}, or NOT_PLAIN when there is none. */
    private int digitsEnd(int i) {
        int from = i;
        while (i < end && body[i] >= '0' && body[i] <= '9') {
            i++;
        }
        return i > from ? i : NOT_PLAIN;
    }

    private int literalEnd(int i, String literal) {
        if (i + literal.length() > end) {
            return NOT_PLAIN;
        }
        for (int k = 0; k < literal.length(); k++) {
            if (body[i + k] != literal.charAt(k)) {
                return NOT_PLAIN;
            }
        }
        return i + literal.length();
    }

    /** Whether the value at {@code i} is the literal {@code null} (what follows it is checked by the caller). */
    boolean isNull(int i) {
        return i >= 0 && literalEnd(i, "null") > 0;
    }

    /**
     * Whether the key literal {@code body[from, to)} (quotes included) is {@code lowerCase} ignoring ASCII case, as Go
     * matches JSON keys. A key with escapes or non-ASCII bytes never is: such a key makes the caller's body not
     * plain, see {@link #plainKey}.
     */
    boolean isKey(String lowerCase, int from, int to) {
        if (to - from - 2 != lowerCase.length()) {
            return false;
        }
        for (int i = from + 1; i < to - 1; i++) {
            if ((body[i] | 0x20) != lowerCase.charAt(i - from - 1)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the key literal {@code body[from, to)} is printable ASCII without escapes, and not longer than
     * {@link #MAX_KEY_BYTES}. Keys the decoders match
     * ignoring case must be: Java's {@code equalsIgnoreCase} also folds some non-ASCII letters ({@code ſ} for
     * {@code s}, the Kelvin sign for {@code k}), and an escape could spell a key.
     */
    boolean plainKey(int from, int to) {
        if (to - from - 2 > MAX_KEY_BYTES) {
            return false;
        }
        for (int i = from + 1; i < to - 1; i++) {
            if (body[i] < 0x20 || body[i] == '\\') {
                return false;
            }
        }
        return true;
    }
}
