package dev.schedulerops.operator.validation;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-tree plugins of one Kubernetes minor version: which are registered, the extension points each implements,
 * which validation refuses as removed, the default plugin set and the args kinds with their fields.
 *
 * <p>Read from {@code kube-scheduler/plugins-<minor>.txt}, generated from that release's Kubernetes sources (and the
 * defaults its kube-scheduler writes) by the e2e module's {@code PluginCatalogFilesTest}, which checks the committed
 * files against the sources on every run. Nothing here is written by hand except the replacement named for the
 * removed non-CSI volume limit plugins (the sources do not name one).
 */
public final class PluginCatalog {

    private static final String RESOURCE = "/kube-scheduler/plugins-%d.%d.txt";
    private static final Map<String, String> REPLACEMENTS = Map.of(
            "AzureDiskLimits", "NodeVolumeLimits",
            "CinderLimits", "NodeVolumeLimits",
            "EBSLimits", "NodeVolumeLimits",
            "GCEPDLimits", "NodeVolumeLimits");
    private static final Map<KubernetesVersion, Optional<PluginCatalog>> CACHE = new ConcurrentHashMap<>();

    private final KubernetesVersion version;
    private final List<String> points;
    private final Map<String, List<String>> plugins;
    private final Set<String> removed;
    private final List<DefaultPlugin> defaults;
    private final Map<String, List<String>> argsFields;

    private PluginCatalog(
            KubernetesVersion version,
            List<String> points,
            Map<String, List<String>> plugins,
            Set<String> removed,
            List<DefaultPlugin> defaults,
            Map<String, List<String>> argsFields) {
        this.version = version;
        this.points = List.copyOf(points);
        this.plugins = Collections.unmodifiableMap(plugins);
        this.removed = Collections.unmodifiableSet(removed);
        this.defaults = List.copyOf(defaults);
        this.argsFields = Collections.unmodifiableMap(argsFields);
    }

    /**
     * The catalog of a Kubernetes version such as {@code 1.33.13} or {@code 1.33}.
     *
     * @throws IllegalArgumentException if the version cannot be parsed or has no catalogue
     */
    public static PluginCatalog forVersion(String kubernetesVersion) {
        return forVersion(KubernetesVersion.parse(kubernetesVersion));
    }

    /**
     * The catalog of a major.minor version, read once.
     *
     * @throws IllegalArgumentException if the version has no catalogue
     */
    public static PluginCatalog forVersion(KubernetesVersion version) {
        return find(version)
                .orElseThrow(() -> new IllegalArgumentException("Kubernetes " + version
                        + " has no plugin catalogue; supported: " + SchedulerFlagCatalog.knownVersions()));
    }

    /** The catalog of a major.minor version, or empty when the operator has none for it. */
    public static Optional<PluginCatalog> find(KubernetesVersion version) {
        return CACHE.computeIfAbsent(version, PluginCatalog::load);
    }

    /** Whether {@link #forVersion} knows this version; false for unparseable strings. */
    public static boolean supports(String kubernetesVersion) {
        try {
            return find(KubernetesVersion.parse(kubernetesVersion)).isPresent();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Optional<PluginCatalog> load(KubernetesVersion version) {
        String resource = String.format(RESOURCE, version.major(), version.minor());
        try (InputStream in = PluginCatalog.class.getResourceAsStream(resource)) {
            return in == null
                    ? Optional.empty()
                    : Optional.of(parse(version, new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /**
     * Parses the catalogue format: lines {@code point <field>}, {@code plugin <Name> <point>...}, {@code default <Name>
     * [weight]}, {@code removed <Name>} and {@code args <Kind> <field>...}; {@code #} starts a comment line.
     */
    static PluginCatalog parse(KubernetesVersion version, String text) {
        List<String> points = new ArrayList<>();
        Map<String, List<String>> plugins = new LinkedHashMap<>();
        Set<String> removed = new LinkedHashSet<>();
        List<DefaultPlugin> defaults = new ArrayList<>();
        Map<String, List<String>> args = new LinkedHashMap<>();
        try (BufferedReader lines = new BufferedReader(new StringReader(text))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                List<String> f = List.of(line.trim().split("\\s+"));
                List<String> rest = f.subList(Math.min(2, f.size()), f.size());
                switch (f.get(0)) {
                    case "point" -> points.add(f.get(1));
                    case "plugin" -> plugins.put(f.get(1), List.copyOf(rest));
                    case "default" -> defaults.add(
                            new DefaultPlugin(f.get(1), rest.isEmpty() ? null : Integer.valueOf(rest.get(0))));
                    case "removed" -> removed.add(f.get(1));
                    case "args" -> args.put(f.get(1), List.copyOf(rest));
                    default -> throw new IllegalArgumentException("not a plugin catalogue line: " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new PluginCatalog(version, points, plugins, removed, defaults, args);
    }

    /** The major.minor version this catalog describes, e.g. {@code 1.33}. */
    public KubernetesVersion version() {
        return version;
    }

    /** Names of all in-tree plugins registered by this version's kube-scheduler, in registry order. */
    public Set<String> pluginNames() {
        return plugins.keySet();
    }

    public boolean isKnown(String plugin) {
        return plugins.containsKey(plugin);
    }

    /**
     * The extension points (camelCase field names) the plugin implements, in the order of the version's
     * {@code Plugins} fields, including points the operator's API does not offer (such as 1.36's
     * {@code placementGenerate}); empty for an unknown plugin. {@code multiPoint} is not listed: every known plugin may
     * be enabled there.
     */
    public List<String> extensionPoints(String plugin) {
        return plugins.getOrDefault(plugin, List.of());
    }

    /** The {@code plugins} fields of this version's KubeSchedulerConfiguration, {@code multiPoint} included. */
    public List<String> pointFields() {
        return points;
    }

    /** Whether the known plugin may be enabled at the point: it implements it, or the point is multiPoint. */
    public boolean accepts(String plugin, ExtensionPoint point) {
        return isKnown(plugin)
                && (point == ExtensionPoint.MULTI_POINT
                        || extensionPoints(plugin).contains(point.fieldName()));
    }

    /**
     * Whether the plugin may be enabled at the point: a known plugin that accepts it, or one the catalog does not
     * know (an out-of-tree plugin of a custom image, whose extension points cannot be checked).
     */
    boolean mayImplement(String plugin, ExtensionPoint point) {
        return !isKnown(plugin) || accepts(plugin, point);
    }

    Set<ExtensionPoint> implementedPoints(String plugin) {
        Set<ExtensionPoint> implemented = EnumSet.noneOf(ExtensionPoint.class);
        extensionPoints(plugin)
                .forEach(field -> ExtensionPoint.fromFieldName(field).ifPresent(implemented::add));
        return implemented;
    }

    /** Whether this version's validation refuses the plugin as removed (even where it is still registered). */
    public boolean isRemoved(String plugin) {
        return removed.contains(plugin);
    }

    /** The plugin to use instead of a removed one. */
    public Optional<String> replacementFor(String plugin) {
        return Optional.ofNullable(REPLACEMENTS.get(plugin));
    }

    /** The error for a plugin this version refuses as removed, naming its replacement; empty if not removed. */
    Optional<String> removedMessage(String plugin) {
        if (!isRemoved(plugin)) {
            return Optional.empty();
        }
        String message = "plugin " + GoValues.shown(plugin) + " was removed: kube-scheduler " + version + " refuses it";
        return Optional.of(replacementFor(plugin)
                .map(replacement -> message + "; use " + replacement + " instead")
                .orElse(message));
    }

    /** kube-scheduler's default {@code multiPoint} plugins, in order, with their default weights. */
    public List<DefaultPlugin> defaults() {
        return defaults;
    }

    /** Whether the plugin has a typed args kind that kube-scheduler decodes strictly and validates. */
    public boolean hasArgs(String plugin) {
        return argsFields.containsKey(plugin + "Args");
    }

    /** The args kind, e.g. {@code NodeResourcesFitArgs}, for plugins with typed args. */
    public Optional<String> argsKind(String plugin) {
        return hasArgs(plugin) ? Optional.of(plugin + "Args") : Optional.empty();
    }

    /** The args kinds of this version, each with its top-level json fields. */
    public Map<String, List<String>> argsKinds() {
        return argsFields;
    }

    /** The feature gate that allows {@code VolumeBindingArgs.shape}; off by default up to 1.36, beta and on in 1.37. */
    public String volumeBindingShapeFeatureGate() {
        return version.minor() >= 33 ? "StorageCapacityScoring" : "VolumeCapacityPriority";
    }

    @Override
    public String toString() {
        return "PluginCatalog[" + version + "]";
    }
}
