package dev.schedulerops.operator.validation;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON shape of an args type, as kube-scheduler's strict decoder sees it: exact (case-sensitive) field names,
 * and Go types.
 */
sealed interface ArgsShape {

    enum Scalar implements ArgsShape {
        INT32,
        INT64,
        STRING,
        BOOL,
        /** A {@code metav1.Duration}: a Go duration string such as {@code 10s}. */
        DURATION
    }

    record ListOf(ArgsShape element) implements ArgsShape {}

    /** A {@code map[string]string}. */
    record StringMap() implements ArgsShape {}

    record ObjectOf(String goType, Map<String, ArgsShape> fields) implements ArgsShape {

        public ObjectOf {
            fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        }
    }

    static ListOf listOf(ArgsShape element) {
        return new ListOf(element);
    }

    /** An object from alternating field names and shapes. */
    static ObjectOf object(String goType, Object... namesAndShapes) {
        Map<String, ArgsShape> fields = new LinkedHashMap<>();
        for (int i = 0; i < namesAndShapes.length; i += 2) {
            fields.put((String) namesAndShapes[i], (ArgsShape) namesAndShapes[i + 1]);
        }
        return new ObjectOf(goType, fields);
    }

    /** An args kind: its fields plus the inline TypeMeta ({@code apiVersion}, {@code kind}). */
    static ObjectOf argsKind(String kind, Object... namesAndShapes) {
        Object[] withTypeMeta = Arrays.copyOf(namesAndShapes, namesAndShapes.length + 4);
        withTypeMeta[namesAndShapes.length] = "apiVersion";
        withTypeMeta[namesAndShapes.length + 1] = Scalar.STRING;
        withTypeMeta[namesAndShapes.length + 2] = "kind";
        withTypeMeta[namesAndShapes.length + 3] = Scalar.STRING;
        return object(kind, withTypeMeta);
    }
}
