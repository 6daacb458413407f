package dev.schedulerops.operator.validation;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Renders values the way kube-scheduler's field errors print them: strings quoted, numbers bare, lists as JSON. */
final class GoValues {

    private GoValues() {}

    static String format(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String string) {
            return quote(string);
        }
        if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
            BigDecimal decimal = new BigDecimal(value.toString()).stripTrailingZeros();
            return decimal.scale() <= 0 ? decimal.toBigInteger().toString() : decimal.toPlainString();
        }
        if (value instanceof List<?> list) {
            StringBuilder out = new StringBuilder("[");
            for (int i = 0; i < list.size(); i++) {
                out.append(i == 0 ? "" : ",").append(format(list.get(i)));
            }
            return out.append(']').toString();
        }
        if (value instanceof Map<?, ?> map) {
            StringBuilder out = new StringBuilder("{");
            Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
            while (entries.hasNext()) {
                Map.Entry<?, ?> entry = entries.next();
                out.append(quote(String.valueOf(entry.getKey()))).append(':').append(format(entry.getValue()));
                if (entries.hasNext()) {
                    out.append(',');
                }
            }
            return out.append('}').toString();
        }
        return value.toString();
    }

    /** Values in messages are cut after this many characters: a message must stay readable whatever was sent. */
    static final int MAX_SHOWN = 120;

    /**
     * {@link #format}, cut to {@value #MAX_SHOWN} characters with the full length noted: a 10 000-character label key
     * is reported, not echoed (found by ProfileFuzzTest).
     */
    static String shown(Object value) {
        String formatted = format(value);
        if (formatted.length() <= MAX_SHOWN) {
            return formatted;
        }
        return formatted.substring(0, MAX_SHOWN) + "... (" + formatted.length() + " characters)";
    }

    /** Like Go's {@code strconv.Quote} for the printable ASCII and common escapes. */
    static String quote(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** The API server's message for a list or map above its maxItems or maxProperties. */
    static String tooMany(String path, int count, int max, String unit) {
        return path + ": Too many: " + count + ": must have at most " + max + " " + unit;
    }
}
