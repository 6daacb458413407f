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
 * Bridges a resolved profile to kube-scheduler's plugin and pluginConfig rules. Clusters outside the catalogue's range
 * are judged by the nearest version it knows (plugins change slowly; the real binary stays the final judge).
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
        return new PluginArgsValidator(catalog, customImage)
                .validate(sets, configs)
                .errors();
    }

    static KubernetesVersion nearestSupported(String kubernetesVersion) {
        KubernetesVersion version = KubernetesVersion.parse(kubernetesVersion);
        if (version.compareTo(PluginCatalog.NEWEST_SUPPORTED) > 0) {
            return PluginCatalog.NEWEST_SUPPORTED;
        }
        if (version.compareTo(PluginCatalog.OLDEST_SUPPORTED) < 0) {
            return PluginCatalog.OLDEST_SUPPORTED;
        }
        return version;
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
