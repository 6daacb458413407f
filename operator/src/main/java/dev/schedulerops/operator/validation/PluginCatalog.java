package dev.schedulerops.operator.validation;

import static dev.schedulerops.operator.validation.ExtensionPoint.BIND;
import static dev.schedulerops.operator.validation.ExtensionPoint.FILTER;
import static dev.schedulerops.operator.validation.ExtensionPoint.POST_BIND;
import static dev.schedulerops.operator.validation.ExtensionPoint.POST_FILTER;
import static dev.schedulerops.operator.validation.ExtensionPoint.PRE_BIND;
import static dev.schedulerops.operator.validation.ExtensionPoint.PRE_ENQUEUE;
import static dev.schedulerops.operator.validation.ExtensionPoint.PRE_FILTER;
import static dev.schedulerops.operator.validation.ExtensionPoint.PRE_SCORE;
import static dev.schedulerops.operator.validation.ExtensionPoint.QUEUE_SORT;
import static dev.schedulerops.operator.validation.ExtensionPoint.RESERVE;
import static dev.schedulerops.operator.validation.ExtensionPoint.SCORE;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The in-tree plugins of one Kubernetes minor version: which exist, the extension points each implements, which were
 * removed, the default plugin set and which plugins take typed args.
 *
 * <p>1.33 is taken from the 1.33.13 sources ({@code framework/plugins/registry.go}, each plugin's Go methods,
 * {@code apis/config/v1/default_plugins.go}). The other versions are 1.33 plus these differences, from the upstream
 * history: 1.31 still registers the deprecated non-CSI volume limit plugins (removed from the defaults in 1.31,
 * removed entirely in 1.32), its DynamicResources also implements preScore and postBind (classic DRA, removed in
 * 1.32) and its DefaultPreemption has no preEnqueue (added with async preemption in 1.32); 1.34 enables
 * DynamicResources by default (DRA GA) and adds DynamicResourcesArgs.
 */
public final class PluginCatalog {

    public static final KubernetesVersion OLDEST_SUPPORTED = new KubernetesVersion(1, 31);
    public static final KubernetesVersion NEWEST_SUPPORTED = new KubernetesVersion(1, 34);

    private static final List<String> NON_CSI_VOLUME_LIMITS =
            List.of("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits");
    private static final String NON_CSI_VOLUME_LIMITS_REPLACEMENT = "NodeVolumeLimits";
    private static final KubernetesVersion NON_CSI_VOLUME_LIMITS_REMOVED_IN = new KubernetesVersion(1, 32);

    /** The catalog of every supported minor version, built once (catalogs are immutable). */
    private static final Map<KubernetesVersion, PluginCatalog> CATALOGS = buildAll();

    private final KubernetesVersion version;
    private final Map<String, Set<ExtensionPoint>> plugins;
    private final Map<String, KubernetesVersion> removed;
    private final List<DefaultPlugin> defaults;
    private final Set<String> pluginsWithArgs;

    private PluginCatalog(
            KubernetesVersion version,
            Map<String, Set<ExtensionPoint>> plugins,
            Map<String, KubernetesVersion> removed,
            List<DefaultPlugin> defaults,
            Set<String> pluginsWithArgs) {
        this.version = version;
        this.plugins = Collections.unmodifiableMap(plugins);
        this.removed = Collections.unmodifiableMap(removed);
        this.defaults = List.copyOf(defaults);
        this.pluginsWithArgs = Collections.unmodifiableSet(pluginsWithArgs);
    }

    /**
     * The catalog of a Kubernetes version such as {@code 1.33.13} or {@code 1.33}.
     *
     * @throws IllegalArgumentException if the version cannot be parsed or is outside 1.31..1.34
     */
    public static PluginCatalog forVersion(String kubernetesVersion) {
        return forVersion(KubernetesVersion.parse(kubernetesVersion));
    }

    /**
     * The catalog of a major.minor version: a lookup, every catalog is built once.
     *
     * @throws IllegalArgumentException if the version is outside 1.31..1.34
     */
    public static PluginCatalog forVersion(KubernetesVersion version) {
        PluginCatalog catalog = CATALOGS.get(version);
        if (catalog == null) {
            throw new IllegalArgumentException("Kubernetes " + version + " is not supported by the plugin catalog;"
                    + " supported: " + OLDEST_SUPPORTED + " to " + NEWEST_SUPPORTED);
        }
        return catalog;
    }

    /** Whether {@link #forVersion} knows this version; false for unparseable strings. */
    public static boolean supports(String kubernetesVersion) {
        try {
            return isSupported(KubernetesVersion.parse(kubernetesVersion));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isSupported(KubernetesVersion version) {
        return CATALOGS.containsKey(version);
    }

    private static Map<KubernetesVersion, PluginCatalog> buildAll() {
        Map<KubernetesVersion, PluginCatalog> catalogs = new LinkedHashMap<>();
        for (int minor = OLDEST_SUPPORTED.minor(); minor <= NEWEST_SUPPORTED.minor(); minor++) {
            KubernetesVersion version = new KubernetesVersion(OLDEST_SUPPORTED.major(), minor);
            catalogs.put(version, build(version));
        }
        return Collections.unmodifiableMap(catalogs);
    }

    private static PluginCatalog build(KubernetesVersion version) {
        int minor = version.minor();
        Map<String, Set<ExtensionPoint>> plugins = new LinkedHashMap<>();
        plugins.put("SchedulingGates", EnumSet.of(PRE_ENQUEUE));
        plugins.put("PrioritySort", EnumSet.of(QUEUE_SORT));
        plugins.put("NodeUnschedulable", EnumSet.of(FILTER));
        plugins.put("NodeName", EnumSet.of(FILTER));
        plugins.put("TaintToleration", EnumSet.of(FILTER, PRE_SCORE, SCORE));
        plugins.put("NodeAffinity", EnumSet.of(PRE_FILTER, FILTER, PRE_SCORE, SCORE));
        plugins.put("NodePorts", EnumSet.of(PRE_FILTER, FILTER));
        plugins.put("NodeResourcesFit", EnumSet.of(PRE_FILTER, FILTER, PRE_SCORE, SCORE));
        plugins.put("VolumeRestrictions", EnumSet.of(PRE_FILTER, FILTER));
        plugins.put("NodeVolumeLimits", EnumSet.of(PRE_FILTER, FILTER));
        plugins.put("VolumeBinding", EnumSet.of(PRE_FILTER, FILTER, RESERVE, PRE_SCORE, SCORE, PRE_BIND));
        plugins.put("VolumeZone", EnumSet.of(PRE_FILTER, FILTER));
        plugins.put("PodTopologySpread", EnumSet.of(PRE_FILTER, FILTER, PRE_SCORE, SCORE));
        plugins.put("InterPodAffinity", EnumSet.of(PRE_FILTER, FILTER, PRE_SCORE, SCORE));
        plugins.put(
                "DynamicResources",
                minor <= 31
                        ? EnumSet.of(
                                PRE_ENQUEUE, PRE_FILTER, FILTER, POST_FILTER, PRE_SCORE, RESERVE, PRE_BIND, POST_BIND)
                        : EnumSet.of(PRE_ENQUEUE, PRE_FILTER, FILTER, POST_FILTER, RESERVE, PRE_BIND));
        plugins.put("DefaultPreemption", minor <= 31 ? EnumSet.of(POST_FILTER) : EnumSet.of(PRE_ENQUEUE, POST_FILTER));
        plugins.put("NodeResourcesBalancedAllocation", EnumSet.of(PRE_SCORE, SCORE));
        plugins.put("ImageLocality", EnumSet.of(SCORE));
        plugins.put("DefaultBinder", EnumSet.of(BIND));

        Map<String, KubernetesVersion> removed = new LinkedHashMap<>();
        if (version.compareTo(NON_CSI_VOLUME_LIMITS_REMOVED_IN) < 0) {
            NON_CSI_VOLUME_LIMITS.forEach(name -> plugins.put(name, EnumSet.of(PRE_FILTER, FILTER)));
        } else {
            NON_CSI_VOLUME_LIMITS.forEach(name -> removed.put(name, NON_CSI_VOLUME_LIMITS_REMOVED_IN));
        }

        List<DefaultPlugin> defaults = new ArrayList<>(List.of(
                new DefaultPlugin("SchedulingGates", null),
                new DefaultPlugin("PrioritySort", null),
                new DefaultPlugin("NodeUnschedulable", null),
                new DefaultPlugin("NodeName", null),
                new DefaultPlugin("TaintToleration", 3),
                new DefaultPlugin("NodeAffinity", 2),
                new DefaultPlugin("NodePorts", null),
                new DefaultPlugin("NodeResourcesFit", 1),
                new DefaultPlugin("VolumeRestrictions", null),
                new DefaultPlugin("NodeVolumeLimits", null),
                new DefaultPlugin("VolumeBinding", null),
                new DefaultPlugin("VolumeZone", null),
                new DefaultPlugin("PodTopologySpread", 2),
                new DefaultPlugin("InterPodAffinity", 2),
                new DefaultPlugin("DefaultPreemption", null),
                new DefaultPlugin("NodeResourcesBalancedAllocation", 1),
                new DefaultPlugin("ImageLocality", 1),
                new DefaultPlugin("DefaultBinder", null)));
        if (dynamicResourceAllocationOnByDefault(version)) {
            // applyFeatureGates: DynamicResources goes right before DefaultPreemption.
            int preemption = defaults.indexOf(new DefaultPlugin("DefaultPreemption", null));
            defaults.add(preemption, new DefaultPlugin("DynamicResources", null));
        }

        return new PluginCatalog(version, plugins, removed, defaults, ArgsKinds.pluginsWithArgs(minor));
    }

    private static boolean dynamicResourceAllocationOnByDefault(KubernetesVersion version) {
        return version.minor() >= 34;
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
     * The extension points (camelCase field names) the plugin implements, in the framework's order; empty for an
     * unknown plugin. {@code multiPoint} is not listed: every known plugin may be enabled there.
     */
    public Set<String> extensionPoints(String plugin) {
        Set<String> names = new LinkedHashSet<>();
        implementedPoints(plugin).forEach(point -> names.add(point.fieldName()));
        return Collections.unmodifiableSet(names);
    }

    /** Whether the known plugin may be enabled at the point: it implements it, or the point is multiPoint. */
    public boolean accepts(String plugin, ExtensionPoint point) {
        return isKnown(plugin)
                && (point == ExtensionPoint.MULTI_POINT
                        || implementedPoints(plugin).contains(point));
    }

    /**
     * Whether the plugin may be enabled at the point: a known plugin that accepts it, or one the catalog does not
     * know (an out-of-tree plugin of a custom image, whose extension points cannot be checked).
     */
    boolean mayImplement(String plugin, ExtensionPoint point) {
        return !isKnown(plugin) || accepts(plugin, point);
    }

    Set<ExtensionPoint> implementedPoints(String plugin) {
        Set<ExtensionPoint> points = plugins.get(plugin);
        return points == null ? Set.of() : Collections.unmodifiableSet(points);
    }

    /** The version ({@code 1.32}) in which the plugin was removed, if it was removed in or before this version. */
    public Optional<String> removedIn(String plugin) {
        return Optional.ofNullable(removed.get(plugin)).map(KubernetesVersion::toString);
    }

    /** The plugin to use instead of a removed one. */
    public Optional<String> replacementFor(String plugin) {
        return NON_CSI_VOLUME_LIMITS.contains(plugin)
                ? Optional.of(NON_CSI_VOLUME_LIMITS_REPLACEMENT)
                : Optional.empty();
    }

    /** The error for a plugin removed in or before this version, naming its replacement; empty if not removed. */
    Optional<String> removedMessage(String plugin) {
        return removedIn(plugin).map(version -> {
            String message = "plugin " + GoValues.shown(plugin) + " was removed in Kubernetes " + version;
            return replacementFor(plugin)
                    .map(replacement -> message + "; use " + replacement + " instead")
                    .orElse(message);
        });
    }

    /** kube-scheduler's default {@code multiPoint} plugins, in order, with their default weights. */
    public List<DefaultPlugin> defaults() {
        return defaults;
    }

    /** Whether the plugin has a typed args kind that kube-scheduler decodes strictly and validates. */
    public boolean hasArgs(String plugin) {
        return pluginsWithArgs.contains(plugin);
    }

    /** The args kind, e.g. {@code NodeResourcesFitArgs}, for plugins with typed args. */
    public Optional<String> argsKind(String plugin) {
        return hasArgs(plugin) ? Optional.of(plugin + "Args") : Optional.empty();
    }

    /** The feature gate that allows {@code VolumeBindingArgs.shape}; off by default in every supported version. */
    String volumeBindingShapeFeatureGate() {
        return version.minor() >= 33 ? "StorageCapacityScoring" : "VolumeCapacityPriority";
    }

    @Override
    public String toString() {
        return "PluginCatalog[" + version + "]";
    }
}
