package dev.schedulerops.extender.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LabelScoringTest {
    @ParameterizedTest
    @ValueSource(strings = {"-1", "+1", "1.5", " 1", "1e3", "0x10", "ten", "", "١٢"})
    void nonNumericAndNegativeValuesAreNotNumbers(String value) {
        assertThat(NumericLabel.parse(value)).isNull();
    }

    @Test
    void leadingZerosDoNotChangeTheValue() {
        assertThat(NumericLabel.parse("007")).isEqualTo(NumericLabel.parse("7"));
        assertThat(NumericLabel.parse("000").isZero()).isTrue();
    }

    @Test
    void scoresAreFloorOfTenTimesValueOverMax() {
        int[] scores = LabelScoring.scores(new String[] {"10", null, "20", "abc", "0", "19", "-5"}, 7);

        assertThat(scores).containsExactly(5, 0, 10, 0, 0, 9, 0);
    }

    @Test
    void allZeroOrNoNumbersScoresZero() {
        assertThat(LabelScoring.scores(new String[] {"0", "00", null}, 3)).containsExactly(0, 0, 0);
        assertThat(LabelScoring.scores(new String[] {"x", null}, 2)).containsExactly(0, 0);
    }

    @Test
    void valuesBeyondLongRangeCompareAndScoreExactly() {
        String huge = "9".repeat(63);
        String half = new BigInteger(huge).divide(BigInteger.TWO).toString();

        int[] scores = LabelScoring.scores(new String[] {huge, half, "1"}, 3);

        assertThat(scores).containsExactly(10, 4, 0);
    }

    @Test
    void longValuesScoreAsBigIntegerArithmeticSays() {
        Random random = new Random(20261123);
        for (int round = 0; round < 2000; round++) {
            int length = 18 + random.nextInt(120);
            String max = randomDigits(random, length, true);
            String value = random.nextBoolean() ? randomDigits(random, length, false) : max.substring(1);
            if (new BigInteger(value).compareTo(new BigInteger(max)) > 0) {
                continue;
            }
            long expected = new BigInteger(value)
                    .multiply(BigInteger.TEN)
                    .divide(new BigInteger(max))
                    .longValueExact();

            assertThat(NumericLabel.parse(value).scaledAgainst(NumericLabel.parse(max), LabelScoring.MAX_SCORE))
                    .as("10 * %s / %s", value, max)
                    .isEqualTo(expected);
        }
    }

    @Test
    void timesMultipliesDigitStrings() {
        assertThat(NumericLabel.times("0", 7)).isEqualTo("0");
        assertThat(NumericLabel.times("123", 0)).isEqualTo("0");
        assertThat(NumericLabel.times("99999999999999999999", 10)).isEqualTo("999999999999999999990");
        assertThat(NumericLabel.times("5", 10)).isEqualTo("50");
        assertThat(NumericLabel.times("123456789123456789123", 7))
                .isEqualTo(new BigInteger("123456789123456789123")
                        .multiply(BigInteger.valueOf(7))
                        .toString());
    }

    @Test
    void aHundredThousandDigitValuesScoreExactly() {
        String max = "9".repeat(100_000);
        String value = "4" + "9".repeat(99_999);

        assertThat(LabelScoring.scores(new String[] {max, value}, 2)).containsExactly(10, 4);
    }

    private static String randomDigits(Random random, int length, boolean leadingNonZero) {
        StringBuilder digits = new StringBuilder(length);
        digits.append((char) ('0' + (leadingNonZero ? 1 + random.nextInt(9) : random.nextInt(10))));
        for (int i = 1; i < length; i++) {
            digits.append((char) ('0' + random.nextInt(10)));
        }
        return digits.toString();
    }

    @ParameterizedTest(name = "{0} digits")
    @ValueSource(ints = {16, 17, 18})
    void fastAndExactPathsAgreeAroundTheLongLimit(int digits) {
        String[] values = {
            "9".repeat(digits),
            "9".repeat(digits - 1) + "8",
            "1" + "0".repeat(digits - 1),
            "000" + "4" + "9".repeat(digits - 1),
            "5" + "0".repeat(digits - 1),
            "9".repeat(digits - 1),
            "1",
            null,
            "x"
        };
        int n = values.length;
        int[] exact = LabelScoring.scoresExact(values, n);
        int[] fast = LabelScoring.scoresInLongRange(values, n);

        assertThat(exact).containsExactly(10, 9, 1, 4, 5, 0, 0, 0, 0);
        assertThat(exact).containsExactly(bigIntegerScores(values));
        if (digits <= NumericLabel.LONG_SAFE_DIGITS) {
            assertThat(fast).as("the fast path takes %d digits", digits).containsExactly(exact);
        } else {
            assertThat(fast)
                    .as("the fast path leaves %d digits to the exact one", digits)
                    .isNull();
        }
        assertThat(LabelScoring.scores(values, n)).containsExactly(exact);
    }

    /** floor(10 * v / max) with BigInteger, 0 for values that are not plain digit strings. */
    private static int[] bigIntegerScores(String[] values) {
        BigInteger max = BigInteger.ZERO;
        BigInteger[] numbers = new BigInteger[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null && values[i].matches("[0-9]+")) {
                numbers[i] = new BigInteger(values[i]);
                max = max.max(numbers[i]);
            }
        }
        int[] scores = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            if (numbers[i] != null && max.signum() > 0) {
                scores[i] = numbers[i].multiply(BigInteger.TEN).divide(max).intValueExact();
            }
        }
        return scores;
    }

    @Test
    void aHigherValueNeverScoresLowerAndScoresStayInRange() {
        Random random = new Random(42);
        for (int round = 0; round < 2000; round++) {
            int n = 1 + random.nextInt(20);
            String[] values = new String[n];
            for (int i = 0; i < n; i++) {
                values[i] = switch (random.nextInt(5)) {
                    case 0 -> null;
                    case 1 -> "v" + i;
                    case 2 -> "9".repeat(1 + random.nextInt(40));
                    default -> Long.toString(random.nextInt(random.nextBoolean() ? 30 : Integer.MAX_VALUE));
                };
            }
            int[] scores = LabelScoring.scores(values, n);
            for (int i = 0; i < n; i++) {
                assertThat(scores[i]).isBetween(0, 10);
                for (int j = 0; j < n; j++) {
                    NumericLabel a = NumericLabel.parse(values[i]);
                    NumericLabel b = NumericLabel.parse(values[j]);
                    if (a != null && b != null && a.compareTo(b) > 0) {
                        assertThat(scores[i]).isGreaterThanOrEqualTo(scores[j]);
                    }
                }
            }
        }
    }

    @Test
    void bestIsHighestNumberThenSmallestName() {
        String[] names = {"b", "a", "c", "d"};
        String[] values = {"7", "007", "x", "3"};

        assertThat(LabelScoring.best(names, values, new int[] {0, 1, 2, 3}, 4)).isEqualTo(1);
        assertThat(LabelScoring.best(names, values, new int[] {2, 3}, 2)).isEqualTo(3);
        assertThat(LabelScoring.best(names, new String[] {"x", "y", "0", "z"}, new int[] {0, 1}, 2))
                .as("among non-numeric values the smaller name wins")
                .isEqualTo(1);
        assertThat(LabelScoring.best(names, new String[] {"x", "y", "0", "z"}, new int[] {0, 2}, 2))
                .as("zero beats any non-numeric value")
                .isEqualTo(2);
        assertThat(LabelScoring.best(names, values, new int[0], 0)).isEqualTo(-1);
    }
}
