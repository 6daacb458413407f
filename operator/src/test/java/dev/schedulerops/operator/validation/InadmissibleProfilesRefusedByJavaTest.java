package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.render.Samples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CRD's schema and CEL rules and the Java validator are the same rules: every profile the e2e suite proves the
 * real API server refuses at admission ({@code e2e/src/test/resources/inadmissible-profiles}, CrdAdmissionTest) is
 * refused by `render` too, either when the YAML is read (an unknown enum value) or by ProfileValidator.
 */
class InadmissibleProfilesRefusedByJavaTest {
    private static final Path DIR = Path.of("..", "e2e", "src", "test", "resources", "inadmissible-profiles");

    static List<Path> inadmissible() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            List<Path> list =
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
            assertThat(list).as("inadmissible profiles in %s", DIR).isNotEmpty();
            return list;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inadmissible")
    void javaRefusesWhatAdmissionRefuses(Path file) throws IOException {
        SchedulerProfile profile;
        try {
            profile = ProfileYaml.readAll(file).get(0);
        } catch (ProfileYaml.InvalidProfileFileException refusedWhenRead) {
            assertThat(refusedWhenRead.getMessage()).isNotBlank();
            return;
        }
        profile.getMetadata().setNamespace("team-a");

        assertThat(ProfileValidator.validate(profile, Samples.FACTS))
                .as("ProfileValidator on %s (the API server refuses it at admission)", file.getFileName())
                .isNotEmpty();
    }
}
