package dev.schedulerops.operator.preview;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What kube-scheduler logged of the scheduling cycle that bound a pod: its total score on every node it scored, and
 * each score plugin's weighted score and each extender's raw score (0..10) on the nodes kept.
 *
 * <p>kube-scheduler scores only when more than one node is feasible: with a single one (FilterOnlyOne, or the only
 * node that passes the filters) {@code totals} is empty.
 *
 * @param node the node it was bound to
 * @param evaluatedNodes how many nodes the cycle looked at
 * @param feasibleNodes how many passed every filter, the extenders' included
 * @param totals node to total score (the plugins' weighted scores plus each extender's score x weight x 10)
 * @param plugins node to plugin to weighted score, for the nodes kept (see {@link SchedulerLog})
 * @param extenders node to extender (its URL) to its raw score, for the nodes kept
 */
public record PodScoring(
        String node,
        int evaluatedNodes,
        int feasibleNodes,
        Map<String, Long> totals,
        Map<String, Map<String, Long>> plugins,
        Map<String, Map<String, Long>> extenders) {

    public PodScoring {
        totals = Map.copyOf(totals);
        plugins = Map.copyOf(plugins);
        extenders = Map.copyOf(extenders);
    }

    /** Whether kube-scheduler scored nodes (more than one was feasible). */
    public boolean scored() {
        return !totals.isEmpty();
    }

    /** The nodes with the highest total, sorted: more than one means kube-scheduler picked one of them at random. */
    public List<String> topNodes() {
        if (totals.isEmpty()) {
            return node == null ? List.of() : List.of(node);
        }
        long top = totals.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        return totals.entrySet().stream()
                .filter(e -> e.getValue() == top)
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }

    public boolean tie() {
        return topNodes().size() > 1;
    }

    /** The best-scored node other than the chosen one (ties broken by name). */
    public Optional<String> runnerUp() {
        return totals.entrySet().stream()
                .filter(e -> !e.getKey().equals(node))
                .sorted(Comparator.<Map.Entry<String, Long>>comparingLong(Map.Entry::getValue)
                        .reversed()
                        .thenComparing(Map.Entry::getKey))
                .map(Map.Entry::getKey)
                .findFirst();
    }

    public Optional<Long> total(String nodeName) {
        return Optional.ofNullable(totals.get(nodeName));
    }
}
