package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The "Checked by the operator, not at admission" table of docs/profiles.md is {@link OperatorTimeCheck}, row for row.
 */
class DocsListOperatorTimeChecksTest {
    @Test
    void everyOperatorTimeCheckIsARowOfTheDocsTable() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "profiles.md"));
        String table = doc.substring(doc.indexOf("## Checked by the operator, not at admission"));
        table = table.substring(0, table.indexOf("\n\n", table.indexOf("| what |")));
        for (OperatorTimeCheck check : OperatorTimeCheck.values()) {
            assertThat(table).contains("| " + check.what() + " | " + check.whyNotAtAdmission() + " |");
        }
        assertThat(table.lines().filter(l -> l.startsWith("| ")).count())
                .as("rows besides the header")
                .isEqualTo(OperatorTimeCheck.values().length + 1);
    }
}
