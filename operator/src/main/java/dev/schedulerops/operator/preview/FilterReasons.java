package dev.schedulerops.operator.preview;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * kube-scheduler's "0/N nodes are available: ..." message, read: which reasons, on how many nodes, and which filter
 * gives each reason (the message does not name it; the reasons of kube-scheduler 1.30 to 1.37's filter plugins and of
 * the bundled extender are known here). Pure.
 */
public final class FilterReasons {
    private static final Pattern FIT_ERROR =
            Pattern.compile("^0/(\\d+) nodes are available: (.*?)\\.(?: preemption:.*)?$", Pattern.DOTALL);
    private static final Pattern COUNTED = Pattern.compile("^(\\d+) (.*)$", Pattern.DOTALL);

    /** Reason prefixes and the filter that gives them, first match wins. */
    private static final Map<String, String> FILTERS = new LinkedHashMap<>();

    static {
        FILTERS.put("Insufficient ", "NodeResourcesFit");
        FILTERS.put("Too many pods", "NodeResourcesFit");
        FILTERS.put("node(s) were unschedulable", "NodeUnschedulable");
        FILTERS.put("node(s) had untolerated taint", "TaintToleration");
        FILTERS.put("node(s) had taints that the pod didn't tolerate", "TaintToleration");
        FILTERS.put("node(s) didn't match Pod's node affinity/selector", "NodeAffinity");
        FILTERS.put("node(s) didn't match scheduler-enforced node affinity", "NodeAffinity");
        FILTERS.put("node(s) didn't have free ports", "NodePorts");
        FILTERS.put("node(s) didn't match the requested node name", "NodeName");
        FILTERS.put("node(s) didn't match pod topology spread constraints", "PodTopologySpread");
        FILTERS.put("node(s) didn't satisfy existing pods anti-affinity rules", "InterPodAffinity");
        FILTERS.put("node(s) didn't match pod affinity rules", "InterPodAffinity");
        FILTERS.put("node(s) didn't match pod anti-affinity rules", "InterPodAffinity");
        FILTERS.put("node(s) had no available disk", "VolumeRestrictions");
        FILTERS.put("node(s) exceed max volume count", "NodeVolumeLimits");
        FILTERS.put("node(s) had no available volume zone", "VolumeZone");
        FILTERS.put("node(s) didn't find available persistent volumes", "VolumeBinding");
        FILTERS.put("node(s) had volume node affinity conflict", "VolumeBinding");
        FILTERS.put("node(s) lack the label", "extender");
        FILTERS.put("node(s) not chosen: the SchedulerProfile extender", "extender");
        FILTERS.put("node(s) not yet known to the SchedulerProfile extender", "extender");
        FILTERS.put("node(s) didn't satisfy plugin", "PreFilter");
    }

    /**
     * @param count on how many nodes
     * @param reason the reason as kube-scheduler gives it
     * @param filter the filter that gives it, or "unknown"
     */
    public record Reason(int count, String reason, String filter) {}

    private FilterReasons() {}

    /** The reasons of a FitError message; empty when the message is of another shape. */
    public static List<Reason> parse(String message) {
        List<Reason> reasons = new ArrayList<>();
        if (message == null) {
            return reasons;
        }
        Matcher m = FIT_ERROR.matcher(message.trim());
        if (!m.matches()) {
            return reasons;
        }
        for (String item : m.group(2).split(", (?=\\d+ )")) {
            Matcher c = COUNTED.matcher(item.trim());
            if (c.matches()) {
                reasons.add(new Reason(Integer.parseInt(c.group(1)), c.group(2), filterOf(c.group(2))));
            }
        }
        return reasons;
    }

    public static String filterOf(String reason) {
        for (Map.Entry<String, String> known : FILTERS.entrySet()) {
            if (reason.startsWith(known.getKey())) {
                return known.getValue();
            }
        }
        return "unknown";
    }
}
