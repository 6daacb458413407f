package dev.schedulerops.operator.validation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Checks plain Java values against an {@link ArgsShape} the way kube-scheduler's strict JSON decoder would: unknown
 * fields and values of the wrong type are errors; {@code null} is always accepted (it leaves the Go zero value).
 */
final class StrictDecoder {

    private final Findings findings;

    StrictDecoder(Findings findings) {
        this.findings = findings;
    }

    void check(Object value, ArgsShape shape, String path) {
        if (value == null) {
            return;
        }
        if (shape instanceof ArgsShape.Scalar scalar) {
            checkScalar(value, scalar, path);
        } else if (shape instanceof ArgsShape.ListOf list) {
            checkList(value, list, path);
        } else if (shape instanceof ArgsShape.StringMap) {
            checkStringMap(value, path);
        } else if (shape instanceof ArgsShape.ObjectOf object) {
            checkObject(value, object, path);
        }
    }

    private void checkList(Object value, ArgsShape.ListOf list, String path) {
        if (!(value instanceof List<?> items)) {
            findings.invalid(path, value, "must be a list");
            return;
        }
        for (int i = 0; i < items.size(); i++) {
            check(items.get(i), list.element(), path + "[" + i + "]");
        }
    }

    private void checkStringMap(Object value, String path) {
        if (!(value instanceof Map<?, ?> map)) {
            findings.invalid(path, value, "must be an object of strings");
            return;
        }
        map.forEach((key, item) -> {
            if (item != null && !(item instanceof String)) {
                findings.invalid(path + "." + key, item, "must be a string");
            }
        });
    }

    private void checkObject(Object value, ArgsShape.ObjectOf object, String path) {
        if (!(value instanceof Map<?, ?> map)) {
            findings.invalid(path, value, "must be an object (" + object.goType() + ")");
            return;
        }
        map.forEach((key, item) -> {
            ArgsShape fieldShape = object.fields().get(String.valueOf(key));
            String fieldPath = path + "." + key;
            if (fieldShape == null) {
                findings.error(
                        fieldPath,
                        "unknown field " + GoValues.shown(String.valueOf(key)) + " in " + object.goType()
                                + " (kube-scheduler decodes its config strictly)");
            } else {
                check(item, fieldShape, fieldPath);
            }
        });
    }

    private void checkScalar(Object value, ArgsShape.Scalar scalar, String path) {
        switch (scalar) {
            case INT32 -> {
                if (!fitsInteger(value, Integer.MIN_VALUE, Integer.MAX_VALUE)) {
                    findings.invalid(path, value, "must be a 32-bit integer");
                }
            }
            case INT64 -> {
                if (!fitsInteger(value, Long.MIN_VALUE, Long.MAX_VALUE)) {
                    findings.invalid(path, value, "must be a 64-bit integer");
                }
            }
            case STRING -> {
                if (!(value instanceof String)) {
                    findings.invalid(path, value, "must be a string");
                }
            }
            case BOOL -> {
                if (!(value instanceof Boolean)) {
                    findings.invalid(path, value, "must be a boolean");
                }
            }
            case DURATION -> {
                if (!(value instanceof String text)
                        || GoDuration.parseNanos(text).isEmpty()) {
                    findings.invalid(path, value, "must be a duration such as \"10s\" or \"1m30s\"");
                }
            }
        }
    }

    /** Integral numbers in range; a float with no fraction (1.0) counts, as YAML-to-JSON conversion writes it as 1. */
    static boolean fitsInteger(Object value, long min, long max) {
        BigDecimal decimal;
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            decimal = BigDecimal.valueOf(((Number) value).longValue());
        } else if (value instanceof BigInteger big) {
            decimal = new BigDecimal(big);
        } else if (value instanceof BigDecimal big) {
            decimal = big;
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return false;
            }
            decimal = new BigDecimal(value.toString());
        } else {
            return false;
        }
        if (decimal.stripTrailingZeros().scale() > 0) {
            return false;
        }
        return decimal.compareTo(BigDecimal.valueOf(min)) >= 0 && decimal.compareTo(BigDecimal.valueOf(max)) <= 0;
    }
}
