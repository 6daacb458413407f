package dev.schedulerops.extender.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generated request bodies for the extender: the committed protocol fixtures mutated (truncated, bytes flipped,
 * values replaced by wrong types, keys duplicated or re-cased, invalid UTF-8 spliced in), JSON built from the
 * protocol's own vocabulary with wrong types, deep nesting, huge numbers and strings, other encodings, and plain
 * random bytes.
 */
public final class HostileJson {
    private HostileJson() {}

    /** Every {@code *.request.json} under the fixtures, as bytes. */
    public static final List<byte[]> FIXTURES = loadFixtures();

    private static final String[] KEYS = {
        "Pod",
        "pod",
        "POD",
        "Nodes",
        "nodes",
        "NodeNames",
        "nodenames",
        "items",
        "metadata",
        "labels",
        "name",
        "namespace",
        "uid",
        "priority.lixueduan.com",
        "PodName",
        "PodNamespace",
        "PodUID",
        "Node",
        "node",
        "NodeNameToVictims",
        "NodeNameToMetaVictims",
        "Pods",
        "UID",
        "NumPDBViolations",
        "spec",
        "status",
        "",
        "\u0000",
        "ключ",
        "\uD83D\uDE00"
    };

    /** Values that are valid JSON but a wrong or extreme type wherever they land. */
    private static final String[] WRONG_VALUES = {
        "null",
        "true",
        "false",
        "0",
        "-0",
        "-1",
        "1e999999",
        "-1e-999999",
        "1.7976931348623157e309",
        "123456789012345678901234567890123456789012345678901234567890",
        "[]",
        "{}",
        "[null]",
        "[{}]",
        "[[]]",
        "{\"\":null}",
        "\"\"",
        "\" \"",
        "\"\\u0000\"",
        "\"\\ud800\"",
        "\"\\udc00\\ud800\"",
        "\"\\uffff\"",
        "\"n1\"",
        "[\"n1\",\"n1\"]",
        "[\"n1\",1]",
        "{\"n1\":null}",
        "{\"n1\":{\"Pods\":null}}",
        "{\"n1\":{\"Pods\":[{\"UID\":1}]}}",
        "{\"items\":null}",
        "{\"items\":[null]}",
        "{\"items\":[1]}",
        "{\"items\":[{\"metadata\":null}]}",
        "{\"items\":[{\"metadata\":{\"labels\":[]}}]}",
        "{\"items\":[{\"metadata\":{\"name\":null,\"labels\":{\"priority.lixueduan.com\":7}}}]}"
    };

    /** Byte sequences that are not UTF-8, or not the UTF-8 Jackson expects (overlong, surrogates, BOMs). */
    private static final byte[][] BAD_BYTES = {
        {(byte) 0xC3, 0x28},
        {(byte) 0xFF},
        {(byte) 0xFE, (byte) 0xFF},
        {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
        {(byte) 0xC0, (byte) 0x80},
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
        {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
        {(byte) 0xE2, (byte) 0x82},
        {0},
        {0, 0, 0},
        {(byte) 0x80},
        {'\\'},
        {'"'},
        {'\\', 'u'},
        {'\\', 'u', 'd', '8', '0', '0'}
    };

    /** Any hostile body. */
    public static Arbitrary<byte[]> bodies() {
        return Arbitraries.frequencyOf(
                Tuple.of(5, mutatedFixtures()),
                Tuple.of(2, validLooking()),
                Tuple.of(3, generated()),
                Tuple.of(1, deepNesting()),
                Tuple.of(1, hugeValues()),
                Tuple.of(1, otherEncodings()),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(512)));
    }

    /** A fixture as committed, or with its keys re-cased, a field duplicated or blanks added: mostly still valid. */
    static Arbitrary<byte[]> validLooking() {
        Arbitrary<Double> at = Arbitraries.doubles().between(0, 1);
        Arbitrary<Mutation> light = Arbitraries.oneOf(
                Arbitraries.just(body -> body),
                at.map(f -> body -> recaseKey(body, f)),
                at.map(f -> body -> duplicateKey(body, f, "x", "1")),
                Arbitraries.of(" ", "\n", "\t\r\n ")
                        .map(ws -> body -> concat(body, ws.getBytes(StandardCharsets.UTF_8))));
        return Combinators.combine(Arbitraries.of(FIXTURES), light).as((body, m) -> m.apply(body));
    }

    /** A fixture with one to four mutations applied. */
    static Arbitrary<byte[]> mutatedFixtures() {
        Arbitrary<byte[]> fixture = Arbitraries.of(FIXTURES);
        Arbitrary<List<Mutation>> mutations = mutation().list().ofMinSize(1).ofMaxSize(4);
        return Combinators.combine(fixture, mutations).as((body, list) -> {
            byte[] out = body;
            for (Mutation m : list) {
                out = m.apply(out);
            }
            return out;
        });
    }

    /** One edit of a body; positions are fractions of its length so they apply to any body. */
    interface Mutation {
        byte[] apply(byte[] body);
    }

    private static Arbitrary<Mutation> mutation() {
        Arbitrary<Double> at = Arbitraries.doubles().between(0, 1);
        return Arbitraries.oneOf(
                at.map(f -> body -> truncate(body, f)),
                Combinators.combine(at, Arbitraries.bytes()).as((f, b) -> body -> setByte(body, f, b)),
                Combinators.combine(at, Arbitraries.of(BAD_BYTES)).as((f, b) -> body -> insert(body, f, b)),
                Combinators.combine(at, Arbitraries.of(WRONG_VALUES))
                        .as((f, v) -> body -> replaceValue(body, f, v.getBytes(StandardCharsets.UTF_8))),
                Combinators.combine(at, Arbitraries.of(KEYS), Arbitraries.of(WRONG_VALUES))
                        .as((f, k, v) -> body -> duplicateKey(body, f, k, v)),
                at.map(f -> body -> recaseKey(body, f)),
                Combinators.combine(at, Arbitraries.integers().between(1, 64))
                        .as((f, n) -> body -> deleteRange(body, f, n)),
                Combinators.combine(at, Arbitraries.integers().between(1, 8))
                        .as((f, n) -> body -> repeatRange(body, f, n)),
                Arbitraries.of(" ", "\n", "x", "{}", "]", "}", ",", "\u0000")
                        .map(tail -> body -> concat(body, tail.getBytes(StandardCharsets.UTF_8))));
    }

    /** JSON objects made of the protocol's keys and wrong values, nested a few levels. */
    static Arbitrary<byte[]> generated() {
        Arbitrary<String> value = Arbitraries.recursive(
                () -> Arbitraries.oneOf(
                        Arbitraries.of(WRONG_VALUES),
                        Arbitraries.strings().ofMaxLength(24).map(HostileJson::quote)),
                inner -> Arbitraries.oneOf(
                        Combinators.combine(Arbitraries.of(KEYS), inner)
                                .as((k, v) -> quote(k) + ":" + v)
                                .list()
                                .ofMaxSize(5)
                                .map(fields -> "{" + String.join(",", fields) + "}"),
                        inner.list().ofMaxSize(5).map(items -> "[" + String.join(",", items) + "]")),
                0,
                4);
        return Combinators.combine(Arbitraries.of(KEYS), value)
                .as((k, v) -> quote(k) + ":" + v)
                .list()
                .ofMaxSize(6)
                .map(fields -> ("{" + String.join(",", fields) + "}").getBytes(StandardCharsets.UTF_8));
    }

    /** Arrays or objects nested up to 100 000 deep, inside a request's fields or at its top. */
    static Arbitrary<byte[]> deepNesting() {
        return Combinators.combine(
                        logUniform(100_000),
                        Arbitraries.of("[", "{\"a\":", "{\"Pod\":"),
                        Arbitraries.of(
                                "{\"Pod\":{},\"Nodes\":{\"items\":", "{\"Pod\":", "", "{\"Pod\":{},\"NodeNames\":"),
                        Arbitraries.of(true, false))
                .as((depth, open, prefix, closed) -> {
                    StringBuilder b = new StringBuilder(prefix);
                    b.append(open.repeat(depth));
                    if (closed) {
                        String close = open.equals("[") ? "]" : "}";
                        b.append("null").append(close.repeat(depth));
                        long unclosed = prefix.chars().filter(c -> c == '{').count()
                                - prefix.chars().filter(c -> c == '}').count();
                        b.append("}".repeat((int) unclosed));
                    }
                    return b.toString().getBytes(StandardCharsets.UTF_8);
                });
    }

    /** Huge numbers, strings, label values, names and node lists in otherwise valid requests. */
    static Arbitrary<byte[]> hugeValues() {
        Arbitrary<Integer> size = logUniform(2_000_000);
        return Combinators.combine(size, Arbitraries.integers().between(0, 6)).as((n, kind) -> {
            String digits = "9".repeat(n);
            String text = "x".repeat(n);
            String json =
                    switch (kind) {
                        case 0 -> "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\",\"labels\":"
                                + "{\"priority.lixueduan.com\":\"" + digits + "\"}}}]}}";
                        case 1 -> "{\"Pod\":{\"metadata\":{\"name\":\"" + text + "\"}},\"NodeNames\":[\"" + text
                                + "\"]}";
                        case 2 -> "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"},\"x\":" + digits
                                + "}]}}";
                        case 3 -> "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"},\"x\":-" + digits
                                + ".5e" + digits + "}]}}";
                        case 4 -> "{\"Pod\":{},\"NodeNames\":[" + "\"n1\",".repeat(Math.min(n, 200_000)) + "\"n3\"]}";
                        case 5 -> "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"PodUID\":\"" + text
                                + "\",\"Node\":\"n3\"}";
                        default -> "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"" + text
                                + "\":{\"Pods\":[{\"UID\":\"u\"}]," + "\"NumPDBViolations\":" + digits + "}}}";
                    };
            return json.getBytes(StandardCharsets.UTF_8);
        });
    }

    /** A valid request in UTF-16 or UTF-32 (with and without BOM), or with NUL bytes that make Jackson guess one. */
    static Arbitrary<byte[]> otherEncodings() {
        return Combinators.combine(
                        Arbitraries.of(FIXTURES),
                        Arbitraries.of("UTF-16BE", "UTF-16LE", "UTF-16", "UTF-32BE", "UTF-32LE", "NUL-PREFIX"),
                        Arbitraries.doubles().between(0, 1))
                .as((fixture, charset, cut) -> {
                    String text = new String(fixture, StandardCharsets.UTF_8);
                    if (charset.equals("NUL-PREFIX")) {
                        return concat(new byte[] {0, 0, 0}, truncate(fixture, cut));
                    }
                    byte[] encoded = text.getBytes(java.nio.charset.Charset.forName(charset));
                    return cut < 0.5 ? truncate(encoded, cut * 2) : setByte(encoded, cut, (byte) 0xFF);
                });
    }

    /**
     * 1..max, as many values in 1..10 as in 10..100 and so on: huge values now and then, whatever the number of tries
     * (jqwik's biased distributions widen with the generation size, which grows with the tries).
     */
    public static Arbitrary<Integer> logUniform(int max) {
        return Arbitraries.integers()
                .between(0, 1000)
                .withDistribution(net.jqwik.api.RandomDistribution.uniform())
                .map(e -> (int) Math.max(1, Math.min(max, Math.pow(max, e / 1000.0))));
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static int pos(byte[] body, double f) {
        return (int) Math.min(body.length, Math.floor(f * (body.length + 1)));
    }

    static byte[] truncate(byte[] body, double f) {
        return java.util.Arrays.copyOf(body, pos(body, f));
    }

    private static byte[] setByte(byte[] body, double f, byte b) {
        if (body.length == 0) {
            return new byte[] {b};
        }
        byte[] out = body.clone();
        out[Math.min(out.length - 1, pos(body, f))] = b;
        return out;
    }

    private static byte[] insert(byte[] body, double f, byte[] bytes) {
        int at = pos(body, f);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + bytes.length);
        out.write(body, 0, at);
        out.write(bytes, 0, bytes.length);
        out.write(body, at, body.length - at);
        return out.toByteArray();
    }

    private static byte[] deleteRange(byte[] body, double f, int n) {
        int at = pos(body, f);
        int end = Math.min(body.length, at + n);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
        out.write(body, 0, at);
        out.write(body, end, body.length - end);
        return out.toByteArray();
    }

    private static byte[] repeatRange(byte[] body, double f, int times) {
        int at = pos(body, f);
        int end = Math.min(body.length, at + 32);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length * 2);
        out.write(body, 0, end);
        for (int i = 0; i < times; i++) {
            out.write(body, at, end - at);
        }
        out.write(body, end, body.length - end);
        return out.toByteArray();
    }

    /** Replaces the value after the first {@code ':'} at or after the position by {@code value}. */
    private static byte[] replaceValue(byte[] body, double f, byte[] value) {
        int colon = indexOf(body, (byte) ':', pos(body, f));
        if (colon < 0) {
            return insert(body, f, value);
        }
        int end = valueEnd(body, colon + 1);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + value.length);
        out.write(body, 0, colon + 1);
        out.write(value, 0, value.length);
        out.write(body, end, body.length - end);
        return out.toByteArray();
    }

    /** Adds {@code "key":value,} after the first {@code '{'} at or after the position: a duplicate key, often. */
    private static byte[] duplicateKey(byte[] body, double f, String key, String value) {
        int brace = indexOf(body, (byte) '{', pos(body, f));
        if (brace < 0) {
            brace = indexOf(body, (byte) '{', 0);
        }
        if (brace < 0) {
            return body;
        }
        byte[] field = (quote(key) + ":" + value + ",").getBytes(StandardCharsets.UTF_8);
        return insert(body, (brace + 1) / (double) (body.length + 1) + 1e-12, field);
    }

    /** Flips the case of the first key at or after the position (Go and the extender match keys ignoring case). */
    private static byte[] recaseKey(byte[] body, double f) {
        int quote = indexOf(body, (byte) '"', pos(body, f));
        if (quote < 0) {
            return body;
        }
        byte[] out = body.clone();
        for (int i = quote + 1; i < out.length && out[i] != '"'; i++) {
            byte c = out[i];
            if (c >= 'a' && c <= 'z') {
                out[i] = (byte) (c - 32);
            } else if (c >= 'A' && c <= 'Z') {
                out[i] = (byte) (c + 32);
            }
        }
        return out;
    }

    /** The end of the JSON value starting at {@code from} (roughly: balanced brackets, strings skipped). */
    private static int valueEnd(byte[] body, int from) {
        int depth = 0;
        boolean inString = false;
        for (int i = from; i < body.length; i++) {
            byte c = body[i];
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                    if (depth == 0) {
                        return i + 1;
                    }
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (depth == 0) {
                    return i;
                }
                depth--;
                if (depth == 0) {
                    return i + 1;
                }
            } else if (c == ',' && depth == 0) {
                return i;
            }
        }
        return body.length;
    }

    private static int indexOf(byte[] body, byte b, int from) {
        for (int i = Math.max(0, from); i < body.length; i++) {
            if (body[i] == b) {
                return i;
            }
        }
        return -1;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static List<byte[]> loadFixtures() {
        Path root = Path.of("src/test/resources/fixtures");
        try (Stream<Path> files = Files.walk(root)) {
            List<byte[]> all = files.filter(p -> p.toString().endsWith(".request.json"))
                    .sorted()
                    .map(HostileJson::read)
                    .toList();
            if (all.isEmpty()) {
                throw new IllegalStateException("no fixtures under " + root.toAbsolutePath());
            }
            return all;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
