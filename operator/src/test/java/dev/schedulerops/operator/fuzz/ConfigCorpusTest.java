package dev.schedulerops.operator.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.validation.PluginCatalog;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The corpus the validator-agreement test (e2e) feeds to every kube-scheduler: reproducible, balanced, wide. */
class ConfigCorpusTest {
    @ParameterizedTest
    @ValueSource(strings = {"1.30.14", "1.33.13", "1.37.2"})
    void aCaseIsReproducibleFromTheSeedAndItsIndexAlone(String version) {
        ConfigCorpus corpus = new ConfigCorpus(version, 42);
        ConfigCorpus again = new ConfigCorpus(version, 42);

        assertThat(again.get(17)).isEqualTo(corpus.first(18).get(17));
        assertThat(new ConfigCorpus(version, 43).get(17).yaml())
                .isNotEqualTo(corpus.get(17).yaml());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.30.14", "1.33.13", "1.37.2"})
    void aboutHalfIsMeantInvalidAndEveryArgsKindAndBreakIsDrawn(String version) {
        List<ConfigCorpus.Case> cases = new ConfigCorpus(version, 7).first(1000);

        long meantValid = cases.stream().filter(ConfigCorpus.Case::meantValid).count();
        assertThat(meantValid).isBetween(400L, 600L);
        assertThat(cases)
                .allSatisfy(c -> assertThat(c.profile().getSpec().getLabelKey()).isNotBlank());
        assertThat(cases).filteredOn(c -> !c.meantValid()).allSatisfy(c -> assertThat(c.moves())
                .anyMatch(m -> m.startsWith("BREAK")));
        assertThat(cases).filteredOn(ConfigCorpus.Case::meantValid).allSatisfy(c -> assertThat(c.moves())
                .noneMatch(m -> m.startsWith("BREAK")));
        String all =
                String.join("\n", cases.stream().map(ConfigCorpus.Case::yaml).toList());
        for (String kind : PluginCatalog.forVersion(version).argsKinds().keySet()) {
            assertThat(all).as("args of %s", kind).contains("name: " + kind.replaceAll("Args$", ""));
        }
        for (String point : List.of("multiPoint", "queueSort", "filter", "score", "bind", "preEnqueue", "permit")) {
            assertThat(all).as("plugins at %s", point).contains(point + ":");
        }
        String moves = String.join(
                "\n", cases.stream().flatMap(c -> c.moves().stream()).toList());
        assertThat(moves)
                .contains("BREAK no queue sort", "BREAK no bind plugin", "which it does not implement")
                .contains("twice at", "BREAK enable unknown", "BREAK two pluginConfig entries");
    }
}
