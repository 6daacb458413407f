package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.e2e.support.ArgoCdHealth;
import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.ThirdPartyTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Argo CD health check deploy/argocd/health.lua, run by a real Lua interpreter on sample SchedulerProfiles
 * (src/test/resources/deploy/argocd/*.yaml, each with the health it must produce). Argo CD embeds gopher-lua, a Lua
 * 5.1 dialect, so the samples run under every interpreter installed among lua5.1, lua5.3 and lua5.4; and under Argo CD
 * itself (the argocd binary of e2e/tools/build), with the argocd-cm deploy/README.md shows.
 */
@AwaitsBackgroundBuild(BackgroundBuild.ARGOCD)
class ArgoHealthCheckTest {

    /** Argo CD's dialect: gopher-lua implements Lua 5.1. */
    private static final String ARGO_CD_DIALECT = "lua5.1";

    private static final List<String> INTERPRETERS = List.of(ARGO_CD_DIALECT, "lua5.3", "lua5.4", "lua");
    private static final Pattern SUMMARY = Pattern.compile("(\\d+) passed, (\\d+) failed");

    private static List<String> interpreters;
    private static ArgoCdHealth argoCd;

    /** The installed interpreters; skips, saying so on the console too, when there is none. */
    private static synchronized List<String> requireLua() {
        if (interpreters == null) {
            interpreters = INTERPRETERS.stream().filter(Commands::onPath).toList();
        }
        skipVisiblyUnless(
                !interpreters.isEmpty(),
                "No Lua interpreter: install one to test the Argo CD health check (apt-get install -y lua5.4 lua5.1)");
        return interpreters;
    }

    private static void skipVisiblyUnless(boolean condition, String reason) {
        if (!condition) {
            // Surefire keeps skip reasons in its report files; say it on the console too, where CI readers look.
            System.out.println("SKIPPED ArgoHealthCheckTest: " + reason);
        }
        assumeTrue(condition, reason);
    }

    @Test
    void luaUnitTestsPass() {
        requireLua();
        Commands.Result result = Commands.run(
                List.of(E2eSettings.repoRoot().resolve("deploy/argocd/test/run").toString()), Duration.ofSeconds(30));

        assertThat(result.exitCode())
                .as("%s%s", result.stdout(), result.stderr())
                .isZero();
        Matcher summary = SUMMARY.matcher(result.stdout());
        assertThat(summary.find()).as(result.stdout()).isTrue();
        assertThat(Integer.parseInt(summary.group(1))).isGreaterThanOrEqualTo(10);
        assertThat(summary.group(2)).isEqualTo("0");
    }

    static Stream<Arguments> samples() throws IOException, URISyntaxException {
        Path dir = Path.of(ArgoHealthCheckTest.class
                        .getResource("/deploy/argocd/ready.yaml")
                        .toURI())
                .getParent();
        try (Stream<Path> files = Files.list(dir)) {
            return files
                    .filter(f -> f.toString().endsWith(".yaml"))
                    .sorted()
                    .map(f -> Arguments.of(f.getFileName().toString(), f))
                    .toList()
                    .stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void sampleStatusGetsItsHealth(String name, Path sample) throws IOException {
        JsonNode document = Commands.yamlDocuments(Files.readString(sample)).get(0);
        String expectedStatus = document.at("/expected/status").asText();
        String expectedMessage = document.at("/expected/message").asText();

        for (String lua : requireLua()) {
            Map.Entry<String, String> health = evaluate(lua, document.path("object"));
            assertThat(health.getKey()).as("%s status under %s", name, lua).isEqualTo(expectedStatus);
            assertThat(health.getValue()).as("%s message under %s", name, lua).isEqualTo(expectedMessage);
        }
        // Passing under other dialects only is not a pass for Argo CD's: report the sample as skipped.
        skipVisiblyUnless(
                interpreters.contains(ARGO_CD_DIALECT),
                name + " ran under " + interpreters + " only: " + ARGO_CD_DIALECT
                        + " (Argo CD's Lua dialect) is not installed (apt-get install -y lua5.1)");
    }

    /**
     * The same samples under Argo CD itself ({@code argocd admin settings resource-overrides health}, the application
     * controller's code path, gopher-lua), with the argocd-cm of deploy/README.md. Skipped, visibly, without the argocd
     * binary (e2e/tools/build argocd); {@code ./test} builds it, and then it must run.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void argoCdItselfGivesEachSampleItsHealth(String name, Path sample) throws IOException {
        JsonNode document = Commands.yamlDocuments(Files.readString(sample)).get(0);

        ArgoCdHealth.Health health = argoCd().of(document.path("object"));

        assertThat(health.status())
                .as("%s status", name)
                .isEqualTo(document.at("/expected/status").asText());
        assertThat(health.message())
                .as("%s message", name)
                .isEqualTo(document.at("/expected/message").asText());
    }

    private static synchronized ArgoCdHealth argoCd() {
        if (argoCd == null) {
            argoCd = new ArgoCdHealth(
                    ThirdPartyTools.argocd(ArgoHealthCheckTest.class.getSimpleName()),
                    GitOpsReadme.argocdCm(),
                    E2eSettings.targetDir().resolve("argocd-health"));
        }
        return argoCd;
    }

    @Test
    void luaLiteralKeepsStringsIntact() {
        JsonNode node = Commands.json("{\"a\":\"quote \\\" back\\\\slash\\nnew ]] line\",\"n\":[1,2.5,true,null]}");

        assertThat(luaLiteral(node))
                .isEqualTo("{[\"a\"]=\"quote \\\" back\\\\slash\\nnew ]] line\",[\"n\"]={1,2.5,true,nil}}");
    }

    /** Runs health.lua with {@code obj} set to the sample, as Argo CD does; returns status and message. */
    static Map.Entry<String, String> evaluate(String lua, JsonNode object) {
        Path health = E2eSettings.repoRoot().resolve("deploy/argocd/health.lua");
        String driver = "obj = " + luaLiteral(object) + "\n"
                + "local hs = dofile(" + luaString(health.toString()) + ")\n"
                + "io.write(tostring(hs.status), \"\\n\", tostring(hs.message))\n";
        try {
            Path script = Files.createTempFile("schedulerops-health", ".lua");
            try {
                Files.writeString(script, driver);
                Commands.Result result = Commands.run(List.of(lua, script.toString()), Duration.ofSeconds(30))
                        .requireSuccess(lua + " health.lua");
                String[] lines = result.stdout().split("\n", 2);
                return Map.entry(lines[0], lines.length > 1 ? lines[1] : "");
            } finally {
                Files.deleteIfExists(script);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String luaLiteral(JsonNode node) {
        if (node.isObject()) {
            StringBuilder table = new StringBuilder("{");
            node.fields().forEachRemaining(field -> {
                if (table.length() > 1) {
                    table.append(',');
                }
                table.append('[').append(luaString(field.getKey())).append("]=").append(luaLiteral(field.getValue()));
            });
            return table.append('}').toString();
        }
        if (node.isArray()) {
            StringBuilder table = new StringBuilder("{");
            for (JsonNode element : node) {
                if (table.length() > 1) {
                    table.append(',');
                }
                table.append(luaLiteral(element));
            }
            return table.append('}').toString();
        }
        if (node.isNumber() || node.isBoolean()) {
            return node.asText();
        }
        if (node.isNull() || node.isMissingNode()) {
            return "nil";
        }
        return luaString(node.asText());
    }

    private static String luaString(String value) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '\\' -> quoted.append("\\\\");
                case '"' -> quoted.append("\\\"");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                default -> {
                    if (c < 0x20) {
                        quoted.append('\\').append((int) c);
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
