package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's "Checked by the operator, not at admission" table is {@link OperatorTimeCheck}, row for row. */
class ReadmeListsOperatorTimeChecksTest {
    @Test
    void everyOperatorTimeCheckIsARowOfTheReadmeTable() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String table = readme.substring(readme.indexOf("#### Checked by the operator, not at admission"));
        table = table.substring(0, table.indexOf("\n\n", table.indexOf("| what |")));
        for (OperatorTimeCheck check : OperatorTimeCheck.values()) {
            assertThat(table).contains("| " + check.what() + " | " + check.whyNotAtAdmission() + " |");
        }
        assertThat(table.lines().filter(l -> l.startsWith("| ")).count())
                .as("rows besides the header")
                .isEqualTo(OperatorTimeCheck.values().length + 1);
    }
}
