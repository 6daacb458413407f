package dev.schedulerops.extender.scoring;

import java.math.BigInteger;

/**
 * A label value read as a non-negative integer of any size. Only plain ASCII digits count as numeric: a sign, a
 * decimal point, spaces or an empty value make a value non-numeric. Values are compared by their digits without
 * leading zeros, so no parsing limit applies (label values are at most 63 characters, but the comparison does not
 * depend on that).
 */
public final class NumericLabel implements Comparable<NumericLabel> {
    /**
     * Values of at most this many significant digits are below 10^17, so even multiplied by a score scale of up to 10
     * they stay below 10^18 and fit in a {@code long}. Shared with {@link LabelScoring}'s fast path.
     */
    static final int LONG_SAFE_DIGITS = 17;

    private final String digits;

    private NumericLabel(String digits) {
        this.digits = digits;
    }

    /** The numeric reading of {@code value}, or {@code null} when it is missing, negative or not an integer. */
    public static NumericLabel parse(String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        int firstSignificant = -1;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            if (firstSignificant < 0 && c != '0') {
                firstSignificant = i;
            }
        }
        return new NumericLabel(firstSignificant < 0 ? "0" : value.substring(firstSignificant));
    }

    public boolean isZero() {
        return digits.equals("0");
    }

    @Override
    public int compareTo(NumericLabel other) {
        int byLength = Integer.compare(digits.length(), other.digits.length());
        return byLength != 0 ? byLength : digits.compareTo(other.digits);
    }

    /**
     * {@code floor(scale * this / max)}; {@code max} must be positive and not smaller than this value, {@code scale} at
     * most {@link LabelScoring#MAX_SCORE}.
     */
    long scaledAgainst(NumericLabel max, int scale) {
        if (max.digits.length() <= LONG_SAFE_DIGITS) {
            return scale * Long.parseLong(digits) / Long.parseLong(max.digits);
        }
        return new BigInteger(digits)
                .multiply(BigInteger.valueOf(scale))
                .divide(new BigInteger(max.digits))
                .longValueExact();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NumericLabel other && digits.equals(other.digits);
    }

    @Override
    public int hashCode() {
        return digits.hashCode();
    }

    @Override
    public String toString() {
        return digits;
    }
}
