package dev.schedulerops.operator.validation;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;

/** Parses Go {@code time.ParseDuration} strings ("300ms", "-1.5h", "2h45m"), as {@code metav1.Duration} decodes them. */
public final class GoDuration {

    private static final Map<String, Long> NANOS_PER_UNIT = Map.of(
            "ns", 1L,
            "us", 1_000L,
            "µs", 1_000L,
            "μs", 1_000L,
            "ms", 1_000_000L,
            "s", 1_000_000_000L,
            "m", 60_000_000_000L,
            "h", 3_600_000_000_000L);

    private GoDuration() {}

    public static Optional<Long> parseNanos(String text) {
        String s = text;
        boolean negative = false;
        if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            negative = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return Optional.of(0L);
        }
        if (s.isEmpty()) {
            return Optional.empty();
        }
        BigDecimal total = BigDecimal.ZERO;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            String number = s.substring(start, i);
            if (number.isEmpty() || number.equals(".") || number.indexOf('.') != number.lastIndexOf('.')) {
                return Optional.empty();
            }
            int unitStart = i;
            while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            Long unit = NANOS_PER_UNIT.get(s.substring(unitStart, i));
            if (unit == null) {
                return Optional.empty();
            }
            total = total.add(new BigDecimal(number).multiply(BigDecimal.valueOf(unit)));
        }
        if (total.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            return Optional.empty();
        }
        long nanos = total.longValue();
        return Optional.of(negative ? -nanos : nanos);
    }
}
