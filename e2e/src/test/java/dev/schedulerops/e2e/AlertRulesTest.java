package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.ThirdPartyTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/monitoring/prometheusrule.yaml through promtool v0.316.0 (e2e/tools/build prometheus): {@code promtool check
 * rules} on the PrometheusRule's spec, and {@code promtool test rules} on deploy/monitoring/tests/alerts-test.yaml,
 * which makes each alert fire and not fire. Skipped, saying so, when promtool is not built, unless
 * -Dschedulerops.tools.dir is given (./test): then it fails.
 */
@AwaitsBackgroundBuild(BackgroundBuild.PROMETHEUS)
class AlertRulesTest {

    @Test
    void theRulesAreValidAndEachAlertFiresWhenItShouldAndOnlyThen(@TempDir Path dir) throws IOException {
        Path promtool = ThirdPartyTools.promtool(AlertRulesTest.class.getSimpleName());
        Path monitoring = E2eSettings.repoRoot().resolve("deploy/monitoring");
        List<JsonNode> documents = Commands.yamlDocuments(Files.readString(monitoring.resolve("prometheusrule.yaml")));
        assertThat(documents).hasSize(1);
        JsonNode rule = documents.get(0);
        assertThat(rule.path("kind").asText()).isEqualTo("PrometheusRule");
        // A rules file is the PrometheusRule's spec; JSON is YAML.
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, rule.path("spec").toString());
        Path tests = dir.resolve("alerts-test.yaml");
        Files.copy(monitoring.resolve("tests/alerts-test.yaml"), tests);

        Commands.Result check = Commands.run(
                        List.of(promtool.toString(), "check", "rules", rules.toString()), Duration.ofMinutes(1))
                .requireSuccess("promtool check rules");
        assertThat(check.stdout()).contains("SUCCESS");

        // Every alert of the rule has a test that makes it fire.
        String testText = Files.readString(tests);
        for (JsonNode group : rule.path("spec").path("groups")) {
            for (JsonNode r : group.path("rules")) {
                if (r.has("alert")) {
                    assertThat(testText)
                            .as("a promtool test of " + r.path("alert").asText())
                            .contains("alertname: " + r.path("alert").asText());
                }
            }
        }

        Commands.Result test = Commands.run(
                        List.of(promtool.toString(), "test", "rules", tests.toString()), Duration.ofMinutes(2))
                .requireSuccess("promtool test rules");
        assertThat(test.stdout() + test.stderr()).contains("SUCCESS").doesNotContain("FAILED");
    }
}
