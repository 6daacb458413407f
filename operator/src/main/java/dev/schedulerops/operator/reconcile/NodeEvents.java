package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ResolvedProfile;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Which profiles a node event concerns, so that a label change on one node in a large cluster reconciles the few
 * profiles whose {@code labelKey} it touches rather than all of them. A profile depends on the nodes in two ways:
 * its status counts the nodes carrying its label key ({@code labelledNodes}), and a component with more than one
 * replica spreads over nodes only when the cluster has enough of them ({@code ClusterFacts.spreadsAcrossNodes}).
 * The informer's cache already holds the event's node, so a profile is concerned when its recorded count differs
 * from the cache's, or, when the number of nodes changed, when it has a component with several replicas.
 */
final class NodeEvents {
    private NodeEvents() {}

    static Set<ResourceID> concerned(
            Stream<SchedulerProfile> profiles, ToLongFunction<String> labelledNodes, boolean nodeCountChanged) {
        Map<String, Long> counts = new HashMap<>(); // one count per label key and event
        ToLongFunction<String> counted = key -> counts.computeIfAbsent(key, labelledNodes::applyAsLong);
        return profiles.filter(p -> labelCountChanged(p, counted) || (nodeCountChanged && spreads(p)))
                .map(ResourceID::fromResource)
                .collect(Collectors.toSet());
    }

    private static boolean labelCountChanged(SchedulerProfile profile, ToLongFunction<String> labelledNodes) {
        String labelKey = profile.getSpec() == null ? null : profile.getSpec().getLabelKey();
        if (labelKey == null) {
            return false;
        }
        Integer recorded =
                profile.getStatus() == null ? null : profile.getStatus().getLabelledNodes();
        return recorded == null || recorded != labelledNodes.applyAsLong(labelKey);
    }

    private static boolean spreads(SchedulerProfile profile) {
        try {
            ResolvedProfile resolved = ResolvedProfile.of(profile);
            return (resolved.bundledExtender() && resolved.extender().replicas() > 1)
                    || resolved.scheduler().replicas() > 1;
        } catch (RuntimeException e) {
            return true; // a spec that cannot be resolved is reconciled, which reports it
        }
    }
}
