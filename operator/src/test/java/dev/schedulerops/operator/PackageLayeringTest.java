package dev.schedulerops.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operator's packages form layers: api → model → validation → render → preview → reconcile → runtime → cli, with tls (the
 * certificates: pure policy and issuer, no Kubernetes client) beside validation and render, used by reconcile. A package may
 * import only from the packages listed for it (its own always); this test reads every main source file's imports,
 * so a new import that goes the wrong way fails the build.
 */
class PackageLayeringTest {
    static final String ROOT = "dev.schedulerops.operator";

    static final Map<String, Set<String>> ALLOWED = Map.of(
            "api", Set.of(),
            "model", Set.of("api"),
            "validation", Set.of("api", "model"),
            "tls", Set.of("api", "model"),
            "render", Set.of("api", "model", "validation"),
            "preview", Set.of("api", "model", "validation", "render"),
            "reconcile", Set.of("api", "model", "validation", "render", "tls", "preview"),
            "runtime", Set.of("api", "model", "validation", "render", "reconcile", "tls", "preview"),
            "cli", Set.of("api", "model", "validation", "render", "reconcile", "runtime", "tls", "preview"),
            "", Set.of("api", "model", "validation", "render", "reconcile", "runtime", "cli", "tls", "preview"));

    @Test
    void everyImportFollowsTheLayers() {
        List<String> violations = violations(Path.of("src/main/java"), ROOT, ALLOWED);
        assertThat(violations).isEmpty();
    }

    @Test
    void everyPackageHasItsLayer() {
        assertThat(packagesUnder(Path.of("src/main/java"), ROOT)).isSubsetOf(ALLOWED.keySet());
    }

    @Test
    void aWrongWayImportIsReported() throws IOException {
        Path dir = Files.createTempDirectory("layering");
        Path file = dir.resolve("dev/schedulerops/operator/model/Bad.java");
        Files.createDirectories(file.getParent());
        Files.writeString(
                file,
                "package dev.schedulerops.operator.model;\n\nimport dev.schedulerops.operator.render.Yaml;\n"
                        + "import static dev.schedulerops.operator.reconcile.ProfileStatuses.READY;\n");
        assertThat(violations(dir, ROOT, ALLOWED))
                .containsExactly(
                        "model/Bad.java imports dev.schedulerops.operator.render.Yaml",
                        "model/Bad.java imports dev.schedulerops.operator.reconcile.ProfileStatuses.READY");
    }

    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+);");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?:static\\s+)?([\\w.]+)(?:\\.\\*)?;");

    /** Imports that cross layers the wrong way, as "pkg/File.java imports x.y.Z". */
    static List<String> violations(Path sources, String root, Map<String, Set<String>> allowed) {
        List<String> violations = new ArrayList<>();
        Path base = sources.resolve(root.replace('.', '/'));
        for (Path file : javaFiles(base)) {
            String text = read(file);
            Matcher pkg = PACKAGE.matcher(text);
            String layer = pkg.find() ? layerOf(pkg.group(1), root) : null;
            Matcher imports = IMPORT.matcher(text);
            while (imports.find()) {
                String target = imports.group(1);
                String targetLayer = layerOf(target, root);
                if (targetLayer == null || targetLayer.equals(layer)) {
                    continue;
                }
                Set<String> may = allowed.getOrDefault(layer, Set.of());
                if (!may.contains(targetLayer)) {
                    violations.add(base.relativize(file).toString().replace('\\', '/') + " imports " + target);
                }
            }
        }
        return violations;
    }

    /** The first package segment under root ("" for root itself); null outside root. */
    static String layerOf(String name, String root) {
        if (name.equals(root)) {
            return "";
        }
        if (!name.startsWith(root + ".")) {
            return null;
        }
        String rest = name.substring(root.length() + 1);
        String first = rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest;
        // A class directly in the root package (Main) is named with a capital letter.
        return Character.isUpperCase(first.charAt(0)) ? "" : first;
    }

    static Set<String> packagesUnder(Path sources, String root) {
        Path base = sources.resolve(root.replace('.', '/'));
        Set<String> layers = new java.util.TreeSet<>();
        for (Path file : javaFiles(base)) {
            Path relative = base.relativize(file);
            layers.add(relative.getNameCount() == 1 ? "" : relative.getName(0).toString());
        }
        return layers;
    }

    private static List<Path> javaFiles(Path base) {
        try (Stream<Path> files = Files.walk(base)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
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
