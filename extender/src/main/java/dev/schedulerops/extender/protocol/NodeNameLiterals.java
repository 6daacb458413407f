package dev.schedulerops.extender.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;

/**
 * The {@code NodeNames} array of a names-only request as byte ranges of its string literals, found without creating a
 * {@link String} per name. Names are looked up in the node cache by their bytes and copied into replies as they are;
 * only a name written with escape sequences (never the case for real node names) is decoded.
 *
 * @param ranges for name {@code i}, {@code [2i, 2i+1)} is its literal in the body, quotes included
 * @param escaped the names whose literal contains a backslash escape, or null when none does
 */
record NodeNameLiterals(int[] ranges, BitSet escaped) {
    private static final JsonFactory JSON = new JsonFactory();

    /**
     * Scans the array that opens at {@code body[open]} and closes just before {@code end} (the decoder passes the
     * offset past its closing bracket). Jackson has already checked that the array is well-formed JSON, so this only
     * has to check that every element is a string.
     */
    static NodeNameLiterals scan(byte[] body, int open, int end) throws BadRequestException {
        // Sized for names of about 12 bytes each, like "node-00001", so that a typical array never regrows (one int
        // per 3 bytes of the array, two per name).
        int[] ranges = new int[Math.max(16, (end - open) / 6)];
        int count = 0;
        BitSet escaped = null;
        int i = skipWhitespace(body, open + 1, end);
        if (i < end && body[i] == ']') {
            return new NodeNameLiterals(new int[0], null);
        }
        while (true) {
            if (i >= end || body[i] != '"') {
                throw notStrings();
            }
            int start = i++;
            boolean hasEscape = false;
            while (i < end && body[i] != '"') {
                if (body[i] == '\\') {
                    hasEscape = true;
                    i++;
                }
                i++;
            }
            if (i >= end) {
                throw notStrings();
            }
            i++;
            if (2 * count + 2 > ranges.length) {
                ranges = java.util.Arrays.copyOf(ranges, ranges.length * 2);
            }
            if (hasEscape) {
                if (escaped == null) {
                    escaped = new BitSet();
                }
                escaped.set(count);
            }
            ranges[2 * count] = start;
            ranges[2 * count + 1] = i;
            count++;
            i = skipWhitespace(body, i, end);
            if (i < end && body[i] == ']') {
                return new NodeNameLiterals(java.util.Arrays.copyOf(ranges, 2 * count), escaped);
            }
            if (i >= end || body[i] != ',') {
                throw notStrings();
            }
            i = skipWhitespace(body, i + 1, end);
        }
    }

    /** The string a JSON string literal {@code body[from, to)} (quotes included) stands for. */
    static String decode(byte[] body, int from, int to, boolean escaped) {
        if (!escaped) {
            return new String(body, from + 1, to - from - 2, StandardCharsets.UTF_8);
        }
        try (JsonParser p = JSON.createParser(body, from, to - from)) {
            p.nextToken();
            return p.getText();
        } catch (IOException e) {
            throw new IllegalStateException("a literal Jackson has already read cannot be malformed", e);
        }
    }

    static BadRequestException notStrings() {
        return new BadRequestException("\"NodeNames\" must be an array of strings or null");
    }

    private static int skipWhitespace(byte[] body, int i, int end) {
        while (i < end && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t')) {
            i++;
        }
        return i;
    }
}
