package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.JvmSpec;
import dev.schedulerops.operator.render.Samples;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** spec.extender.jvm: what the Java validator refuses, with the CRD's messages. */
class JvmRulesTest {

    private static List<String> errors(String spec) {
        return ProfileValidator.validate(Samples.profile(spec), Samples.FACTS);
    }

    @Test
    void heapPercentageAndOrdinaryOptionsAreValid() {
        assertThat(
                        errors(
                                """
                labelKey: k
                extender:
                  jvm:
                    maxRAMPercentage: 60
                    options: [-XX:+UseSerialGC, -Xss512k, -Dfile.encoding=UTF-8, -XX:MaxGCPauseMillis=50]
                """))
                .isEmpty();
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of(
                        "{maxRAMPercentage: 95}",
                        "spec.extender.jvm.maxRAMPercentage: Invalid value: 95: must be between 10 and 90"),
                Arguments.of("{maxRAMPercentage: 5}", "must be between 10 and 90"),
                Arguments.of(
                        "{options: [UseSerialGC]}", "spec.extender.jvm.options[0]: Invalid value: \"UseSerialGC\""),
                Arguments.of("{options: [\"-Dx=1 -javaagent:/a.jar\"]}", "holds no whitespace or quotes"),
                Arguments.of("{options: [\"-Dx='a b'\"]}", "holds no whitespace or quotes"),
                Arguments.of(
                        "{options: [\"-Dx=" + "y".repeat(300) + "\"]}",
                        "options[0]: Too long: may not be longer than 256"),
                Arguments.of("{options: [-javaagent:/tmp/a.jar]}", "(found -javaagent)"),
                Arguments.of("{options: [-Xss1m, \"-agentlib:jdwp=transport=dt_socket\"]}", "options[1]"),
                Arguments.of("{options: [-agentpath:/lib/a.so]}", "(found -agentpath)"),
                Arguments.of("{options: [-Xrunjdwp:server=y]}", "(found -Xrun)"),
                Arguments.of("{options: [-XX:VMOptionsFile=/etc/opts]}", "(found -XX:VMOptionsFile)"),
                Arguments.of("{options: [\"-XX:OnOutOfMemoryError=/bin/sh\"]}", "(found -XX:OnOutOfMemoryError)"),
                Arguments.of(
                        "{options: [-Dcom.sun.management.jmxremote.port=9999]}",
                        "(found -Dcom.sun.management.jmxremote)"),
                Arguments.of("{options: [-XX:MaxRAMPercentage=95]}", "use maxRAMPercentage"),
                Arguments.of("{options: [-Xbootclasspath/a:/tmp/x.jar]}", "(found -Xbootclasspath)"),
                Arguments.of("{options: [\"-Dx=a\\u000Bb\"]}", "holds no whitespace or quotes"),
                Arguments.of("{options: [-XX:Flags=/etc/flags]}", "(found -XX:Flags)"),
                Arguments.of("{options: [null]}", "spec.extender.jvm.options[0]: Required value"),
                Arguments.of("{options: [" + "-Xss1m, ".repeat(17) + "]}", "must have at most 16 items"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void badJvmSettingsAreRefusedWithAMessage(String jvm, String expected) {
        assertThat(errors("labelKey: k\nextender: {jvm: " + jvm + "}"))
                .as("errors of %s", jvm)
                .anySatisfy(e -> assertThat(e).contains(expected));
    }

    @Test
    void anOptionWithAWideCharacterWithinTheLimitIsNotTooLong() {
        String option = "-Dname=" + "\u00e9".repeat(249);
        assertThat(option.codePointCount(0, option.length())).isEqualTo(256);
        assertThat(errors("labelKey: k\nextender: {jvm: {options: [\"" + option + "\"]}}"))
                .isEmpty();
    }

    /** The CRD's CEL rule refuses exactly the characters the Java rule refuses. */
    @Test
    void theCelRuleRefusesTheSameCharacters() {
        for (char c : JvmSpec.REFUSED_CHARACTERS.toCharArray()) {
            String cel =
                    switch (c) {
                        case '\t' -> "\\t";
                        case '\n' -> "\\n";
                        case '\r' -> "\\r";
                        case '\f' -> "\\f";
                        case '\u000B' -> "\\v";
                        default -> String.valueOf(c);
                    };
            assertThat(JvmSpec.OPTIONS_RULE)
                    .as("CEL refuses %s", cel)
                    .containsAnyOf("!o.contains('" + cel + "')", "!o.contains(\"" + cel + "\")");
        }
        assertThat(JvmSpec.OPTIONS_RULE.split("contains")).hasSize(JvmSpec.REFUSED_CHARACTERS.length() + 1);
    }

    /** The CRD's CEL rule names exactly the prefixes the Java rule refuses. */
    @Test
    void theCelRuleRefusesTheSamePrefixes() {
        for (String prefix : JvmSpec.REFUSED_PREFIXES) {
            assertThat(JvmSpec.REFUSED_RULE).contains("!o.startsWith('" + prefix + "')");
        }
        assertThat(JvmSpec.REFUSED_RULE.split("startsWith")).hasSize(JvmSpec.REFUSED_PREFIXES.size() + 1);
    }
}
