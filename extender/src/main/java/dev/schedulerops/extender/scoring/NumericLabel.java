package dev.schedulerops.extender.scoring;

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
        return compareDigits(digits, other.digits);
    }

    /**
     * {@code floor(scale * this / max)}; {@code max} must be positive and not smaller than this value, {@code scale} at
     * most {@link LabelScoring#MAX_SCORE}.
     */
    long scaledAgainst(NumericLabel max, int scale) {
        if (max.digits.length() <= LONG_SAFE_DIGITS) {
            return scale * Long.parseLong(digits) / Long.parseLong(max.digits);
        }
        // The quotient is at most scale (this <= max), so find it by comparing scale * this with k * max for
        // k = scale .. 1: linear in the number of digits. BigInteger's parsing is quadratic, and a request can carry
        // label values of a hundred thousand digits (found by the decoder fuzzer: one such request held a core).
        String scaled = times(digits, scale);
        for (int k = scale; k > 0; k--) {
            if (compareDigits(times(max.digits, k), scaled) <= 0) {
                return k;
            }
        }
        return 0;
    }

    /** {@code digits * factor} as a digit string without leading zeros; {@code factor} is small and non-negative. */
    static String times(String digits, int factor) {
        if (factor == 0 || digits.equals("0")) {
            return "0";
        }
        char[] out = new char[digits.length() + 3];
        int carry = 0;
        int pos = out.length;
        for (int i = digits.length() - 1; i >= 0; i--) {
            int product = (digits.charAt(i) - '0') * factor + carry;
            out[--pos] = (char) ('0' + product % 10);
            carry = product / 10;
        }
        while (carry > 0) {
            out[--pos] = (char) ('0' + carry % 10);
            carry /= 10;
        }
        return new String(out, pos, out.length - pos);
    }

    private static int compareDigits(String a, String b) {
        int byLength = Integer.compare(a.length(), b.length());
        return byLength != 0 ? byLength : a.compareTo(b);
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
