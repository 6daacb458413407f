package dev.schedulerops.operator.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.cli.RenderCommand;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.render.Yaml;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Generated SchedulerProfiles ({@link GeneratedProfiles}) through the path of the CLI's {@code render}: strict YAML
 * reading ({@link ProfileYaml}), then validation and rendering ({@link ProfileRenderer}). Every input is either
 * rendered into objects that serialise, or refused with messages a person can act on: not blank, not a Java stack
 * or class name, of bounded length, naming where the problem is. Never an exception. Tries: {@code -Dfuzz.tries}.
 */
class ProfileFuzzTest {
    private static final ClusterFacts FACTS = ClusterFacts.forVersion(RenderCommand.DEFAULT_KUBERNETES_VERSION);
    /** Long enough for every real message (they quote values, cut); a message echoing a 200 kB value is not. */
    static final int MAX_MESSAGE = 2000;

    private static Map<String, Long> outcomes;
    private static long inputs;
    private static long started;

    @BeforeContainer
    static void start() {
        outcomes = new TreeMap<>();
        inputs = 0;
        started = System.nanoTime();
    }

    @AfterContainer
    static void finish() throws Exception {
        StringBuilder b = new StringBuilder("\n## operator profiles through render (ProfileFuzzTest)\n\n");
        b.append("- inputs run: ").append(inputs).append('\n');
        b.append("- seconds: ")
                .append((System.nanoTime() - started) / 1_000_000_000)
                .append('\n');
        b.append("- unexpected exceptions: 0 (the property fails on the first)\n\n| outcome | count |\n|---|---|\n");
        outcomes.forEach(
                (k, v) -> b.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        System.out.println(b);
        String file = System.getProperty("fuzz.report", "");
        if (!file.isBlank()) {
            java.nio.file.Files.writeString(
                    java.nio.file.Path.of(file),
                    b.toString(),
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        }
        assertThat(outcomes)
                .as("both accepted and refused profiles were generated")
                .containsKeys("rendered", "refused by the validator");
    }

    @Provide
    Arbitrary<String> documents() {
        return GeneratedProfiles.documents();
    }

    // The generators draw their extremes themselves; jqwik's edge cases (every range's maximum at once) would make
    // most long-run inputs the slowest ones.
    @Property(edgeCases = EdgeCasesMode.NONE)
    void everyProfileIsRenderedOrRefusedWithAMessage(@ForAll("documents") String yaml) {
        String outcome = renderOrRefuse(yaml);
        synchronized (ProfileFuzzTest.class) {
            inputs++;
            outcomes.merge(outcome, 1L, Long::sum);
        }
    }

    /** What {@code render -f FILE} does with the file, checked; returns the outcome's kind. */
    static String renderOrRefuse(String yaml) {
        List<SchedulerProfile> profiles;
        try {
            profiles = ProfileYaml.readAll("fuzz.yaml", yaml);
        } catch (ProfileYaml.InvalidProfileFileException e) {
            assertActionable(e.problems(), yaml);
            return "refused while reading the YAML";
        } catch (Exception e) {
            throw new AssertionError("reading threw " + e + " on\n" + cut(yaml), e);
        }
        String outcome = null;
        for (SchedulerProfile profile : profiles) {
            RenderResult result;
            try {
                result = ProfileRenderer.render(profile, FACTS);
            } catch (Exception e) {
                throw new AssertionError("render threw " + e + " on\n" + cut(yaml), e);
            }
            if (result instanceof RenderResult.Invalid invalid) {
                assertActionable(invalid.errors(), yaml);
                outcome = "refused by the validator";
            } else {
                List<HasMetadata> objects =
                        ((RenderResult.Valid) result).state().all();
                assertThat(objects).as("objects rendered for\n%s", cut(yaml)).isNotEmpty();
                for (HasMetadata object : objects) {
                    String text = Yaml.write(object);
                    assertThat(text).as("rendered %s", object.getKind()).isNotBlank();
                }
                outcome = outcome == null ? "rendered" : outcome;
            }
        }
        return outcome;
    }

    private static void assertActionable(List<String> messages, String yaml) {
        assertThat(messages).as("messages for\n%s", cut(yaml)).isNotEmpty();
        for (String message : messages) {
            assertThat(message)
                    .as("a message for\n%s", cut(yaml))
                    .isNotBlank()
                    .doesNotContain("\tat ", "Exception", "java.lang.", "java.util.", "dev.schedulerops.")
                    .hasSizeLessThan(MAX_MESSAGE);
        }
    }

    static String cut(String text) {
        return text.length() > 1500 ? text.substring(0, 1500) + "... (" + text.length() + " chars)" : text;
    }
}
