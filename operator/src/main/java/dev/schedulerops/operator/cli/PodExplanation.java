package dev.schedulerops.operator.cli;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.UnscheduledPods;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code explain pod} prints for one pod, from what was read of the cluster: its scheduler, the profile's
 * status, the last scheduling failures from its events, the nodes carrying the profile's label and their values, and
 * what to change. Pure, so that every case is tested without a cluster.
 */
final class PodExplanation {
    /** How many of the pod's scheduling events are shown, the latest last. */
    static final int EVENTS_SHOWN = 5;

    /** How many labelled nodes are listed. */
    static final int NODES_SHOWN = 20;

    private PodExplanation() {}

    /**
     * @param profiles every SchedulerProfile in the cluster
     * @param events the pod's events
     * @param nodes every node
     */
    static String render(Pod pod, List<SchedulerProfile> profiles, List<Event> events, List<Node> nodes, Instant now) {
        StringBuilder out = new StringBuilder();
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String schedulerName = Optional.ofNullable(pod.getSpec().getSchedulerName())
                .filter(s -> !s.isEmpty())
                .orElse(Names.DEFAULT_SCHEDULER);
        String node = pod.getSpec().getNodeName();
        out.append("Pod ").append(ns).append('/').append(name).append('\n');
        line(out, "scheduler", schedulerName);
        line(
                out,
                "phase",
                Optional.ofNullable(pod.getStatus()).map(s -> s.getPhase()).orElse("unknown"));
        line(out, "node", node == null || node.isEmpty() ? "none (not scheduled)" : node);
        line(out, "age", age(pod.getMetadata().getCreationTimestamp(), now));
        UnscheduledPods.scheduledConditionOf(pod)
                .ifPresent(c -> line(
                        out,
                        "PodScheduled",
                        c.getStatus()
                                + (c.getReason() == null ? "" : " (" + c.getReason() + ")")
                                + (c.getMessage() == null ? "" : ": " + c.getMessage())));

        List<String> toChange = new ArrayList<>();
        // The same profile the verdict reads about (a name conflict or a deletion can leave two with the name).
        Optional<SchedulerProfile> profile = UnscheduledPods.profileFor(schedulerName, profiles);

        out.append('\n').append("Profile\n");
        if (profile.isPresent()) {
            SchedulerProfile p = profile.get();
            line(out, "SchedulerProfile", p.getMetadata().getName());
            if (p.getMetadata().getDeletionTimestamp() != null) {
                line(out, "deleting", "since " + p.getMetadata().getDeletionTimestamp());
            }
            List<Condition> conditions = p.getStatus() == null || p.getStatus().getConditions() == null
                    ? List.of()
                    : p.getStatus().getConditions();
            if (conditions.isEmpty()) {
                line(out, "status", "none yet (has the operator reconciled it?)");
            }
            for (Condition c : conditions) {
                line(
                        out,
                        c.getType(),
                        c.getStatus()
                                + (c.getReason() == null ? "" : " (" + c.getReason() + ")")
                                + (c.getMessage() == null || c.getMessage().isEmpty() ? "" : ": " + c.getMessage()));
            }
        } else if (schedulerName.equals(Names.DEFAULT_SCHEDULER)) {
            line(out, "SchedulerProfile", "none: the pod uses the cluster's default scheduler");
        } else {
            line(out, "SchedulerProfile", "none has schedulerName \"" + schedulerName + "\"");
        }

        boolean bound = node != null && !node.isEmpty();
        if (!bound && !schedulerName.equals(Names.DEFAULT_SCHEDULER)) {
            UnscheduledPods.Known known = new UnscheduledPods.Known(profiles, Map.of(), s -> false);
            Optional<UnscheduledPods.Diagnosis> diagnosis = UnscheduledPods.diagnose(pod, known, now, Duration.ZERO);
            if (diagnosis.isPresent()) {
                line(out, "verdict", diagnosis.get().cause().reason());
                toChange.add(diagnosis.get().message());
            } else if (profile.isEmpty()) {
                line(out, "verdict", "another scheduler has looked at this pod: see its events");
            } else {
                line(out, "verdict", "its scheduler runs: the reasons it gives are below");
            }
        }

        out.append('\n').append("Last scheduling events\n");
        List<Event> scheduling = events.stream()
                .filter(e -> !"Normal".equals(e.getType()) || "Scheduled".equals(e.getReason()))
                .sorted(Comparator.comparing(PodExplanation::eventTime))
                .toList();
        if (scheduling.isEmpty()) {
            out.append("  none: no scheduler has reported on this pod\n");
        }
        for (Event e : scheduling.subList(Math.max(0, scheduling.size() - EVENTS_SHOWN), scheduling.size())) {
            out.append("  ")
                    .append(e.getType())
                    .append(' ')
                    .append(e.getReason())
                    .append(" (")
                    .append(reporter(e))
                    .append(", ")
                    .append(age(eventTime(e).toString(), now))
                    .append(" ago")
                    .append(e.getCount() != null && e.getCount() > 1 ? ", x" + e.getCount() : "")
                    .append("): ")
                    .append(e.getMessage())
                    .append('\n');
        }

        Optional<String> labelKey = profile.map(SchedulerProfile::getSpec).map(s -> s.getLabelKey());
        if (labelKey.isPresent()) {
            String key = labelKey.get();
            List<Node> labelled = nodes.stream()
                    .filter(n -> n.getMetadata().getLabels() != null
                            && n.getMetadata().getLabels().containsKey(key))
                    .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
                    .toList();
            out.append('\n')
                    .append("Nodes labelled ")
                    .append(key)
                    .append(" (")
                    .append(labelled.size())
                    .append(" of ")
                    .append(nodes.size())
                    .append(")\n");
            for (Node n : labelled.subList(0, Math.min(NODES_SHOWN, labelled.size()))) {
                out.append("  ")
                        .append(n.getMetadata().getName())
                        .append("  ")
                        .append(n.getMetadata().getLabels().get(key))
                        .append(unschedulable(n) ? "  (cordoned)" : "")
                        .append('\n');
            }
            if (labelled.size() > NODES_SHOWN) {
                out.append("  ... ").append(labelled.size() - NODES_SHOWN).append(" more\n");
            }
            if (labelled.isEmpty() && !bound) {
                toChange.add("No node carries " + key + ", so the profile's extender rejects every node: label the"
                        + " nodes this pod may run on (kubectl label node NODE " + key + "=VALUE; higher values are"
                        + " preferred).");
            }
        }

        if (!bound && toChange.isEmpty() && !scheduling.isEmpty()) {
            toChange.add("Read the last FailedScheduling message above: it says, node by node, why none fits (the"
                    + " profile's label, resources, taints, affinity). Change the pod or the nodes accordingly.");
        }
        if (!bound && toChange.isEmpty()) {
            toChange.add("Nothing is known to stop it: a scheduler may not have reached it yet.");
        }
        out.append('\n').append("What to change\n");
        if (bound) {
            out.append("  nothing: the pod is on node ").append(node).append('\n');
        }
        for (String change : toChange) {
            out.append("  - ").append(change).append('\n');
        }
        return out.toString();
    }

    private static void line(StringBuilder out, String key, String value) {
        out.append("  ").append(key).append(": ").append(value).append('\n');
    }

    private static boolean unschedulable(Node node) {
        return node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    }

    private static String reporter(Event e) {
        if (e.getReportingComponent() != null && !e.getReportingComponent().isEmpty()) {
            return e.getReportingComponent();
        }
        return e.getSource() == null || e.getSource().getComponent() == null
                ? "unknown"
                : e.getSource().getComponent();
    }

    static Instant eventTime(Event e) {
        for (String t : new String[] {
            e.getLastTimestamp(),
            e.getEventTime() == null ? null : e.getEventTime().getTime(),
            e.getFirstTimestamp(),
            e.getMetadata() == null ? null : e.getMetadata().getCreationTimestamp()
        }) {
            if (t != null && !t.isEmpty()) {
                try {
                    return Instant.parse(t);
                } catch (DateTimeParseException ignored) {
                    // try the next one
                }
            }
        }
        return Instant.EPOCH;
    }

    private static String age(String timestamp, Instant now) {
        if (timestamp == null) {
            return "unknown";
        }
        try {
            Duration d = Duration.between(Instant.parse(timestamp), now);
            if (d.isNegative()) {
                d = Duration.ZERO;
            }
            if (d.toHours() > 0) {
                return d.toHours() + "h" + d.toMinutesPart() + "m";
            }
            if (d.toMinutes() > 0) {
                return d.toMinutes() + "m" + d.toSecondsPart() + "s";
            }
            return d.toSeconds() + "s";
        } catch (DateTimeParseException e) {
            return "unknown";
        }
    }
}
