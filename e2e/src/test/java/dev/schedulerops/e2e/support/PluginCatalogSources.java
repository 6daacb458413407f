package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The generator of the operator's plugin catalogues ({@code operator/src/main/resources/kube-scheduler/plugins-*.txt},
 * read by {@code PluginCatalog}): everything is read from the Kubernetes sources of one release in the Go module
 * cache, except the default plugin set, which is what that release's kube-scheduler writes for an empty profile (its
 * feature gates decide it, and the binary knows their defaults).
 *
 * <ul>
 *   <li>extension points: the json fields of {@code Plugins} in {@code k8s.io/kube-scheduler/config/v1/types.go};
 *   <li>plugins: the keys of {@code NewInTreeRegistry} ({@code framework/plugins/registry.go}), resolved through each
 *       package's name constants and {@code names/names.go};
 *   <li>the points of each plugin: the Go methods of the type whose {@code Name()} returns its name (Filter makes a
 *       filter plugin, and so on);
 *   <li>removed plugins: {@code invalidPluginsByVersion} of {@code apis/config/validation/validation.go};
 *   <li>args kinds and their top-level json fields: the {@code ...Args} types registered in
 *       {@code k8s.io/kube-scheduler/config/v1/register.go}.
 * </ul>
 */
public final class PluginCatalogSources {
    /** The command that regenerates every catalogue (from the repository root). */
    public static final String REGENERATE = SchedulerHelp.REGENERATE.replace(
            "-Dtest=SchedulerFlagCatalogTest", "-Dtest=SchedulerFlagCatalogTest,PluginCatalogFilesTest");

    /** Go method to the extension point whose interface it belongs to (framework/interface.go). */
    private static final Map<String, String> METHOD_TO_POINT = Map.ofEntries(
            Map.entry("PreEnqueue", "preEnqueue"),
            Map.entry("Less", "queueSort"),
            Map.entry("PreFilter", "preFilter"),
            Map.entry("Filter", "filter"),
            Map.entry("PostFilter", "postFilter"),
            Map.entry("PreScore", "preScore"),
            Map.entry("Score", "score"),
            Map.entry("Reserve", "reserve"),
            Map.entry("Permit", "permit"),
            Map.entry("PreBind", "preBind"),
            Map.entry("Bind", "bind"),
            Map.entry("PostBind", "postBind"),
            Map.entry("GeneratePlacements", "placementGenerate"),
            Map.entry("ScorePlacement", "placementScore"),
            Map.entry("PodGroupPostFilter", "podGroupPostFilter"));

    private static final Pattern JSON_FIELD = Pattern.compile("json:\"(\\w+)");
    private static final Pattern NAMES_CONSTANT = Pattern.compile("(\\w+)\\s*=\\s*\"(\\w+)\"");
    private static final Pattern PACKAGE_CONSTANT = Pattern.compile("(\\w+)\\s*=\\s*(?:names\\.(\\w+)|\"(\\w+)\")");
    private static final Pattern NAME_METHOD =
            Pattern.compile("func \\(\\w+ \\*?(\\w+)\\) Name\\(\\) string \\{\\s*return ([\\w.]+)");
    private static final Pattern METHOD = Pattern.compile("func \\(\\w+ \\*?(\\w+)\\) (\\w+)\\(");
    private static final Pattern IMPORT =
            Pattern.compile("(?m)^\\s*(\\w+ )?\"k8s.io/kubernetes/pkg/scheduler/framework/plugins/([\\w/]+)\"");
    private static final Pattern REGISTRY_KEY = Pattern.compile("(?m)^\\s*(\\w+)\\.(\\w+):");
    private static final Pattern ARGS_TYPE = Pattern.compile("&(\\w+Args)\\{}");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private PluginCatalogSources() {}

    /** One release's catalogue, as the lines {@code PluginCatalog} reads. */
    public record Catalogue(
            List<String> points,
            Map<String, Set<String>> plugins,
            List<String> defaults,
            List<String> removed,
            Map<String, List<String>> args) {

        public String text(String release) {
            List<String> lines = new ArrayList<>();
            lines.add("# generated from the Kubernetes " + release + " sources and the defaults its kube-scheduler"
                    + " writes, by PluginCatalogFilesTest (e2e); do not edit:");
            lines.add("# " + REGENERATE);
            points.forEach(point -> lines.add("point " + point));
            plugins.forEach((plugin, at) -> lines.add(("plugin " + plugin + " " + String.join(" ", at)).trim()));
            defaults.forEach(plugin -> lines.add("default " + plugin));
            removed.forEach(plugin -> lines.add("removed " + plugin));
            args.forEach((kind, fields) -> lines.add(("args " + kind + " " + String.join(" ", fields)).trim()));
            return String.join("\n", lines) + "\n";
        }
    }

    /**
     * @param kubernetes k8s.io/kubernetes of the release in the module cache
     * @param kubeSchedulerModule k8s.io/kube-scheduler of the release (v0.minor.patch)
     * @param effectiveConfig what the release's kube-scheduler wrote with --write-config-to for one empty profile
     */
    public static Catalogue read(Path kubernetes, Path kubeSchedulerModule, String effectiveConfig) {
        Path plugins = kubernetes.resolve("pkg/scheduler/framework/plugins");
        List<String> points = extensionPoints(kubeSchedulerModule.resolve("config/v1/types.go"));
        Map<String, String> names = namesConstants(plugins.resolve("names/names.go"));
        return new Catalogue(
                points,
                registeredPlugins(plugins, names, points),
                defaults(effectiveConfig),
                removed(kubernetes.resolve("pkg/scheduler/apis/config/validation/validation.go")),
                argsKinds(kubeSchedulerModule.resolve("config/v1")));
    }

    private static List<String> extensionPoints(Path typesGo) {
        String source = read(typesGo);
        List<String> points = new ArrayList<>();
        Matcher field = JSON_FIELD.matcher(structBody(source, "Plugins"));
        while (field.find()) {
            points.add(field.group(1));
        }
        require(points.contains("multiPoint"), "no Plugins struct with multiPoint in " + typesGo);
        return points;
    }

    /** Go constant (e.g. NodeResourcesFit) to plugin name, from names.go. */
    private static Map<String, String> namesConstants(Path namesGo) {
        Map<String, String> names = new HashMap<>();
        Matcher constant = NAMES_CONSTANT.matcher(read(namesGo));
        while (constant.find()) {
            names.put(constant.group(1), constant.group(2));
        }
        require(!names.isEmpty(), "no plugin names in " + namesGo);
        return names;
    }

    private static Map<String, Set<String>> registeredPlugins(
            Path pluginsDir, Map<String, String> names, List<String> versionPoints) {
        String registry = read(pluginsDir.resolve("registry.go"));
        Map<String, String> packageDirs = new HashMap<>();
        Matcher imported = IMPORT.matcher(registry);
        while (imported.find()) {
            String dir = imported.group(2);
            String alias = imported.group(1) == null
                    ? dir.substring(dir.lastIndexOf('/') + 1)
                    : imported.group(1).trim();
            packageDirs.put(alias, dir);
        }
        String body = registry.substring(registry.indexOf("registry := runtime.Registry{"));
        body = body.substring(0, body.indexOf("\n\t}"));
        Map<String, Set<String>> result = new TreeMap<>();
        Map<String, Map<String, Set<String>>> pointsByDir = new HashMap<>();
        Matcher key = REGISTRY_KEY.matcher(body);
        while (key.find()) {
            String dir = packageDirs.get(key.group(1));
            require(dir != null, "registry.go names package " + key.group(1) + " that it does not import");
            Path packageDir = pluginsDir.resolve(dir);
            String plugin = packageConstants(goSourcesOf(packageDir), names).get(key.group(2));
            require(plugin != null, "cannot resolve " + key.group(0).trim() + " of registry.go to a plugin name");
            Map<String, Set<String>> points =
                    pointsByDir.computeIfAbsent(dir, d -> pointsOfPlugins(packageDir, names, versionPoints));
            require(points.containsKey(plugin), "no type in " + packageDir + " has a Name() that returns " + plugin);
            result.put(plugin, points.get(plugin));
        }
        require(!result.isEmpty(), "no plugins in the registry of " + pluginsDir);
        return result;
    }

    /** A package's constants that name a plugin ({@code Name = names.X} or {@code Name = "X"}). */
    private static Map<String, String> packageConstants(String source, Map<String, String> names) {
        Map<String, String> constants = new HashMap<>();
        Matcher constant = PACKAGE_CONSTANT.matcher(source);
        while (constant.find()) {
            String plugin = constant.group(2) != null ? names.get(constant.group(2)) : constant.group(3);
            if (plugin != null && names.containsValue(plugin)) {
                constants.put(constant.group(1), plugin);
            }
        }
        return constants;
    }

    /**
     * The plugins of one package and the points their Go methods implement. A type whose Name() returns a field (the
     * deprecated non-CSI volume limits: one type, four names) takes every name constant no other type returns.
     */
    private static Map<String, Set<String>> pointsOfPlugins(
            Path packageDir, Map<String, String> names, List<String> versionPoints) {
        String source = goSourcesOf(packageDir);
        Map<String, String> constants = packageConstants(source, names);
        Map<String, List<String>> typeToPlugins = new HashMap<>();
        List<String> typesNamedByField = new ArrayList<>();
        Set<String> claimed = new LinkedHashSet<>();
        Matcher nameMethod = NAME_METHOD.matcher(source);
        while (nameMethod.find()) {
            String returned = nameMethod.group(2);
            String plugin = returned.startsWith("names.")
                    ? names.get(returned.substring("names.".length()))
                    : constants.get(returned);
            if (plugin != null) {
                typeToPlugins
                        .computeIfAbsent(nameMethod.group(1), t -> new ArrayList<>())
                        .add(plugin);
                claimed.add(plugin);
            } else if (returned.contains(".")) {
                typesNamedByField.add(nameMethod.group(1));
            }
        }
        if (typesNamedByField.size() == 1) {
            constants.values().stream()
                    .filter(plugin -> !claimed.contains(plugin))
                    .distinct()
                    .forEach(plugin -> typeToPlugins
                            .computeIfAbsent(typesNamedByField.get(0), t -> new ArrayList<>())
                            .add(plugin));
        }
        Map<String, Set<String>> methods = new HashMap<>();
        Matcher method = METHOD.matcher(source);
        while (method.find()) {
            String point = METHOD_TO_POINT.get(method.group(2));
            if (point != null) {
                methods.computeIfAbsent(method.group(1), t -> new TreeSet<>()).add(point);
            }
        }
        Map<String, Set<String>> result = new HashMap<>();
        typeToPlugins.forEach((type, plugins) -> {
            Set<String> points = new LinkedHashSet<>();
            versionPoints.stream()
                    .filter(methods.getOrDefault(type, Set.of())::contains)
                    .forEach(points::add);
            plugins.forEach(plugin -> result.put(plugin, points));
        });
        return result;
    }

    /** The merged multiPoint defaults the binary wrote: "Name" or "Name weight" for a score plugin's weight. */
    static List<String> defaults(String effectiveConfig) {
        try {
            JsonNode enabled = YAML.readTree(effectiveConfig)
                    .path("profiles")
                    .path(0)
                    .path("plugins")
                    .path("multiPoint")
                    .path("enabled");
            require(enabled.isArray() && !enabled.isEmpty(), "no multiPoint defaults in the effective config");
            List<String> defaults = new ArrayList<>();
            for (JsonNode plugin : enabled) {
                int weight = plugin.path("weight").asInt(0);
                defaults.add(plugin.path("name").asText() + (weight == 0 ? "" : " " + weight));
            }
            return defaults;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> removed(Path validationGo) {
        String source = read(validationGo);
        int start = source.indexOf("var invalidPluginsByVersion");
        require(start >= 0, "no invalidPluginsByVersion in " + validationGo);
        String list = source.substring(start, source.indexOf("\n}\n", start));
        List<String> removed = new ArrayList<>();
        Matcher quoted = Pattern.compile("\"(\\w+)\"").matcher(list);
        while (quoted.find()) {
            removed.add(quoted.group(1));
        }
        return removed;
    }

    /** Registered args kinds, sorted, each with its top-level json fields in declaration order. */
    private static Map<String, List<String>> argsKinds(Path configV1) {
        String register = read(configV1.resolve("register.go"));
        String types = goSourcesOf(configV1);
        Map<String, List<String>> kinds = new TreeMap<>();
        Matcher kind = ARGS_TYPE.matcher(register);
        while (kind.find()) {
            List<String> fields = new ArrayList<>();
            Matcher field = JSON_FIELD.matcher(structBody(types, kind.group(1)));
            while (field.find()) {
                fields.add(field.group(1));
            }
            kinds.put(kind.group(1), fields);
        }
        require(!kinds.isEmpty(), "no args kinds registered in " + configV1);
        return new LinkedHashMap<>(kinds);
    }

    /** The lines between {@code type Name struct {} and its closing brace, comments dropped. */
    private static String structBody(String source, String type) {
        int start = source.indexOf("\ntype " + type + " struct {");
        require(start >= 0, "no struct " + type);
        int end = source.indexOf("\n}", start);
        return source.substring(start, end)
                .lines()
                .map(line -> line.replaceAll("//.*", ""))
                .reduce("", (a, b) -> a + b + "\n");
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
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }
}
