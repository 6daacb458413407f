package dev.schedulerops.operator.render.validation;

import dev.schedulerops.operator.render.ClusterFacts;
import dev.schedulerops.operator.render.ResolvedProfile;
import java.util.List;

/** Bridges a resolved profile to the kube-scheduler plugin and pluginConfig rules. */
final class SchedulerPluginRules {
    private SchedulerPluginRules() {}

    static List<String> validate(ResolvedProfile profile, ClusterFacts facts) {
        return List.of();
    }
}
