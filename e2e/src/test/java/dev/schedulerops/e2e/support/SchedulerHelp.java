package dev.schedulerops.e2e.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The generator of the operator's flag catalogues ({@code operator/src/main/resources/kube-scheduler/flags-*.txt}):
 * parses what {@code kube-scheduler --help} prints into the lines {@code SchedulerFlagCatalog} reads.
 *
 * <p>pflag prints a flag as {@code --name type   description}, the type left out for booleans; feature gates are the
 * continuation lines of --feature-gates, {@code [kube:]Name=true|false (ALPHA - default=false)}.
 */
public final class SchedulerHelp {
    private static final Pattern FLAG =
            Pattern.compile("^\\s+(?:-\\w, )?--([a-z0-9][a-z0-9-]*)(?: (\\S+))?\\s{2,}(.*)$");
    private static final Pattern GATE = Pattern.compile(
            "^\\s+(?:kube:)?([A-Za-z0-9]+)=true\\|false \\((ALPHA|BETA|GA|DEPRECATED) - default=(true|false)\\)");
    private static final Pattern DEPENDENCY = Pattern.compile("(?m)^\\s+(?:\\w+\\.)?(\\w+):\\s*\\{([^}]*)}");
    private static final String IGNORED_WITH_CONFIG = "ignored if a config file is specified";
    private static final Pattern NEEDS_GATE = Pattern.compile("Enable the (\\w+) feature gate to use this");

    /** The command that regenerates every catalogue (from the repository root). */
    public static final String REGENERATE = "./mvnw -pl e2e -am verify -Dtest=SchedulerFlagCatalogTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dcatalogue.update=true";

    private SchedulerHelp() {}

    /** The catalogue text for the help of {@code release} (e.g. "v1.33.13"), sorted, one flag or gate a line. */
    public static String catalogue(String help, String release) {
        return catalogue(help, release, Map.of());
    }

    /**
     * Reads {@code defaultKubernetesFeatureGateDependencies} of {@code pkg/features/kube_features.go} (1.35 and later;
     * earlier versions have none): gate to the gates it needs, package qualifiers dropped, empty lists left out.
     */
    public static Map<String, List<String>> dependencies(String kubeFeaturesGo) {
        Map<String, List<String>> deps = new TreeMap<>();
        int start = kubeFeaturesGo.indexOf("var defaultKubernetesFeatureGateDependencies = map[");
        if (start < 0) {
            return deps;
        }
        int end = kubeFeaturesGo.indexOf("\n}\n", start);
        Matcher entry = DEPENDENCY.matcher(kubeFeaturesGo.substring(start, end));
        while (entry.find()) {
            List<String> needs = new ArrayList<>();
            for (String need : entry.group(2).split(",")) {
                // "genericfeatures.X" or "featuregate.Feature(clientfeatures.X)": the gate's name is X.
                String name = need.trim()
                        .replaceAll("^featuregate\\.Feature\\((.*)\\)$", "$1")
                        .replaceAll("^\\w+\\.", "");
                if (!name.isEmpty()) {
                    needs.add(name);
                }
            }
            if (!needs.isEmpty()) {
                deps.put(entry.group(1), needs);
            }
        }
        return deps;
    }

    public static String catalogue(String help, String release, Map<String, List<String>> dependencies) {
        Map<String, String> flags = new TreeMap<>();
        Map<String, String> gates = new TreeMap<>();
        for (String line : help.lines().toList()) {
            Matcher gate = GATE.matcher(line);
            if (gate.find()) {
                gates.put(gate.group(1), "gate " + gate.group(1) + " " + gate.group(2) + " " + gate.group(3));
                continue;
            }
            Matcher flag = FLAG.matcher(line);
            if (flag.matches()) {
                String name = flag.group(1);
                String type = flag.group(2) == null ? "bool" : flag.group(2);
                String note = flag.group(3).contains(IGNORED_WITH_CONFIG) ? " ignored-with-config" : "";
                Matcher gated = NEEDS_GATE.matcher(flag.group(3));
                if (gated.find()) {
                    note += " gate=" + gated.group(1);
                }
                flags.put(name, "flag " + name + " " + type + note);
            }
        }
        if (flags.size() < 20 || gates.size() < 10) {
            throw new IllegalArgumentException("kube-scheduler " + release + " --help yielded only " + flags.size()
                    + " flags and " + gates.size() + " gates: has its format changed?");
        }
        List<String> out = new ArrayList<>();
        out.add("# generated from kube-scheduler " + release
                + " --help by SchedulerFlagCatalogTest (e2e); do not edit:");
        out.add("# " + REGENERATE);
        out.addAll(flags.values());
        out.addAll(gates.values());
        dependencies.forEach((gate, needs) -> out.add("depends " + gate + " " + String.join(" ", needs)));
        return String.join("\n", out) + "\n";
    }
}
