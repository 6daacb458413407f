package dev.schedulerops.operator.validation;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.schedulerops.operator.api.Plugin;
import dev.schedulerops.operator.api.PluginConfig;
import dev.schedulerops.operator.api.PluginSet;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ResolvedProfile;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bridges a resolved profile to kube-scheduler's plugin and pluginConfig rules of the cluster's version, with the
 * feature gates the profile's scheduler runs with. Versions without a catalogue never get here in the operator (it
 * refuses them, see {@link SupportedVersions}); called directly, they are judged by the nearest catalogue.
 */
final class SchedulerPluginRules {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchedulerPluginRules() {}

    static List<String> validate(ResolvedProfile profile, ClusterFacts facts) {
        PluginCatalog catalog = PluginCatalog.forVersion(nearestSupported(facts.kubernetesVersion()));
        boolean customImage = profile.scheduler().image().isPresent();
        Map<String, PluginSetInput> sets = new LinkedHashMap<>();
        if (profile.plugins() != null) {
            profile.plugins().byExtensionPoint().forEach((point, set) -> sets.put(point, input(set)));
        }
        List<PluginConfigInput> configs =
                profile.pluginConfig().stream().map(SchedulerPluginRules::input).toList();
        Map<String, Boolean> gates = profile.scheduler().featureGates();
        return new PluginArgsValidator(
                        catalog, customImage, "spec", gate -> SchedulerFlagCatalog.forVersion(catalog.version())
                                .map(flags -> SchedulerArgsRules.enabled(gate, gates, flags))
                                .orElse(false))
                .validate(sets, configs)
                .errors();
    }

    static KubernetesVersion nearestSupported(String kubernetesVersion) {
        KubernetesVersion version = KubernetesVersion.parse(kubernetesVersion);
        if (PluginCatalog.find(version).isPresent()) {
            return version;
        }
        List<KubernetesVersion> supported = SchedulerFlagCatalog.versions();
        return version.compareTo(supported.get(0)) < 0 ? supported.get(0) : supported.get(supported.size() - 1);
    }

    private static PluginSetInput input(PluginSet set) {
        return new PluginSetInput(refs(set.getEnabled()), refs(set.getDisabled()));
    }

    private static List<PluginRef> refs(List<Plugin> plugins) {
        return plugins == null
                ? List.of()
                : plugins.stream()
                        .map(p -> new PluginRef(p.getName(), p.getWeight()))
                        .toList();
    }

    @SuppressWarnings("unchecked")
    private static PluginConfigInput input(PluginConfig config) {
        Map<String, Object> args = config.getArgs() == null ? null : JSON.convertValue(config.getArgs(), Map.class);
        return new PluginConfigInput(config.getName(), args);
    }
}
