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
                Arguments.of("{options: [\"-Dx=" + "y".repeat(300) + "\"]}", "may not be longer than 256"),
                Arguments.of("{options: [-javaagent:/tmp/a.jar]}", "-javaagent is refused"),
                Arguments.of("{options: [-Xss1m, \"-agentlib:jdwp=transport=dt_socket\"]}", "options[1]"),
                Arguments.of("{options: [-agentpath:/lib/a.so]}", "-agentpath is refused"),
                Arguments.of("{options: [-Xrunjdwp:server=y]}", "-Xrun is refused"),
                Arguments.of("{options: [-XX:VMOptionsFile=/etc/opts]}", "-XX:VMOptionsFile is refused"),
                Arguments.of("{options: [-XX:Flags=/etc/flags]}", "-XX:Flags is refused"),
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

    /** The CRD's CEL rule names exactly the prefixes the Java rule refuses. */
    @Test
    void theCelRuleRefusesTheSamePrefixes() {
        for (String prefix : JvmSpec.REFUSED_PREFIXES) {
            assertThat(JvmSpec.REFUSED_RULE).contains("!o.startsWith('" + prefix + "')");
        }
        assertThat(JvmSpec.REFUSED_RULE.split("startsWith")).hasSize(JvmSpec.REFUSED_PREFIXES.size() + 1);
    }
}
