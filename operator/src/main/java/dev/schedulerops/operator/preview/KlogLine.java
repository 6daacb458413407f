package dev.schedulerops.operator.preview;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One line of a Kubernetes component's text log (klog's structured format), e.g.
 *
 * <pre>
 * I1127 21:53:30.495792   15672 schedule_one.go:782] "Plugin scored node for pod" pod="default/p1" plugin="TaintToleration" node="node-1" score=300
 * </pre>
 *
 * @param message the quoted message
 * @param values the key=value pairs after it, strings unquoted
 */
record KlogLine(String message, Map<String, String> values) {

    /** The line's message and values, or empty for a line of another shape (a continuation, a header-less line). */
    static Optional<KlogLine> parse(String line) {
        int end = line.indexOf("] \"");
        if (end < 0 || line.isEmpty() || "IWEF".indexOf(line.charAt(0)) < 0) {
            return Optional.empty();
        }
        Cursor cursor = new Cursor(line, end + 2);
        String message = cursor.quoted();
        if (message == null) {
            return Optional.empty();
        }
        Map<String, String> values = new LinkedHashMap<>();
        while (cursor.skipSpaces()) {
            String key = cursor.key();
            if (key == null) {
                break;
            }
            String value = cursor.peek() == '"' ? cursor.quoted() : cursor.bare();
            if (value == null) {
                break;
            }
            values.put(key, value);
        }
        return Optional.of(new KlogLine(message, values));
    }

    String value(String key) {
        return values.get(key);
    }

    long number(String key) {
        return Long.parseLong(values.get(key));
    }

    private static final class Cursor {
        private final String text;
        private int at;

        Cursor(String text, int at) {
            this.text = text;
            this.at = at;
        }

        char peek() {
            return at < text.length() ? text.charAt(at) : 0;
        }

        boolean skipSpaces() {
            while (at < text.length() && text.charAt(at) == ' ') {
                at++;
            }
            return at < text.length();
        }

        String key() {
            int eq = text.indexOf('=', at);
            if (eq <= at) {
                return null;
            }
            String key = text.substring(at, eq);
            if (key.indexOf(' ') >= 0) {
                return null;
            }
            at = eq + 1;
            return key;
        }

        String bare() {
            int start = at;
            while (at < text.length() && text.charAt(at) != ' ') {
                at++;
            }
            return text.substring(start, at);
        }

        /** A Go-quoted string (%q): the common escapes are undone. */
        String quoted() {
            if (peek() != '"') {
                return null;
            }
            StringBuilder out = new StringBuilder();
            at++;
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c == '\\' && at < text.length()) {
                    char e = text.charAt(at++);
                    switch (e) {
                        case 'n' -> out.append('\n');
                        case 't' -> out.append('\t');
                        default -> out.append(e);
                    }
                } else {
                    out.append(c);
                }
            }
            return null;
        }
    }
}
