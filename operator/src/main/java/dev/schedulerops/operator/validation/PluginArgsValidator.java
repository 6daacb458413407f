package dev.schedulerops.operator.validation;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Validates the {@code plugins} and {@code pluginConfig} of a profile against what kube-scheduler of the catalog's
 * version refuses at start-up, without talking to a cluster. Messages start with the field path the user wrote, e.g.
 * {@code spec.plugins.filter.enabled[1].name: ...}. Things kube-scheduler accepts but that have no effect (weights at
 * non-score points, args of a plugin that takes none, ...) are reported as warnings, never as errors.
 */
public final class PluginArgsValidator {

    private final PluginCatalog catalog;
    private final boolean customSchedulerImage;
    private final String specPath;
    private final Predicate<String> gateEnabled;

    /**
     * @param customSchedulerImage true when the user runs their own scheduler image: plugin names the catalog does
     *     not know are then assumed to be out-of-tree plugins of that image
     */
    public PluginArgsValidator(PluginCatalog catalog, boolean customSchedulerImage) {
        this(catalog, customSchedulerImage, "spec");
    }

    /** As above, with the path under which {@code plugins} and {@code pluginConfig} live (default {@code spec}). */
    public PluginArgsValidator(PluginCatalog catalog, boolean customSchedulerImage, String specPath) {
        this(catalog, customSchedulerImage, specPath, defaultGates(catalog));
    }

    /**
     * As above, with the feature gates the scheduler runs with (some args fields are refused unless a gate is on).
     *
     * @param gateEnabled whether a gate is on for the scheduler (set in the profile, else the version's default)
     */
    public PluginArgsValidator(
            PluginCatalog catalog, boolean customSchedulerImage, String specPath, Predicate<String> gateEnabled) {
        this.catalog = catalog;
        this.customSchedulerImage = customSchedulerImage;
        this.specPath = specPath;
        this.gateEnabled = gateEnabled;
    }

    /** The version's gate defaults, from its flag catalogue (a gate it does not list is GA, so on). */
    static Predicate<String> defaultGates(PluginCatalog catalog) {
        return gate -> SchedulerFlagCatalog.forVersion(catalog.version())
                .map(flags -> SchedulerArgsRules.enabled(gate, Map.of(), flags))
                .orElse(false);
    }

    /**
     * @param pluginsByExtensionPoint plugin sets keyed by camelCase extension point ({@code filter}, {@code
     *     multiPoint}, ...); null or empty means kube-scheduler's defaults
     * @param pluginConfig the {@code pluginConfig} entries in order; null means none
     */
    public ValidationResult validate(
            Map<String, PluginSetInput> pluginsByExtensionPoint, List<PluginConfigInput> pluginConfig) {
        Findings findings = new Findings();
        Set<String> enabledPlugins = new PluginSetRules(catalog, customSchedulerImage, specPath + ".plugins")
                .check(pluginsByExtensionPoint == null ? Map.of() : pluginsByExtensionPoint, findings);
        checkPluginConfig(pluginConfig == null ? List.of() : pluginConfig, enabledPlugins, findings);
        return findings.toResult();
    }

    private void checkPluginConfig(List<PluginConfigInput> entries, Set<String> enabledPlugins, Findings findings) {
        Map<String, Integer> firstIndex = new HashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            PluginConfigInput entry = entries.get(i);
            String path = specPath + ".pluginConfig[" + i + "]";
            String name = entry == null || entry.name() == null ? "" : entry.name();
            if (name.isEmpty()) {
                findings.warning(path + ".name", "empty plugin name; kube-scheduler ignores this entry");
                continue;
            }
            Integer first = firstIndex.putIfAbsent(name, i);
            if (first != null) {
                findings.duplicate(path + ".name", name);
            }
            var removed = catalog.removedMessage(name);
            if (removed.isPresent()) {
                findings.error(path + ".name", removed.get());
                continue;
            }
            Map<String, Object> args = entry.args();
            var kind = catalog.argsKind(name);
            if (kind.isPresent()) {
                checkArgs(name, kind.get(), args, path + ".args", enabledPlugins.contains(name), findings);
            } else if (catalog.isKnown(name)) {
                if (args != null && !args.isEmpty()) {
                    findings.warning(
                            path + ".args",
                            "plugin " + GoValues.shown(name) + " takes no args; kube-scheduler ignores them");
                }
            } else if (!customSchedulerImage) {
                findings.warning(
                        path + ".name",
                        "plugin " + GoValues.shown(name) + " is not a known in-tree plugin of Kubernetes "
                                + catalog.version() + "; kube-scheduler ignores its args");
            }
        }
    }

    private void checkArgs(
            String plugin,
            String kind,
            Map<String, Object> args,
            String argsPath,
            boolean pluginEnabled,
            Findings findings) {
        if (!pluginEnabled) {
            findings.warning(
                    argsPath,
                    "plugin " + GoValues.shown(plugin)
                            + " is not enabled in this profile; its args are validated but have no effect");
        }
        if (args == null) {
            return;
        }
        int errorsBefore = findings.errorCount();
        new StrictDecoder(findings).check(args, ArgsKinds.shapeIn(catalog, kind), argsPath);
        if (findings.errorCount() == errorsBefore) {
            new ArgsRules(catalog, findings, gateEnabled).check(plugin, kind, args, argsPath, pluginEnabled);
        }
    }
}
