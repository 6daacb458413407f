package dev.schedulerops.extender.scoring;

/**
 * Turns label values into extender scores and picks the single best node.
 *
 * <ul>
 *   <li>Prioritize: {@code score = floor(10 * v / max)}, where {@code max} is the largest numeric value among the
 *       nodes of the same request; when that is 0 (or no value is numeric) every score is 0. Non-numeric, negative and
 *       missing values score 0. A higher value therefore never scores lower, and the highest scores 10.
 *   <li>Best node: the highest numeric value wins; any numeric value (even 0) beats a non-numeric one; ties go to the
 *       lexicographically smallest node name (by UTF-16 code units, i.e. plain ASCII order for node names).
 * </ul>
 */
public final class LabelScoring {
    public static final int MAX_SCORE = 10;

    private LabelScoring() {}

    /** Scores for {@code values[i]} ({@code null} = label missing), in the same order. */
    public static int[] scores(String[] values, int count) {
        int[] fast = scoresInLongRange(values, count);
        return fast != null ? fast : scoresExact(values, count);
    }

    /**
     * The common case, on longs: every numeric value has at most {@link NumericLabel#LONG_SAFE_DIGITS} significant
     * digits, so {@code MAX_SCORE * value} cannot overflow. Returns null when some value is longer.
     */
    static int[] scoresInLongRange(String[] values, int count) {
        long[] numbers = new long[count];
        long max = 0;
        for (int i = 0; i < count; i++) {
            long v = parseSmall(values[i]);
            if (v == TOO_LARGE) {
                return null;
            }
            numbers[i] = v;
            max = Math.max(max, v);
        }
        int[] scores = new int[count];
        if (max > 0) {
            for (int i = 0; i < count; i++) {
                if (numbers[i] > 0) {
                    scores[i] = (int) (MAX_SCORE * numbers[i] / max);
                }
            }
        }
        return scores;
    }

    private static final long TOO_LARGE = -2;
    /** 10^16: one more digit appended to a value this large would exceed {@link NumericLabel#LONG_SAFE_DIGITS}. */
    private static final long LIMIT = pow10(NumericLabel.LONG_SAFE_DIGITS - 1);

    private static long pow10(int exponent) {
        long p = 1;
        for (int i = 0; i < exponent; i++) {
            p *= 10;
        }
        return p;
    }

    /**
     * The value of a plain digit string of at most {@link NumericLabel#LONG_SAFE_DIGITS} significant digits (below
     * 10^17), -1 when not numeric, {@link #TOO_LARGE} when it has more significant digits.
     */
    private static long parseSmall(String value) {
        if (value == null || value.isEmpty()) {
            return -1;
        }
        long v = 0;
        boolean tooLarge = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            if (v >= LIMIT) {
                tooLarge = true;
            } else {
                v = v * 10 + (c - '0');
            }
        }
        return tooLarge ? TOO_LARGE : v;
    }

    /** Any number of digits, compared and scaled as digit strings (linear in their length) past the long-safe length. */
    static int[] scoresExact(String[] values, int count) {
        NumericLabel[] numeric = new NumericLabel[count];
        NumericLabel max = null;
        for (int i = 0; i < count; i++) {
            numeric[i] = NumericLabel.parse(values[i]);
            if (numeric[i] != null && (max == null || numeric[i].compareTo(max) > 0)) {
                max = numeric[i];
            }
        }
        int[] scores = new int[count];
        if (max == null || max.isZero()) {
            return scores;
        }
        for (int i = 0; i < count; i++) {
            if (numeric[i] != null) {
                scores[i] = (int) numeric[i].scaledAgainst(max, MAX_SCORE);
            }
        }
        return scores;
    }

    /**
     * The index of the best node among {@code candidates[0..count)} (indices into {@code names}/{@code values}), or
     * -1 when there is none.
     */
    public static int best(String[] names, String[] values, int[] candidates, int count) {
        int best = -1;
        NumericLabel bestValue = null;
        for (int c = 0; c < count; c++) {
            int i = candidates[c];
            NumericLabel value = NumericLabel.parse(values[i]);
            if (best < 0) {
                best = i;
                bestValue = value;
                continue;
            }
            int cmp = compareNullsLow(value, bestValue);
            if (cmp > 0 || (cmp == 0 && names[i].compareTo(names[best]) < 0)) {
                best = i;
                bestValue = value;
            }
        }
        return best;
    }

    private static int compareNullsLow(NumericLabel a, NumericLabel b) {
        if (a == null) {
            return b == null ? 0 : -1;
        }
        return b == null ? 1 : a.compareTo(b);
    }
}
