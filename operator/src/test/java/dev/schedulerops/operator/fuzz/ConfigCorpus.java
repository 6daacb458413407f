package dev.schedulerops.operator.fuzz;

import static dev.schedulerops.operator.fuzz.GeneratedProfiles.map;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.validation.DefaultPlugin;
import dev.schedulerops.operator.validation.ExtensionPoint;
import dev.schedulerops.operator.validation.KubernetesVersion;
import dev.schedulerops.operator.validation.PluginCatalog;
import dev.schedulerops.operator.validation.SchedulerFlagCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * A seeded corpus of plausible SchedulerProfiles for one Kubernetes version, about half meant valid and half meant
 * invalid: the valid ones draw plugin sets across every extension point (enables, disables and weights of the
 * version's in-tree plugins), pluginConfig of every args kind the version has with in-range and boundary values,
 * extender verbs and settings, percentageOfNodesToScore and leader election; an invalid one is a valid one with one
 * break (a plugin at a point it does not implement, an unknown or removed plugin, no queue sort or bind plugin, a
 * duplicate, or one args value out of range). Everything comes from the version's generated catalogues, so a new
 * release's plugins and args are drawn without editing this class.
 *
 * <p>Case {@code i} comes from its own {@code Random(seed, i)}: one case is reproducible from the seed and its index
 * alone. The {@code meantValid} label is the generator's intention, for the counts; the verdict that counts is the
 * real kube-scheduler's.
 */
public final class ConfigCorpus {
    /** One generated profile; {@code moves} says what was drawn, for a person reading a disagreement. */
    public record Case(int index, boolean meantValid, List<String> moves, String yaml) {
        public SchedulerProfile profile() {
            try {
                return ProfileYaml.readOne(yaml);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The empty set stands for no {@code verbs} field (the default); an empty list is refused by the API. */
    private static final List<List<String>> VERB_SETS = List.of(
            List.of(),
            List.of("Filter"),
            List.of("Prioritize"),
            List.of("Filter", "Prioritize"),
            List.of("Filter", "Prioritize", "Preempt"),
            List.of("FilterOnlyOne"),
            List.of("FilterOnlyOne", "Prioritize"),
            List.of("Filter", "Bind"),
            List.of("Filter", "Prioritize", "Bind", "Preempt"));

    private static final List<String> LABEL_KEYS =
            List.of("priority.lixueduan.com", "gpu", "example.com/pool", "node.kubernetes.io/instance-type");
    private static final List<String> TIMEOUTS = List.of("500ms", "1s", "5s", "30s", "1m");
    /** Lease, renew deadline, retry period: kube-scheduler wants lease > renew > 1.2 × retry. */
    private static final List<List<String>> VALID_LEASES =
            List.of(List.of("15s", "10s", "2s"), List.of("30s", "20s", "5s"), List.of("1m", "45s", "10s"));

    private static final List<String> TOPOLOGY_KEYS = List.of("topology.kubernetes.io/zone", "kubernetes.io/hostname");

    /** One way to make a valid args object invalid. */
    private record Break(String name, Runnable apply) {}

    private final PluginCatalog plugins;
    private final SchedulerFlagCatalog flags;
    private final long seed;

    public ConfigCorpus(String kubernetesVersion, long seed) {
        KubernetesVersion version = KubernetesVersion.parse(kubernetesVersion);
        this.plugins = PluginCatalog.forVersion(version);
        this.flags = SchedulerFlagCatalog.forVersion(version)
                .orElseThrow(() -> new IllegalArgumentException("no flag catalogue for " + kubernetesVersion));
        this.seed = seed;
    }

    public long seed() {
        return seed;
    }

    public List<Case> first(int count) {
        return IntStream.range(0, count).mapToObj(this::get).toList();
    }

    public Case get(int index) {
        return new Draw(new Random(mix(seed + index * 0x9E3779B97F4A7C15L))).draw(index);
    }

    /** SplitMix64's finaliser: java.util.Random's first draws follow close seeds, so seeds are scattered first. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The drawing of one case: its spec, built up by the moves, and the moves' names. */
    private final class Draw {
        private final Random random;
        private final Map<String, Object> spec = new LinkedHashMap<>();
        private final Map<String, Map<String, List<Map<String, Object>>>> pluginSets = new LinkedHashMap<>();
        private final List<Map<String, Object>> pluginConfig = new ArrayList<>();
        private final Map<String, Boolean> featureGates = new LinkedHashMap<>();
        private final List<String> moves = new ArrayList<>();

        Draw(Random random) {
            this.random = random;
        }

        Case draw(int index) {
            boolean meantValid = random.nextBoolean();
            basics();
            int pluginMoves = random.nextInt(4);
            for (int i = 0; i < pluginMoves; i++) {
                pick(List.<Runnable>of(
                                this::disableDefault,
                                this::reweightScore,
                                this::enableOther,
                                this::onlySomeScorePlugins,
                                this::minimalProfile))
                        .run();
            }
            List<String> kinds = new ArrayList<>(plugins.argsKinds().keySet());
            int configured = random.nextInt(3);
            for (int i = 0; i < configured && !kinds.isEmpty(); i++) {
                String kind = kinds.remove(random.nextInt(kinds.size()));
                pluginConfig.add(map("name", pluginOf(kind), "args", args(kind, true)));
            }
            if (!meantValid) {
                breakOne();
            }
            return new Case(index, meantValid, List.copyOf(moves), yaml());
        }

        private void basics() {
            spec.put("labelKey", pick(LABEL_KEYS));
            List<String> verbs = pick(VERB_SETS);
            if (!verbs.isEmpty()) {
                spec.put("verbs", verbs);
            }
            if (random.nextBoolean()) {
                spec.put("weight", 1 + random.nextInt(100));
            }
            moves.add("verbs " + verbs);
            if (random.nextBoolean()) {
                spec.put(
                        "extender",
                        map(
                                "nodeCacheCapable",
                                random.nextBoolean(),
                                "ignorable",
                                random.nextBoolean(),
                                "httpTimeout",
                                pick(TIMEOUTS)));
            }
            Map<String, Object> scheduler = new LinkedHashMap<>();
            if (random.nextBoolean()) {
                scheduler.put("percentageOfNodesToScore", pick(List.of(0, 1, 50, 99, 100, random.nextInt(101))));
            }
            if (random.nextInt(4) == 0) {
                scheduler.put("parallelism", 1 + random.nextInt(32));
            }
            if (random.nextInt(4) == 0) {
                int initial = 1 + random.nextInt(10);
                scheduler.put("podInitialBackoffSeconds", initial);
                scheduler.put("podMaxBackoffSeconds", initial + random.nextInt(60));
            }
            if (random.nextBoolean()) {
                List<String> lease = pick(VALID_LEASES);
                scheduler.put(
                        "leaderElection",
                        map(
                                "leaderElect",
                                random.nextInt(4) != 0,
                                "leaseDuration",
                                lease.get(0),
                                "renewDeadline",
                                lease.get(1),
                                "retryPeriod",
                                lease.get(2)));
            }
            if (!scheduler.isEmpty()) {
                spec.put("scheduler", scheduler);
            }
        }

        // ---- valid plugin moves

        private void disableDefault() {
            String plugin = pick(defaultsExcept("PrioritySort", "DefaultBinder"));
            String point = pick(pointsOf(plugin, true));
            disable(point, plugin);
            moves.add("disable " + plugin + " at " + point);
        }

        private void reweightScore() {
            List<String> scorers = defaultsAt(ExtensionPoint.SCORE);
            if (scorers.isEmpty()) {
                return;
            }
            String plugin = pick(scorers);
            int weight = pick(List.of(1, 2, 10, 100, 1 + random.nextInt(100)));
            enable("score", plugin, weight);
            moves.add("weight " + plugin + " " + weight + " at score");
        }

        private void enableOther() {
            List<String> others = plugins.pluginNames().stream()
                    .filter(p -> !plugins.isRemoved(p))
                    .filter(p ->
                            plugins.defaults().stream().noneMatch(d -> d.name().equals(p)))
                    .filter(p -> !pointsOf(p, false).isEmpty())
                    .toList();
            if (others.isEmpty()) {
                return;
            }
            String plugin = pick(others);
            String point = pick(pointsOf(plugin, true));
            enable(point, plugin, null);
            moves.add("enable " + plugin + " at " + point);
        }

        private void onlySomeScorePlugins() {
            List<String> scorers = new ArrayList<>(defaultsAt(ExtensionPoint.SCORE));
            disable("score", "*");
            int keep = random.nextInt(Math.min(3, scorers.size()) + 1);
            for (int i = 0; i < keep; i++) {
                String plugin = scorers.remove(random.nextInt(scorers.size()));
                enable("score", plugin, 1 + random.nextInt(10));
            }
            moves.add("score only " + keep + " plugins");
        }

        private void minimalProfile() {
            disable("multiPoint", "*");
            enable("multiPoint", "PrioritySort", null);
            enable("multiPoint", "DefaultBinder", null);
            moves.add("minimal multiPoint");
        }

        // ---- breaks: each makes a valid profile invalid

        private void breakOne() {
            List<Runnable> breaks = new ArrayList<>(List.of(
                    this::pluginAtWrongPoint,
                    this::unknownPlugin,
                    this::noQueueSort,
                    this::noBinder,
                    this::duplicateAtPoint,
                    this::duplicatePluginConfig,
                    this::badArgs,
                    this::badArgs,
                    this::badArgs,
                    this::badArgs,
                    this::badSchedulerSetting));
            if (plugins.pluginNames().stream().anyMatch(plugins::isRemoved)) {
                breaks.add(this::removedPlugin);
            }
            pick(breaks).run();
        }

        private void pluginAtWrongPoint() {
            String plugin = pick(List.copyOf(plugins.pluginNames().stream()
                    .filter(p -> !plugins.isRemoved(p))
                    .toList()));
            List<String> wrong = crdPoints(false).stream()
                    .filter(point -> !plugins.extensionPoints(plugin).contains(point))
                    .toList();
            String point = pick(wrong);
            enable(point, plugin, point.equals("score") ? 1 : null);
            moves.add("BREAK enable " + plugin + " at " + point + ", which it does not implement");
        }

        private void unknownPlugin() {
            String name = pick(List.of("NoSuchPlugin", "nodeaffinity", "SelectorSpread", "NodeLabel"));
            String point = pick(crdPoints(true));
            enable(point, name, null);
            moves.add("BREAK enable unknown " + name + " at " + point);
        }

        private void removedPlugin() {
            String plugin = pick(
                    plugins.pluginNames().stream().filter(plugins::isRemoved).toList());
            String point = pick(List.of("multiPoint", "filter", "preFilter"));
            enable(point, plugin, null);
            moves.add("BREAK enable removed " + plugin + " at " + point);
        }

        private void noQueueSort() {
            String point = pick(List.of("multiPoint", "queueSort"));
            disable(point, random.nextBoolean() ? "PrioritySort" : "*");
            moves.add("BREAK no queue sort (disabled at " + point + ")");
        }

        private void noBinder() {
            String point = pick(List.of("multiPoint", "bind"));
            disable(point, random.nextBoolean() ? "DefaultBinder" : "*");
            moves.add("BREAK no bind plugin (disabled at " + point + ")");
        }

        private void duplicateAtPoint() {
            String plugin = pick(defaultsExcept());
            String point = pick(pointsOf(plugin, true));
            Integer weight = point.equals("score") ? 1 : null;
            enable(point, plugin, weight);
            enable(point, plugin, weight);
            moves.add("BREAK enable " + plugin + " twice at " + point);
        }

        private void duplicatePluginConfig() {
            String kind = pick(List.copyOf(plugins.argsKinds().keySet()));
            pluginConfig.add(map("name", pluginOf(kind), "args", args(kind, true)));
            pluginConfig.add(map("name", pluginOf(kind), "args", args(kind, true)));
            moves.add("BREAK two pluginConfig entries for " + pluginOf(kind));
        }

        private void badArgs() {
            String kind = pick(List.copyOf(plugins.argsKinds().keySet()));
            pluginConfig.removeIf(entry -> entry.get("name").equals(pluginOf(kind)));
            pluginConfig.add(map("name", pluginOf(kind), "args", args(kind, false)));
        }

        /** A scheduler setting kube-scheduler's own validation refuses (the CRD refuses these too). */
        private void badSchedulerSetting() {
            @SuppressWarnings("unchecked")
            Map<String, Object> scheduler =
                    (Map<String, Object>) spec.computeIfAbsent("scheduler", k -> new LinkedHashMap<>());
            oneOf(
                    new Break("percentageOfNodesToScore 101", () -> scheduler.put("percentageOfNodesToScore", 101)),
                    new Break("podMaxBackoffSeconds below podInitialBackoffSeconds", () -> {
                        scheduler.put("podInitialBackoffSeconds", 20);
                        scheduler.put("podMaxBackoffSeconds", 5);
                    }),
                    new Break(
                            "leaseDuration not above renewDeadline",
                            () -> scheduler.put(
                                    "leaderElection",
                                    map(
                                            "leaderElect",
                                            true,
                                            "leaseDuration",
                                            "10s",
                                            "renewDeadline",
                                            "10s",
                                            "retryPeriod",
                                            "2s"))),
                    new Break(
                            "renewDeadline not above 1.2 x retryPeriod",
                            () -> scheduler.put(
                                    "leaderElection",
                                    map(
                                            "leaderElect",
                                            true,
                                            "leaseDuration",
                                            "30s",
                                            "renewDeadline",
                                            "5s",
                                            "retryPeriod",
                                            "5s"))));
        }

        // ---- plugin args, valid or with one value out of range

        private Map<String, Object> args(String kind, boolean valid) {
            Map<String, Object> args = new LinkedHashMap<>();
            switch (kind) {
                case "DefaultPreemptionArgs" -> defaultPreemption(args, valid);
                case "InterPodAffinityArgs" -> interPodAffinity(args, valid);
                case "NodeAffinityArgs" -> nodeAffinity(args, valid);
                case "NodeResourcesBalancedAllocationArgs" -> balancedAllocation(args, valid);
                case "NodeResourcesFitArgs" -> fit(args, valid);
                case "PodTopologySpreadArgs" -> topologySpread(args, valid);
                case "VolumeBindingArgs" -> volumeBinding(args, valid);
                case "DynamicResourcesArgs" -> dynamicResources(args, valid);
                default -> moves.add("no generator for " + kind + ": empty args");
            }
            return args;
        }

        private void defaultPreemption(Map<String, Object> args, boolean valid) {
            int percentage = random.nextInt(101);
            int absolute = random.nextInt(1000);
            if (percentage == 0 && absolute == 0) {
                absolute = 1;
            }
            args.put("minCandidateNodesPercentage", pick(List.of(percentage, 0, 100)));
            args.put("minCandidateNodesAbsolute", absolute);
            validOr(
                    valid,
                    "DefaultPreemptionArgs " + args,
                    new Break(
                            "DefaultPreemptionArgs percentage 101", () -> args.put("minCandidateNodesPercentage", 101)),
                    new Break("DefaultPreemptionArgs percentage -1", () -> args.put("minCandidateNodesPercentage", -1)),
                    new Break("DefaultPreemptionArgs absolute -1", () -> args.put("minCandidateNodesAbsolute", -1)),
                    new Break("DefaultPreemptionArgs both 0", () -> {
                        args.put("minCandidateNodesPercentage", 0);
                        args.put("minCandidateNodesAbsolute", 0);
                    }));
        }

        private void interPodAffinity(Map<String, Object> args, boolean valid) {
            args.put("hardPodAffinityWeight", pick(List.of(0, 1, 100, random.nextInt(101))));
            args.put("ignorePreferredTermsOfExistingPods", random.nextBoolean());
            validOr(
                    valid,
                    "InterPodAffinityArgs " + args,
                    new Break("InterPodAffinityArgs hard weight 101", () -> args.put("hardPodAffinityWeight", 101)),
                    new Break("InterPodAffinityArgs hard weight -1", () -> args.put("hardPodAffinityWeight", -1)));
        }

        private void nodeAffinity(Map<String, Object> args, boolean valid) {
            Map<String, Object> expression =
                    map("key", pick(TOPOLOGY_KEYS), "operator", "In", "values", List.of("zone-a", "zone-b"));
            Map<String, Object> preferredTerm = map(
                    "weight",
                    pick(List.of(1, 100, 1 + random.nextInt(100))),
                    "preference",
                    map("matchExpressions", List.of(map("key", "gpu", "operator", "Exists"))));
            Map<String, Object> added = new LinkedHashMap<>();
            if (random.nextBoolean() || !valid) {
                added.put(
                        "requiredDuringSchedulingIgnoredDuringExecution",
                        map("nodeSelectorTerms", List.of(map("matchExpressions", List.of(expression)))));
            }
            if (random.nextBoolean() || added.isEmpty()) {
                added.put("preferredDuringSchedulingIgnoredDuringExecution", List.of(preferredTerm));
            }
            args.put("addedAffinity", added);
            validOr(
                    valid,
                    "NodeAffinityArgs " + added.keySet(),
                    new Break(
                            "NodeAffinityArgs preferred weight 0",
                            () -> added.put(
                                    "preferredDuringSchedulingIgnoredDuringExecution",
                                    List.of(map("weight", 0, "preference", preferredTerm.get("preference"))))),
                    new Break(
                            "NodeAffinityArgs preferred weight 101",
                            () -> added.put(
                                    "preferredDuringSchedulingIgnoredDuringExecution",
                                    List.of(map("weight", 101, "preference", preferredTerm.get("preference"))))),
                    new Break("NodeAffinityArgs operator Bogus", () -> expression.put("operator", "Bogus")),
                    new Break("NodeAffinityArgs In without values", () -> expression.put("values", List.of())),
                    new Break("NodeAffinityArgs key 'bad key!'", () -> expression.put("key", "bad key!")),
                    new Break("NodeAffinityArgs Exists with values", () -> expression.put("operator", "Exists")),
                    new Break(
                            "NodeAffinityArgs no node selector terms",
                            () -> added.put(
                                    "requiredDuringSchedulingIgnoredDuringExecution",
                                    map("nodeSelectorTerms", List.of()))));
        }

        private void balancedAllocation(Map<String, Object> args, boolean valid) {
            List<Map<String, Object>> resources = new ArrayList<>();
            resources.add(map("name", "cpu", "weight", pick(List.of(1, 100, 1 + random.nextInt(100)))));
            if (random.nextBoolean()) {
                resources.add(map("name", "memory", "weight", 1 + random.nextInt(100)));
            }
            args.put("resources", resources);
            validOr(
                    valid,
                    "NodeResourcesBalancedAllocationArgs " + resources,
                    new Break(
                            "NodeResourcesBalancedAllocationArgs weight 101",
                            () -> resources.get(0).put("weight", 101)),
                    new Break(
                            "NodeResourcesBalancedAllocationArgs weight -1",
                            () -> resources.get(0).put("weight", -1)),
                    new Break(
                            "NodeResourcesBalancedAllocationArgs cpu twice",
                            () -> resources.add(map("name", "cpu", "weight", 1))));
        }

        private void fit(Map<String, Object> args, boolean valid) {
            String type = pick(List.of("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"));
            List<Map<String, Object>> resources = new ArrayList<>();
            resources.add(map("name", "cpu", "weight", pick(List.of(1, 100, 1 + random.nextInt(100)))));
            if (random.nextBoolean()) {
                resources.add(map("name", "memory", "weight", 1 + random.nextInt(100)));
            }
            Map<String, Object> strategy = map("type", type, "resources", resources);
            List<Map<String, Object>> shape = new ArrayList<>(List.of(
                    map("utilization", 0, "score", random.nextInt(11)),
                    map("utilization", 50 + random.nextInt(50), "score", 10)));
            if (type.equals("RequestedToCapacityRatio")) {
                strategy.put("requestedToCapacityRatio", map("shape", shape));
            }
            args.put("scoringStrategy", strategy);
            if (random.nextBoolean()) {
                args.put("ignoredResources", List.of("example.com/foo"));
            }
            if (random.nextBoolean()) {
                args.put("ignoredResourceGroups", List.of("example.com"));
            }
            validOr(
                    valid,
                    "NodeResourcesFitArgs " + type,
                    new Break("NodeResourcesFitArgs type Bogus", () -> strategy.put("type", "Bogus")),
                    new Break(
                            "NodeResourcesFitArgs resource weight 101",
                            () -> resources.get(0).put("weight", 101)),
                    new Break("NodeResourcesFitArgs shape not increasing", () -> {
                        shape.add(map("utilization", 10, "score", 5));
                        strategy.put("requestedToCapacityRatio", map("shape", shape));
                    }),
                    new Break("NodeResourcesFitArgs shape score 11", () -> {
                        shape.get(1).put("score", 11);
                        strategy.put("requestedToCapacityRatio", map("shape", shape));
                    }),
                    new Break("NodeResourcesFitArgs shape utilization 101", () -> {
                        shape.get(1).put("utilization", 101);
                        strategy.put("requestedToCapacityRatio", map("shape", shape));
                    }),
                    new Break("NodeResourcesFitArgs RequestedToCapacityRatio without shape", () -> {
                        strategy.put("type", "RequestedToCapacityRatio");
                        strategy.remove("requestedToCapacityRatio");
                    }),
                    new Break(
                            "NodeResourcesFitArgs ignoredResourceGroups with a slash",
                            () -> args.put("ignoredResourceGroups", List.of("example.com/foo"))));
        }

        private void topologySpread(Map<String, Object> args, boolean valid) {
            List<Map<String, Object>> constraints = new ArrayList<>();
            if (random.nextBoolean()) {
                args.put("defaultingType", "System");
            } else {
                args.put("defaultingType", "List");
                for (String key : TOPOLOGY_KEYS.subList(0, 1 + random.nextInt(TOPOLOGY_KEYS.size()))) {
                    constraints.add(map(
                            "maxSkew",
                            1 + random.nextInt(5),
                            "topologyKey",
                            key,
                            "whenUnsatisfiable",
                            pick(List.of("DoNotSchedule", "ScheduleAnyway"))));
                }
                args.put("defaultConstraints", constraints);
            }
            if (valid) {
                moves.add("PodTopologySpreadArgs " + args.get("defaultingType") + " " + constraints.size());
                return;
            }
            Map<String, Object> constraint =
                    map("maxSkew", 1, "topologyKey", TOPOLOGY_KEYS.get(0), "whenUnsatisfiable", "DoNotSchedule");
            Consumer<Map<String, Object>> listWith = c -> {
                args.put("defaultingType", "List");
                args.put("defaultConstraints", List.of(c));
            };
            oneOf(
                    new Break("PodTopologySpreadArgs System with constraints", () -> {
                        args.put("defaultingType", "System");
                        args.put("defaultConstraints", List.of(constraint));
                    }),
                    new Break("PodTopologySpreadArgs maxSkew 0", () -> {
                        constraint.put("maxSkew", 0);
                        listWith.accept(constraint);
                    }),
                    new Break("PodTopologySpreadArgs empty topologyKey", () -> {
                        constraint.put("topologyKey", "");
                        listWith.accept(constraint);
                    }),
                    new Break("PodTopologySpreadArgs whenUnsatisfiable Never", () -> {
                        constraint.put("whenUnsatisfiable", "Never");
                        listWith.accept(constraint);
                    }),
                    new Break("PodTopologySpreadArgs the same constraint twice", () -> {
                        args.put("defaultingType", "List");
                        args.put("defaultConstraints", List.of(constraint, constraint));
                    }),
                    new Break("PodTopologySpreadArgs defaultingType Bogus", () -> args.put("defaultingType", "Bogus")));
        }

        private void volumeBinding(Map<String, Object> args, boolean valid) {
            args.put("bindTimeoutSeconds", pick(List.of(0, 1, 600, random.nextInt(1200))));
            String gate = plugins.volumeBindingShapeFeatureGate();
            boolean shapeAllowed = gateOnByDefault(gate) || (canSwitch(gate) && random.nextBoolean() && turnOn(gate));
            List<Map<String, Object>> shape = new ArrayList<>(
                    List.of(map("utilization", 0, "score", 0), map("utilization", 100, "score", random.nextInt(11))));
            if (shapeAllowed && random.nextBoolean()) {
                args.put("shape", shape);
            }
            if (valid) {
                moves.add("VolumeBindingArgs " + args.keySet() + (shapeAllowed ? " (" + gate + " on)" : ""));
                return;
            }
            Break negativeTimeout =
                    new Break("VolumeBindingArgs bindTimeoutSeconds -1", () -> args.put("bindTimeoutSeconds", -1));
            Break shapeBreak = shapeAllowed
                    ? new Break("VolumeBindingArgs shape score 11", () -> {
                        shape.get(1).put("score", 11);
                        args.put("shape", shape);
                    })
                    : new Break("VolumeBindingArgs shape while " + gate + " is off", () -> args.put("shape", shape));
            oneOf(negativeTimeout, shapeBreak);
        }

        private void dynamicResources(Map<String, Object> args, boolean valid) {
            boolean filterTimeout = gateOnByDefault("DRASchedulerFilterTimeout");
            boolean bindingTimeout =
                    plugins.argsKinds().get("DynamicResourcesArgs").contains("bindingTimeout")
                            && gateOnByDefault("DRADeviceBindingConditions")
                            && gateOnByDefault("DRAResourceClaimDeviceStatus");
            if (filterTimeout && random.nextBoolean()) {
                args.put("filterTimeout", pick(List.of("0s", "10s", "1m")));
            }
            if (bindingTimeout && random.nextBoolean()) {
                args.put("bindingTimeout", pick(List.of("1s", "10m")));
            }
            if (valid) {
                moves.add("DynamicResourcesArgs " + args);
                return;
            }
            List<Break> breaks = new ArrayList<>();
            if (filterTimeout) {
                breaks.add(new Break("DynamicResourcesArgs filterTimeout -1s", () -> args.put("filterTimeout", "-1s")));
            }
            if (canSwitch("DRASchedulerFilterTimeout")) {
                breaks.add(new Break("DynamicResourcesArgs filterTimeout while its gate is off", () -> {
                    featureGates.put("DRASchedulerFilterTimeout", false);
                    args.put("filterTimeout", "10s");
                }));
            }
            if (bindingTimeout) {
                breaks.add(new Break(
                        "DynamicResourcesArgs bindingTimeout 500ms", () -> args.put("bindingTimeout", "500ms")));
                breaks.add(new Break("DynamicResourcesArgs bindingTimeout 0s", () -> args.put("bindingTimeout", "0s")));
            }
            if (breaks.isEmpty()) {
                moves.add("DynamicResourcesArgs: nothing to break in " + plugins.version());
                return;
            }
            oneOf(breaks.toArray(Break[]::new));
        }

        // ---- helpers

        private boolean gateOnByDefault(String gate) {
            return flags.gate(gate)
                    .map(SchedulerFlagCatalog.Gate::enabledByDefault)
                    .orElse(false);
        }

        /** A gate the profile may set: the operator refuses GA (locked) gates by policy. */
        private boolean canSwitch(String gate) {
            return flags.gate(gate)
                    .map(g -> g.stage().equals("ALPHA") || g.stage().equals("BETA"))
                    .orElse(false);
        }

        private boolean turnOn(String gate) {
            featureGates.put(gate, true);
            return true;
        }

        /** A valid draw records {@code move}; an invalid one draws and runs one of the breaks instead. */
        private void validOr(boolean valid, String move, Break... breaks) {
            if (valid) {
                moves.add(move);
            } else {
                oneOf(breaks);
            }
        }

        /** One of the breaks is drawn and run. */
        private void oneOf(Break... breaks) {
            Break drawn = breaks[random.nextInt(breaks.length)];
            moves.add("BREAK " + drawn.name());
            drawn.apply().run();
        }

        private String pluginOf(String kind) {
            return plugins.pluginNames().stream()
                    .filter(p -> plugins.argsKind(p).map(kind::equals).orElse(false))
                    .findFirst()
                    .orElse(kind.replaceAll("Args$", ""));
        }

        private List<String> defaultsExcept(String... excluded) {
            return plugins.defaults().stream()
                    .map(DefaultPlugin::name)
                    .filter(p -> !List.of(excluded).contains(p))
                    .toList();
        }

        private List<String> defaultsAt(ExtensionPoint point) {
            return defaultsExcept().stream()
                    .filter(p -> plugins.extensionPoints(p).contains(point.fieldName()))
                    .toList();
        }

        /** The points of a plugin that the CRD can name, with multiPoint if asked. */
        private List<String> pointsOf(String plugin, boolean withMultiPoint) {
            List<String> points = new ArrayList<>(plugins.extensionPoints(plugin).stream()
                    .filter(p -> ExtensionPoint.fromFieldName(p).isPresent())
                    .toList());
            if (withMultiPoint) {
                points.add("multiPoint");
            }
            return points;
        }

        private List<String> crdPoints(boolean withMultiPoint) {
            List<ExtensionPoint> points = withMultiPoint ? List.of(ExtensionPoint.values()) : ExtensionPoint.concrete();
            return points.stream().map(ExtensionPoint::fieldName).toList();
        }

        private void enable(String point, String plugin, Integer weight) {
            Map<String, Object> entry = weight == null ? map("name", plugin) : map("name", plugin, "weight", weight);
            pluginSets
                    .computeIfAbsent(point, p -> new LinkedHashMap<>())
                    .computeIfAbsent("enabled", k -> new ArrayList<>())
                    .add(entry);
        }

        private void disable(String point, String plugin) {
            pluginSets
                    .computeIfAbsent(point, p -> new LinkedHashMap<>())
                    .computeIfAbsent("disabled", k -> new ArrayList<>())
                    .add(map("name", plugin));
        }

        private <T> T pick(List<T> from) {
            return from.get(random.nextInt(from.size()));
        }

        private String yaml() {
            if (!pluginSets.isEmpty()) {
                spec.put("plugins", pluginSets);
            }
            if (!pluginConfig.isEmpty()) {
                spec.put("pluginConfig", pluginConfig);
            }
            if (!featureGates.isEmpty()) {
                @SuppressWarnings("unchecked")
                Map<String, Object> scheduler =
                        (Map<String, Object>) spec.computeIfAbsent("scheduler", k -> new LinkedHashMap<>());
                scheduler.put("featureGates", featureGates);
            }
            return GeneratedProfiles.yaml(GeneratedProfiles.profile("corpus", "corpus", spec));
        }
    }
}
