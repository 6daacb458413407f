package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.E2eSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped Grafana dashboard without a Grafana: every panel reads the dashboard's Prometheus variable, has a unique
 * id, and queries only schedulerops metrics that deploy/README.md or extender/README.md documents (with what to do
 * about them); kube-scheduler's own metrics are checked against a running scheduler by PrometheusScrapeTest. That every query returns
 * data from the running product is PrometheusScrapeTest's part, on the real node.
 */
class DashboardTest {
    private static final Pattern METRIC = Pattern.compile("schedulerops_[a-z_]+");

    @Test
    void everyPanelReadsTheDatasourceVariableAndOnlyDocumentedMetrics() throws IOException {
        JsonNode dashboard = Commands.json(
                Files.readString(E2eSettings.repoRoot().resolve("deploy/monitoring/dashboards/schedulerops.json")));
        // The operator's metrics are documented in deploy/README.md, the extender's in extender/README.md.
        String readme = Files.readString(E2eSettings.repoRoot().resolve("deploy/README.md"))
                + Files.readString(E2eSettings.repoRoot().resolve("extender/README.md"));
        Set<Integer> ids = new HashSet<>();
        Set<String> read = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            String title = panel.path("title").asText();
            if (!ids.add(panel.path("id").asInt())) {
                problems.add(title + ": duplicate id " + panel.path("id").asInt());
            }
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            if (!panel.path("datasource").path("uid").asText().equals("${datasource}")) {
                problems.add(title + ": does not read the datasource variable");
            }
            if (panel.path("targets").isEmpty()) {
                problems.add(title + ": no query");
            }
            for (JsonNode target : panel.path("targets")) {
                Matcher m = METRIC.matcher(target.path("expr").asText());
                while (m.find()) {
                    read.add(m.group().replaceAll("_(bucket|count|sum)$", ""));
                }
            }
        }
        for (String metric : read) {
            if (!readme.contains("`" + metric + "`")) {
                problems.add(metric + " is in neither deploy/README.md's nor extender/README.md's metric tables");
            }
        }
        assertThat(dashboard.path("templating").path("list").findValuesAsText("name"))
                .contains("datasource");
        assertThat(read).as("metrics the dashboard reads").isNotEmpty();
        assertThat(problems).isEmpty();
    }
}
