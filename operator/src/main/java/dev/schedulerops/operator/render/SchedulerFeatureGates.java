package dev.schedulerops.operator.render;

import dev.schedulerops.operator.validation.KubernetesVersion;
import dev.schedulerops.operator.validation.SchedulerFlagCatalog;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The feature gates the operator gives every profile's kube-scheduler unless the profile sets them itself
 * ({@code spec.scheduler.featureGates} always wins).
 *
 * <p>{@code SchedulerAsyncPreemption=false}: with asynchronous preemption (beta and on by default from 1.33 to at least
 * 1.37) a preempting pod can be left in kube-scheduler's unschedulable pool after its victims are gone, until the next
 * cluster event or the 5-minute flush (kubernetes/kubernetes#141694, open; the fix, #142294, is in no release). The
 * synchronous preemption it falls back to deletes the victims inside the scheduling cycle and retries the pod on their
 * deletion, as every release before 1.33 did. Set only where the version's catalogue lists the gate as not yet GA (a
 * locked gate set to false would stop kube-scheduler from starting).
 */
final class SchedulerFeatureGates {
    static final String ASYNC_PREEMPTION = "SchedulerAsyncPreemption";

    private SchedulerFeatureGates() {}

    /** The profile's gates with the operator's defaults for {@code version} added where the profile sets none. */
    static SortedMap<String, Boolean> effective(Map<String, Boolean> profileGates, KubernetesVersion version) {
        SortedMap<String, Boolean> gates = new TreeMap<>(profileGates);
        SchedulerFlagCatalog.forVersion(version)
                .flatMap(catalog -> catalog.gate(ASYNC_PREEMPTION))
                .filter(gate -> gate.enabledByDefault() && !gate.stage().equals("GA"))
                .ifPresent(gate -> gates.putIfAbsent(ASYNC_PREEMPTION, false));
        return gates;
    }
}
