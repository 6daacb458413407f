package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileStatus;
import dev.schedulerops.operator.render.Samples;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class NodeEventsTest {
    private static SchedulerProfile profile(String name, String spec, Integer labelledNodes) {
        SchedulerProfile profile = Samples.profile(spec);
        profile.getMetadata().setName(name);
        if (labelledNodes != null) {
            SchedulerProfileStatus status = new SchedulerProfileStatus();
            status.setLabelledNodes(labelledNodes);
            profile.setStatus(status);
        }
        return profile;
    }

    private static final List<SchedulerProfile> PROFILES = List.of(
            profile("gpu-a", "labelKey: gpu\nextender: {replicas: 1}", 3),
            profile("gpu-b", "labelKey: gpu\nextender: {replicas: 1}", 3),
            profile("pool", "labelKey: example.com/pool\nextender: {replicas: 1}", 5),
            profile("pool-ha", "labelKey: example.com/pool\nextender: {replicas: 2}", 5),
            profile("new", "labelKey: zone\nextender: {replicas: 1}", null),
            profile("plugins-only", "plugins: {score: {enabled: [{name: ImageLocality, weight: 3}]}}", null));

    private static List<String> concerned(Map<String, Long> counts, boolean nodeCountChanged) {
        return NodeEvents.concerned(PROFILES.stream(), key -> counts.getOrDefault(key, 0L), nodeCountChanged).stream()
                .map(ResourceID::getName)
                .sorted()
                .collect(Collectors.toList());
    }

    @Test
    void aLabelChangeConcernsOnlyTheProfilesWhoseLabelledNodeCountItChanged() {
        // A fourth gpu node: the gpu profiles, and the one that has no count recorded yet.
        assertThat(concerned(Map.of("gpu", 4L, "example.com/pool", 5L, "zone", 0L), false))
                .containsExactly("gpu-a", "gpu-b", "new");
        // A value change (or a label no profile uses): no count changes, nothing to reconcile but the new one.
        assertThat(concerned(Map.of("gpu", 3L, "example.com/pool", 5L), false)).containsExactly("new");
    }

    @Test
    void aNodeJoiningOrLeavingAlsoConcernsProfilesThatSpreadOverNodes() {
        assertThat(concerned(Map.of("gpu", 3L, "example.com/pool", 5L), true)).containsExactly("new", "pool-ha");
    }
}
