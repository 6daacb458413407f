package dev.schedulerops.operator.preview;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Why a pod is where it is, from a sandbox replay of that pod under its profile as it runs: where it went (or why
 * nowhere), the weighted score of each plugin and of the extender on the chosen node and the runner-up, and each other
 * node's verdict. Pure; {@link #text()} prints it.
 *
 * @param pod namespace/name
 * @param profile the SchedulerProfile whose configuration was replayed
 * @param today where the pod is in the live cluster (null: not bound)
 * @param todayState "bound" or "Pending: ..."
 * @param placement where the sandbox put it
 * @param extenderWeight the extender's prioritize weight
 * @param verdicts every other node's verdict
 * @param unprobedNodes nodes left without a verdict
 * @param notes what the sandbox did not replay, and other notes
 * @param snapshot how big the live cluster was
 */
public record Receipt(
        String pod,
        String profile,
        String today,
        String todayState,
        Placement placement,
        long extenderWeight,
        List<NodeVerdict> verdicts,
        int unprobedNodes,
        List<String> notes,
        Snapshot.Size snapshot) {

    public Receipt {
        verdicts = List.copyOf(verdicts);
        notes = List.copyOf(notes);
    }

    public static Receipt of(SandboxResult result) {
        SandboxResult.RunPlacements run = result.runs().get(0);
        SandboxResult.PodInfo pod = result.pods().get(0);
        List<String> notes = new ArrayList<>(pod.omissions());
        notes.addAll(result.notes());
        return new Receipt(
                pod.pod(),
                run.profile(),
                pod.today(),
                pod.todayState(),
                run.placements().get(0),
                run.extenderWeight(),
                result.verdicts(),
                result.unprobedNodes(),
                notes,
                result.snapshot());
    }

    /** The nodes whose scores are shown side by side: the chosen one, then the runner-up. */
    public List<String> comparedNodes() {
        List<String> nodes = new ArrayList<>();
        PodScoring s = placement.scoring();
        if (placement.node() != null) {
            nodes.add(placement.node());
        }
        if (s != null) {
            s.runnerUp().ifPresent(nodes::add);
        }
        return nodes;
    }

    public String text() {
        StringBuilder out = new StringBuilder();
        out.append("Receipt for pod ")
                .append(pod)
                .append(": SchedulerProfile ")
                .append(profile)
                .append(" as it runs, replayed in a sandbox of ")
                .append(snapshot.nodes())
                .append(" nodes and ")
                .append(snapshot.boundPods())
                .append(" bound pods\n");
        out.append("  today:   ").append(today == null ? todayState : today).append('\n');
        PodScoring s = placement.scoring();
        if (placement.bound()) {
            out.append("  sandbox: ").append(placement.node());
            if (today != null) {
                out.append(today.equals(placement.node()) ? " (the same node)" : " (another node than today)");
            }
            out.append('\n');
            if (s != null) {
                out.append("  kube-scheduler evaluated ")
                        .append(s.evaluatedNodes())
                        .append(" node(s), ")
                        .append(s.feasibleNodes())
                        .append(" feasible\n");
                if (s.tie()) {
                    out.append("  a tie: ")
                            .append(String.join(", ", s.topNodes()))
                            .append(" had the same top score, and kube-scheduler picks one of them at random\n");
                }
                if (!s.scored()) {
                    out.append("  only one node was feasible, so nothing was scored\n");
                }
            }
        } else {
            out.append("  sandbox: ")
                    .append(placement.verdict().name().toLowerCase().replace('_', ' '))
                    .append(": ")
                    .append(placement.message())
                    .append('\n');
        }
        if (s != null && s.scored()) {
            out.append('\n').append(scores(s));
        }
        out.append('\n').append("Other nodes\n");
        for (NodeVerdict v : verdicts) {
            out.append("  ").append(v.node()).append(": ");
            if (v.feasible()) {
                out.append("feasible, ").append(v.reason());
            } else {
                out.append("rejected by ").append(v.filter()).append(": ").append(v.reason());
            }
            if (v.approximate()) {
                out.append(" (approximate: hard topology spread with the pod's own node affinity)");
            }
            out.append('\n');
        }
        if (verdicts.isEmpty()) {
            out.append("  none\n");
        }
        if (unprobedNodes > 0) {
            out.append("  ... and ")
                    .append(unprobedNodes)
                    .append(" more node(s) not probed (beyond the sandbox's limit of nodes it asks about)\n");
        }
        for (String note : notes) {
            out.append("Note: ").append(note).append('\n');
        }
        return out.toString();
    }

    /** The score table: a line per plugin, the extender's score x weight x 10, and the totals. */
    private String scores(PodScoring s) {
        List<String> nodes = comparedNodes();
        TreeSet<String> plugins = new TreeSet<>();
        for (String node : nodes) {
            plugins.addAll(s.plugins().getOrDefault(node, Map.of()).keySet());
        }
        List<String[]> lines = new ArrayList<>();
        String[] header = new String[nodes.size() + 1];
        header[0] = "weighted score";
        for (int i = 0; i < nodes.size(); i++) {
            header[i + 1] = nodes.get(i) + (i == 0 ? " (chosen)" : " (runner-up)");
        }
        lines.add(header);
        for (String plugin : plugins) {
            String[] line = new String[nodes.size() + 1];
            line[0] = plugin;
            for (int i = 0; i < nodes.size(); i++) {
                Long score = s.plugins().getOrDefault(nodes.get(i), Map.of()).get(plugin);
                line[i + 1] = score == null ? "-" : score.toString();
            }
            lines.add(line);
        }
        Map<String, Map<String, Long>> extenders = new LinkedHashMap<>();
        for (String node : nodes) {
            extenders.put(node, s.extenders().getOrDefault(node, Map.of()));
        }
        if (extenders.values().stream().anyMatch(m -> !m.isEmpty())) {
            String[] line = new String[nodes.size() + 1];
            line[0] = "extender (score x weight x 10)";
            for (int i = 0; i < nodes.size(); i++) {
                long raw = extenders.get(nodes.get(i)).values().stream()
                        .mapToLong(Long::longValue)
                        .sum();
                line[i + 1] = raw + " x " + extenderWeight + " x 10 = " + raw * extenderWeight * 10;
            }
            lines.add(line);
        }
        String[] total = new String[nodes.size() + 1];
        total[0] = "total";
        for (int i = 0; i < nodes.size(); i++) {
            total[i + 1] = s.total(nodes.get(i)).map(Object::toString).orElse("-");
        }
        lines.add(total);
        int[] widths = new int[nodes.size() + 1];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] line : lines) {
            out.append("  ");
            for (int i = 0; i < line.length; i++) {
                String cell = line[i];
                out.append(
                        i == 0
                                ? cell + " ".repeat(widths[i] - cell.length())
                                : " ".repeat(widths[i] - cell.length() + 3) + cell);
            }
            out.append('\n');
        }
        out.append("  (a plugin without a score skipped this pod: nothing to prefer)\n");
        return out.toString();
    }
}
