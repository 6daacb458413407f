package dev.schedulerops.operator.validation;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The command-line flags and feature gates one kube-scheduler minor version knows, read from
 * {@code kube-scheduler/flags-<major.minor>.txt}. Those files are generated from each version's own
 * {@code kube-scheduler --help} ({@code SchedulerFlagCatalogTest} in the e2e module writes and checks them), so a
 * version without a file is one this operator was never checked against.
 *
 * <p>--help lists the gates a user may still set: alpha, beta and the two switches AllAlpha/AllBeta. GA and deprecated
 * gates are left out of it, so they are refused here although kube-scheduler accepts the value that equals their
 * locked default.
 */
public final class SchedulerFlagCatalog {

    /**
     * A flag: its pflag type ("bool", "int32", "duration", ...), whether --config makes kube-scheduler ignore it, and
     * the feature gate it needs enabled (its --help says "Enable the X feature gate to use this"), if any.
     */
    public record Flag(String name, String type, boolean ignoredWithConfig, Optional<String> gate) {}

    /** A feature gate: ALPHA or BETA (or the AllAlpha/AllBeta switches) and its default. */
    public record Gate(String name, String stage, boolean enabledByDefault) {}

    private static final String RESOURCE = "/kube-scheduler/flags-%d.%d.txt";
    private static final String INDEX = "/kube-scheduler/versions.txt";
    private static final Map<KubernetesVersion, Optional<SchedulerFlagCatalog>> CACHE = new ConcurrentHashMap<>();

    private final String generatedFrom;
    private final Map<String, Flag> flags;
    private final Map<String, Gate> gates;
    private final Map<String, List<String>> dependencies;

    SchedulerFlagCatalog(
            String generatedFrom,
            Map<String, Flag> flags,
            Map<String, Gate> gates,
            Map<String, List<String>> dependencies) {
        this.generatedFrom = generatedFrom;
        this.flags = Collections.unmodifiableMap(new TreeMap<>(flags));
        this.gates = Collections.unmodifiableMap(new TreeMap<>(gates));
        this.dependencies = Collections.unmodifiableMap(new TreeMap<>(dependencies));
    }

    /**
     * Gates that may be enabled only with others (kube-scheduler 1.35 and later refuse to start otherwise), from the
     * version's {@code pkg/features/kube_features.go}.
     */
    public Map<String, List<String>> dependencies() {
        return dependencies;
    }

    /** The catalogue of a minor version, or empty when the operator has none for it. */
    public static Optional<SchedulerFlagCatalog> forVersion(KubernetesVersion version) {
        return CACHE.computeIfAbsent(version, SchedulerFlagCatalog::load);
    }

    /** The minor versions that have a catalogue, e.g. "1.30..1.37", from {@code kube-scheduler/versions.txt}. */
    public static String knownVersions() {
        List<KubernetesVersion> versions = versions();
        return versions.isEmpty() ? "none" : versions.get(0) + ".." + versions.get(versions.size() - 1);
    }

    /** The supported minor versions, oldest first, read once from {@code kube-scheduler/versions.txt}. */
    public static List<KubernetesVersion> versions() {
        return Index.VERSIONS;
    }

    private static final class Index {
        static final List<KubernetesVersion> VERSIONS = read();

        private static List<KubernetesVersion> read() {
            try (InputStream in = SchedulerFlagCatalog.class.getResourceAsStream(INDEX)) {
                if (in == null) {
                    return List.of();
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                        .lines()
                        .filter(l -> !l.isBlank() && !l.startsWith("#"))
                        .map(l -> KubernetesVersion.parse(l.trim()))
                        .sorted()
                        .toList();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + INDEX, e);
            }
        }
    }

    /** The kube-scheduler release the catalogue was generated from, e.g. "v1.33.13". */
    public String generatedFrom() {
        return generatedFrom;
    }

    public Optional<Flag> flag(String name) {
        return Optional.ofNullable(flags.get(name));
    }

    public Optional<Gate> gate(String name) {
        return Optional.ofNullable(gates.get(name));
    }

    public Map<String, Flag> flags() {
        return flags;
    }

    public Map<String, Gate> gates() {
        return gates;
    }

    private static Optional<SchedulerFlagCatalog> load(KubernetesVersion version) {
        String resource = String.format(RESOURCE, version.major(), version.minor());
        try (InputStream in = SchedulerFlagCatalog.class.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            return Optional.of(parse(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /**
     * Parses the catalogue format: {@code # generated from kube-scheduler v1.33.13 ...} once, then lines
     * {@code flag <name> <type> [ignored-with-config] [gate=<Gate>]} and {@code gate <Name> <ALPHA|BETA> <default>} and {@code depends <Gate> <Gate>...}.
     */
    public static SchedulerFlagCatalog parse(String text) {
        String from = "unknown";
        Map<String, Flag> flags = new TreeMap<>();
        Map<String, Gate> gates = new TreeMap<>();
        Map<String, List<String>> dependencies = new TreeMap<>();
        try (BufferedReader lines = new BufferedReader(new java.io.StringReader(text))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith("# generated from kube-scheduler ")) {
                    from = line.substring("# generated from kube-scheduler ".length())
                            .split(" ")[0];
                }
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.trim().split("\\s+");
                switch (f[0]) {
                    case "flag" -> {
                        List<String> notes = List.of(f).subList(3, f.length);
                        Optional<String> gate = notes.stream()
                                .filter(n -> n.startsWith("gate="))
                                .map(n -> n.substring("gate=".length()))
                                .findFirst();
                        flags.put(f[1], new Flag(f[1], f[2], notes.contains("ignored-with-config"), gate));
                    }
                    case "gate" -> gates.put(f[1], new Gate(f[1], f[2], Boolean.parseBoolean(f[3])));
                    case "depends" -> dependencies.put(f[1], List.of(f).subList(2, f.length));
                    default -> throw new IllegalArgumentException("not a catalogue line: " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SchedulerFlagCatalog(from, flags, gates, dependencies);
    }
}
