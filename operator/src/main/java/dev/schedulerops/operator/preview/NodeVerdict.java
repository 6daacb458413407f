package dev.schedulerops.operator.preview;

/**
 * Why a pod is not on a node: the first filter that rejected it there (kube-scheduler stops at the first), or that
 * it passed every filter.
 *
 * @param node the node
 * @param feasible whether the pod passes every filter there, the extender's included
 * @param filter the filter that rejected it ("extender" for the bundled extender), null when feasible
 * @param reason kube-scheduler's reason, or why a feasible node was not chosen
 * @param approximate whether the verdict may differ from kube-scheduler's own (see {@link NodeProbes})
 */
public record NodeVerdict(String node, boolean feasible, String filter, String reason, boolean approximate) {}
