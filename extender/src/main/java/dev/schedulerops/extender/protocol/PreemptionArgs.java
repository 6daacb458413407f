package dev.schedulerops.extender.protocol;

import java.util.List;
import java.util.Map;

/**
 * The decoded {@code ExtenderPreemptionArgs}, reduced to what a reply needs: per candidate node, the UIDs of the
 * victim pods and the number of PodDisruptionBudget violations. Full victim pods ({@code NodeNameToVictims}) and meta
 * victims ({@code NodeNameToMetaVictims}) both end up here.
 */
public record PreemptionArgs(PodRef pod, Map<String, MetaVictims> candidates) {
    public record MetaVictims(List<String> podUids, long numPdbViolations) {}
}
