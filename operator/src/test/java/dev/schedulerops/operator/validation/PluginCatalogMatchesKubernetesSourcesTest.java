package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reads the Kubernetes 1.33 Go sources (from the Go module cache, wherever `go env GOMODCACHE` says) and checks the 1.33 catalog against
 * them: plugin names, the Go methods that make a plugin implement each extension point, the default plugin set and
 * the plugins validation.go rejects as removed.
 */
class PluginCatalogMatchesKubernetesSourcesTest {

    private static final String RELEASE = "1.33.13";
    private static final Path SCHEDULER = moduleCache().resolve("k8s.io/kubernetes@v" + RELEASE + "/pkg/scheduler");
    private static final Path PLUGINS = SCHEDULER.resolve("framework/plugins");

    private static final Map<String, String> METHOD_TO_POINT = Map.ofEntries(
            Map.entry("Less", "queueSort"),
            Map.entry("PreEnqueue", "preEnqueue"),
            Map.entry("PreFilter", "preFilter"),
            Map.entry("Filter", "filter"),
            Map.entry("PostFilter", "postFilter"),
            Map.entry("PreScore", "preScore"),
            Map.entry("Score", "score"),
            Map.entry("Reserve", "reserve"),
            Map.entry("Permit", "permit"),
            Map.entry("PreBind", "preBind"),
            Map.entry("Bind", "bind"),
            Map.entry("PostBind", "postBind"));

    private final PluginCatalog catalog = PluginCatalog.forVersion("1.33.13");

    /** Fails, never skips: ./test downloads these sources (e2e/cluster build) before the operator's tests run. */
    @BeforeEach
    void requireSources() {
        assertThat(PLUGINS)
                .as(
                        "the Kubernetes %s sources, in the Go module cache (`go env GOMODCACHE`); download them with"
                                + " e2e/cluster build or `go mod download k8s.io/kubernetes@v%s`",
                        RELEASE, RELEASE)
                .isDirectory();
    }

    /** Where Go keeps modules: `go env GOMODCACHE`, else $GOMODCACHE, $GOPATH/pkg/mod or ~/go/pkg/mod. */
    static Path moduleCache() {
        try {
            Process go = new ProcessBuilder("go", "env", "GOMODCACHE")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(go.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            if (go.waitFor() == 0 && !out.isEmpty()) {
                return Path.of(out);
            }
        } catch (java.io.IOException e) {
            // no go on PATH: fall back to the variables and Go's default
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String env = System.getenv("GOMODCACHE");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        String gopath = System.getenv("GOPATH");
        return gopath != null && !gopath.isBlank()
                ? Path.of(gopath.split(java.io.File.pathSeparator)[0], "pkg", "mod")
                : Path.of(System.getProperty("user.home"), "go", "pkg", "mod");
    }

    @Test
    void pluginNamesMatchTheNamesPackage() {
        assertThat(catalog.pluginNames())
                .containsExactlyInAnyOrderElementsOf(goPluginNames().values());
    }

    @Test
    void extensionPointsMatchTheGoMethodsOfEachPlugin() {
        Map<String, Set<String>> fromSources = extensionPointsFromSources();
        assertThat(fromSources).hasSize(catalog.pluginNames().size());
        fromSources.forEach((plugin, points) ->
                assertThat(catalog.extensionPoints(plugin)).as(plugin).containsExactlyInAnyOrderElementsOf(points));
    }

    @Test
    void defaultPluginsMatchDefaultPluginsGo() {
        String source = read(SCHEDULER.resolve("apis/config/v1/default_plugins.go"));
        Matcher entry = Pattern.compile("\\{Name: names\\.(\\w+)(?:, Weight: ptr\\.To\\[int32]\\((\\d+)\\))?}")
                .matcher(source.substring(0, source.indexOf("applyFeatureGates(plugins)")));
        Map<String, String> names = goPluginNames();
        List<DefaultPlugin> expected = new ArrayList<>();
        while (entry.find()) {
            Integer weight = entry.group(2) == null ? null : Integer.valueOf(entry.group(2));
            expected.add(new DefaultPlugin(names.get(entry.group(1)), weight));
        }
        assertThat(catalog.defaults()).containsExactlyElementsOf(expected);
    }

    @Test
    void removedPluginsMatchValidationGo() {
        String source = read(SCHEDULER.resolve("apis/config/validation/validation.go"));
        String list = source.substring(source.indexOf("var invalidPluginsByVersion"));
        list = list.substring(list.indexOf("plugins: []string{"), list.indexOf("},"));
        Matcher quoted = Pattern.compile("\"(\\w+)\"").matcher(list);
        List<String> removed = new ArrayList<>();
        while (quoted.find()) {
            removed.add(quoted.group(1));
        }
        assertThat(removed).isNotEmpty();
        removed.forEach(
                plugin -> assertThat(catalog.removedIn(plugin)).as(plugin).contains("1.32"));
    }

    /** Go constant (e.g. NodeResourcesFit) to plugin name, from framework/plugins/names/names.go. */
    private static Map<String, String> goPluginNames() {
        Matcher constant =
                Pattern.compile("(\\w+)\\s*=\\s*\"(\\w+)\"").matcher(read(PLUGINS.resolve("names/names.go")));
        Map<String, String> names = new TreeMap<>();
        while (constant.find()) {
            names.put(constant.group(1), constant.group(2));
        }
        return names;
    }

    /** For each plugin type with a Name() method: the extension points its Go methods implement. */
    private static Map<String, Set<String>> extensionPointsFromSources() {
        Map<String, String> goNames = goPluginNames();
        Pattern nameConst = Pattern.compile("(\\w+)\\s*=\\s*names\\.(\\w+)");
        Pattern nameMethod = Pattern.compile("func \\(\\w+ \\*?(\\w+)\\) Name\\(\\) string \\{\\s*return (\\w+)");
        Pattern method = Pattern.compile("func \\(\\w+ \\*?(\\w+)\\) (\\w+)\\(");
        Map<String, Set<String>> result = new TreeMap<>();
        for (Path dir : pluginDirectories()) {
            String source = goSourcesOf(dir);
            Map<String, String> constants = new HashMap<>();
            Matcher constMatcher = nameConst.matcher(source);
            while (constMatcher.find()) {
                constants.put(constMatcher.group(1), goNames.get(constMatcher.group(2)));
            }
            Map<String, String> typeToPlugin = new HashMap<>();
            Matcher nameMatcher = nameMethod.matcher(source);
            while (nameMatcher.find()) {
                String plugin = constants.get(nameMatcher.group(2));
                if (plugin != null) {
                    typeToPlugin.put(nameMatcher.group(1), plugin);
                }
            }
            Matcher methodMatcher = method.matcher(source);
            while (methodMatcher.find()) {
                String plugin = typeToPlugin.get(methodMatcher.group(1));
                String point = METHOD_TO_POINT.get(methodMatcher.group(2));
                if (plugin != null && point != null) {
                    result.computeIfAbsent(plugin, p -> new LinkedHashSet<>()).add(point);
                }
            }
            typeToPlugin.values().forEach(plugin -> result.computeIfAbsent(plugin, p -> new LinkedHashSet<>()));
        }
        return result;
    }

    private static List<Path> pluginDirectories() {
        try (Stream<Path> dirs = Files.list(PLUGINS)) {
            return dirs.filter(Files::isDirectory)
                    .filter(dir -> !Set.of("examples", "testing", "names", "helper", "feature")
                            .contains(dir.getFileName().toString()))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String goSourcesOf(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            StringBuilder all = new StringBuilder();
            files.filter(file ->
                            file.toString().endsWith(".go") && !file.toString().endsWith("_test.go"))
                    .sorted()
                    .forEach(file -> all.append(read(file)).append('\n'));
            return all.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
