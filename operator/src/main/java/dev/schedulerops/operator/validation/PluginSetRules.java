package dev.schedulerops.operator.validation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Checks the {@code plugins} part of a profile the way kube-scheduler does at start-up: validation.go rejects removed
 * plugins; the framework ({@code NewFramework}) merges the user's sets into the defaults, then rejects unknown
 * plugins, plugins at points they do not implement, duplicates, and a profile without exactly one queue sort plugin
 * or without a bind plugin. Weights are not range-checked, but the framework's overflow check of the summed weights
 * trips over negative ones; weights that kube-scheduler ignores only produce warnings.
 */
final class PluginSetRules {

    private static final String ALL = "*";
    private static final long MAX_NODE_SCORE = 100;

    private final PluginCatalog catalog;
    private final boolean customSchedulerImage;
    private final String pluginsPath;

    PluginSetRules(PluginCatalog catalog, boolean customSchedulerImage, String pluginsPath) {
        this.catalog = catalog;
        this.customSchedulerImage = customSchedulerImage;
        this.pluginsPath = pluginsPath;
    }

    /** Checks the sets and returns the names of the plugins the resulting profile enables anywhere. */
    Set<String> check(Map<String, PluginSetInput> input, Findings findings) {
        Map<ExtensionPoint, PluginSetInput> sets = new LinkedHashMap<>();
        for (Map.Entry<String, PluginSetInput> entry : input.entrySet()) {
            var point = ExtensionPoint.fromFieldName(entry.getKey());
            if (point.isEmpty()) {
                findings.notSupported(
                        pluginsPath + "." + entry.getKey(),
                        entry.getKey(),
                        Arrays.stream(ExtensionPoint.values())
                                .map(ExtensionPoint::fieldName)
                                .toList());
            } else if (entry.getValue() != null) {
                sets.put(point.get(), entry.getValue());
            }
        }
        sets.forEach((point, set) -> {
            checkEnabled(point, set.enabled(), findings);
            checkDisabled(point, set.disabled(), findings);
        });
        checkMultiPointDuplicates(sets, findings);
        return checkResultingProfile(sets, findings);
    }

    private void checkEnabled(ExtensionPoint point, List<PluginRef> enabled, Findings findings) {
        Map<String, Integer> firstIndex = new HashMap<>();
        for (int i = 0; i < enabled.size(); i++) {
            PluginRef ref = enabled.get(i);
            String path = pluginsPath + "." + point.fieldName() + ".enabled[" + i + "]";
            String name = ref == null ? null : ref.name();
            if (name == null || name.isEmpty()) {
                findings.required(path + ".name", "plugin name is required");
                continue;
            }
            if (!checkEnabledName(point, name, path + ".name", findings)) {
                continue;
            }
            Integer first = firstIndex.putIfAbsent(name, i);
            if (first != null && point != ExtensionPoint.MULTI_POINT) {
                findings.error(
                        path + ".name",
                        "Duplicate value: " + GoValues.shown(name) + ": plugin already enabled at " + point.fieldName()
                                + ".enabled[" + first + "]");
            }
            checkWeight(point, ref, path + ".weight", findings);
        }
    }

    /** Returns whether the name is usable at the point (known or allowed as out-of-tree). */
    private boolean checkEnabledName(ExtensionPoint point, String name, String path, Findings findings) {
        if (ALL.equals(name)) {
            findings.invalid(path, name, "\"*\" is only allowed in disabled lists");
            return false;
        }
        // Validation refuses a removed plugin at every concrete point; at multiPoint only the registry decides, and
        // a release may still register it (1.31 does for the non-CSI volume limit plugins).
        var removed = catalog.removedMessage(name);
        if (removed.isPresent() && (point != ExtensionPoint.MULTI_POINT || !catalog.isKnown(name))) {
            findings.error(path, removed.get());
            return false;
        }
        if (!catalog.isKnown(name)) {
            if (customSchedulerImage) {
                return true;
            }
            findings.error(
                    path,
                    "plugin " + GoValues.shown(name) + " is not a known in-tree plugin of Kubernetes "
                            + catalog.version() + " (out-of-tree plugins need a custom scheduler image)");
            return false;
        }
        if (!catalog.accepts(name, point)) {
            findings.error(
                    path,
                    "plugin " + GoValues.shown(name) + " does not implement the " + point.fieldName()
                            + " extension point; it implements: "
                            + String.join(", ", catalog.extensionPoints(name)));
            return false;
        }
        return true;
    }

    private void checkWeight(ExtensionPoint point, PluginRef ref, String path, Findings findings) {
        Integer weight = ref.weight();
        if (weight == null) {
            return;
        }
        boolean scoresHere = point == ExtensionPoint.SCORE
                || (point == ExtensionPoint.MULTI_POINT && catalog.mayImplement(ref.name(), ExtensionPoint.SCORE));
        if (!scoresHere) {
            findings.warning(
                    path,
                    "weight " + weight + " is ignored: " + ref.name() + " is not a score plugin at "
                            + point.fieldName());
        }
    }

    private void checkDisabled(ExtensionPoint point, List<PluginRef> disabled, Findings findings) {
        for (int i = 0; i < disabled.size(); i++) {
            PluginRef ref = disabled.get(i);
            String name = ref == null ? null : ref.name();
            String path = pluginsPath + "." + point.fieldName() + ".disabled[" + i + "].name";
            if (name == null || name.isEmpty() || ALL.equals(name)) {
                continue;
            }
            if (!catalog.isKnown(name)) {
                if (!customSchedulerImage) {
                    findings.warning(
                            path,
                            "plugin " + GoValues.shown(name) + " is not a plugin of Kubernetes " + catalog.version()
                                    + "; disabling it has no effect");
                }
            } else if (!catalog.accepts(name, point)) {
                findings.warning(
                        path,
                        "plugin " + GoValues.shown(name) + " does not implement " + point.fieldName()
                                + "; disabling it there has no effect");
            }
        }
    }

    /**
     * A plugin listed twice at multiPoint ends up twice in the merged multiPoint set; the framework then fails with
     * "already registered" at every point it implements unless that point enables or disables it explicitly.
     */
    private void checkMultiPointDuplicates(Map<ExtensionPoint, PluginSetInput> sets, Findings findings) {
        PluginSetInput multiPoint = sets.get(ExtensionPoint.MULTI_POINT);
        if (multiPoint == null) {
            return;
        }
        Map<String, Integer> firstIndex = new HashMap<>();
        for (int i = 0; i < multiPoint.enabled().size(); i++) {
            String name = nameOf(multiPoint.enabled().get(i));
            if (!isUsable(name)) {
                continue;
            }
            Integer first = firstIndex.putIfAbsent(name, i);
            if (first == null) {
                continue;
            }
            List<String> clashes = new ArrayList<>();
            for (ExtensionPoint point : ExtensionPoint.concrete()) {
                PluginSetInput set = sets.getOrDefault(point, PluginSetInput.EMPTY);
                Set<String> disabled = names(set.disabled());
                if (catalog.mayImplement(name, point)
                        && !disabled.contains(ALL)
                        && !disabled.contains(name)
                        && !names(set.enabled()).contains(name)) {
                    clashes.add(point.fieldName());
                }
            }
            if (!clashes.isEmpty()) {
                findings.error(
                        pluginsPath + ".multiPoint.enabled[" + i + "].name",
                        "Duplicate value: " + GoValues.shown(name) + ": plugin already enabled at multiPoint.enabled["
                                + first + "] (kube-scheduler fails with \"already registered\" at "
                                + String.join(", ", clashes) + ")");
            }
        }
    }

    /**
     * Merges the user's sets into the defaults (mergePluginSet) and expands multiPoint (expandMultiPointPlugins) to
     * count the queue sort and bind plugins the profile ends up with.
     */
    private Set<String> checkResultingProfile(Map<ExtensionPoint, PluginSetInput> sets, Findings findings) {
        List<Entry> mergedMultiPoint = mergedMultiPoint(sets.get(ExtensionPoint.MULTI_POINT));
        List<String> multiPoint = mergedMultiPoint.stream().map(Entry::name).toList();
        Set<String> enabledAnywhere = new LinkedHashSet<>(multiPoint);
        Map<ExtensionPoint, Expansion> expansions = new HashMap<>();
        for (ExtensionPoint point : ExtensionPoint.concrete()) {
            PluginSetInput set = sets.getOrDefault(point, PluginSetInput.EMPTY);
            Expansion expansion = expand(point, set, multiPoint);
            expansions.put(point, expansion);
            set.enabled().stream()
                    .map(PluginSetRules::nameOf)
                    .filter(this::isUsable)
                    .forEach(enabledAnywhere::add);
        }

        int explicitQueueSorts = sets.getOrDefault(ExtensionPoint.QUEUE_SORT, PluginSetInput.EMPTY)
                .enabled()
                .size();
        Expansion queueSort = expansions.get(ExtensionPoint.QUEUE_SORT);
        if (explicitQueueSorts > 1) {
            findings.invalid(
                    pluginsPath + ".queueSort.enabled",
                    explicitQueueSorts,
                    "only one queue sort plugin can be enabled");
        } else if (queueSort.definite().size() > 1) {
            findings.error(
                    pluginsPath + ".queueSort",
                    "only one queue sort plugin required, but got "
                            + queueSort.definite().size() + " ("
                            + String.join(", ", queueSort.definite())
                            + "); disable the default one at queueSort when enabling another");
        } else if (queueSort.definite().isEmpty() && queueSort.possible().isEmpty()) {
            findings.error(pluginsPath + ".queueSort", "only one queue sort plugin required, but got 0");
        }

        Expansion bind = expansions.get(ExtensionPoint.BIND);
        if (bind.definite().isEmpty() && bind.possible().isEmpty()) {
            findings.error(pluginsPath + ".bind", "at least one bind plugin is needed");
        }
        checkScoreWeights(sets, mergedMultiPoint, findings);
        return enabledAnywhere;
    }

    /**
     * The merged multiPoint set (mergePluginSet): defaults not disabled, each replaced in place by the user's entry
     * of the same name, then the user's other entries (duplicates kept).
     */
    private List<Entry> mergedMultiPoint(PluginSetInput custom) {
        PluginSetInput set = custom == null ? PluginSetInput.EMPTY : custom;
        Set<String> disabled = names(set.disabled());
        List<Entry> customEntries = new ArrayList<>();
        for (int i = 0; i < set.enabled().size(); i++) {
            PluginRef ref = set.enabled().get(i);
            if (isUsable(nameOf(ref))) {
                customEntries.add(new Entry(ref.name(), ref.weight(), pluginsPath + ".multiPoint.enabled[" + i + "]"));
            }
        }
        List<Entry> merged = new ArrayList<>();
        List<Entry> appended = new ArrayList<>(customEntries);
        if (!disabled.contains(ALL)) {
            for (DefaultPlugin plugin : catalog.defaults()) {
                if (disabled.contains(plugin.name())) {
                    continue;
                }
                Entry replacement = null;
                for (Entry entry : customEntries) {
                    if (entry.name().equals(plugin.name())) {
                        replacement = entry; // the last one wins, as in mergePluginSet
                    }
                }
                if (replacement == null) {
                    merged.add(new Entry(plugin.name(), plugin.weight(), null));
                } else {
                    merged.add(replacement);
                    appended.remove(replacement);
                }
            }
        }
        merged.addAll(appended);
        return merged;
    }

    /** A plugin of the merged configuration; path is null for kube-scheduler's own defaults. */
    private record Entry(String name, Integer weight, String path) {}

    /**
     * getScoreWeights: walks score.enabled then the merged multiPoint set and fails with "total score of Score
     * plugins could overflow" when a weight exceeds MaxInt64 minus the running total. With int32 weights only a
     * negative running total can trip it (the subtraction wraps around), so a negative weight is refused unless no
     * other score plugin is weighed after it.
     */
    private void checkScoreWeights(
            Map<ExtensionPoint, PluginSetInput> sets, List<Entry> multiPoint, Findings findings) {
        List<Entry> candidates = new ArrayList<>();
        PluginSetInput score = sets.getOrDefault(ExtensionPoint.SCORE, PluginSetInput.EMPTY);
        for (int i = 0; i < score.enabled().size(); i++) {
            PluginRef ref = score.enabled().get(i);
            String name = nameOf(ref);
            if (isUsable(name) && catalog.mayImplement(name, ExtensionPoint.SCORE)) {
                candidates.add(new Entry(name, ref.weight(), pluginsPath + ".score.enabled[" + i + "]"));
            }
        }
        multiPoint.stream()
                .filter(entry -> catalog.accepts(entry.name(), ExtensionPoint.SCORE))
                .forEach(candidates::add);

        Set<String> weighed = new HashSet<>();
        List<Entry> negative = new ArrayList<>();
        long total = 0;
        for (Entry entry : candidates) {
            if (!weighed.add(entry.name())) {
                continue;
            }
            long weight = entry.weight() == null || entry.weight() == 0 ? 1 : entry.weight();
            if (weight * MAX_NODE_SCORE > Long.MAX_VALUE - total) {
                Entry culprit = negative.isEmpty() ? entry : negative.get(0);
                findings.invalid(
                        (culprit.path() == null ? pluginsPath : culprit.path()) + ".weight",
                        culprit.weight(),
                        "kube-scheduler refuses this negative weight because other score plugins are weighed after"
                                + " it (\"total score of Score plugins could overflow\")");
                return;
            }
            total += weight * MAX_NODE_SCORE;
            if (weight < 0) {
                negative.add(entry);
            }
        }
        negative.stream()
                .filter(entry -> entry.path() != null)
                .forEach(entry -> findings.warning(
                        entry.path() + ".weight",
                        "negative weight " + entry.weight() + " is accepted here and inverts " + entry.name()
                                + "'s score"));
    }

    private Expansion expand(ExtensionPoint point, PluginSetInput set, List<String> multiPoint) {
        Set<String> definite = new LinkedHashSet<>();
        Set<String> possible = new LinkedHashSet<>();
        Set<String> explicit = new LinkedHashSet<>();
        for (PluginRef ref : set.enabled()) {
            String name = nameOf(ref);
            if (isUsable(name) && catalog.mayImplement(name, point)) {
                explicit.add(name);
                definite.add(name);
            }
        }
        Set<String> disabled = names(set.disabled());
        if (!disabled.contains(ALL)) {
            for (String name : multiPoint) {
                if (disabled.contains(name) || explicit.contains(name)) {
                    continue;
                }
                if (!catalog.isKnown(name)) {
                    possible.add(name);
                } else if (catalog.accepts(name, point)) {
                    definite.add(name);
                }
            }
        }
        return new Expansion(List.copyOf(definite), List.copyOf(possible));
    }

    /** Plugins certainly at a point, and out-of-tree plugins that may be (their extension points are unknown). */
    private record Expansion(List<String> definite, List<String> possible) {}

    private boolean isUsable(String name) {
        return name != null
                && !name.isEmpty()
                && !ALL.equals(name)
                && (catalog.isKnown(name) || (customSchedulerImage && !catalog.isRemoved(name)));
    }

    private static String nameOf(PluginRef ref) {
        return ref == null ? null : ref.name();
    }

    private static Set<String> names(List<PluginRef> refs) {
        Set<String> names = new HashSet<>();
        refs.stream().map(PluginSetRules::nameOf).filter(Objects::nonNull).forEach(names::add);
        return names;
    }
}
