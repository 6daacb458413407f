package dev.schedulerops.operator.fuzz;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.schedulerops.operator.render.Yaml;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generated SchedulerProfile YAML documents: every field with valid, invalid, huge and weird values (label keys,
 * verbs, weights, plugin sets, plugin args of wrong shapes, durations, replicas), unknown fields, and YAML-level damage
 * (truncation, tabs, alias bombs). Mostly-valid profiles come from {@link #plausible()}, which the e2e module also uses
 * to feed the real kube-scheduler.
 */
public final class GeneratedProfiles {
    private GeneratedProfiles() {}

    static final String[] VALID_LABEL_KEYS = {
        "priority.lixueduan.com",
        "a",
        "gpu",
        "example.com/x-y_z.1",
        "node.kubernetes.io/instance-type",
        "a".repeat(63),
        "k8s.io/" + "b".repeat(63)
    };
    static final String[] INVALID_LABEL_KEYS = {
        "",
        "-a",
        "a-",
        "a/b/c",
        "UPPER.com/x",
        "a".repeat(64),
        "x".repeat(254) + "/a",
        "ключ",
        "a b",
        "a\u0000b",
        "/a",
        "a/",
        "example.com/",
        "*",
        "a\nb",
        "${x}",
        "a".repeat(10_000)
    };
    static final Object[] VERBS = {"Filter", "FilterOnlyOne", "Prioritize", "Bind", "Preempt"};
    static final Object[] BAD_VERBS = {"filter", "Nope", "", 1, List.of("Filter"), Map.of("a", 1)};
    static final String[] PLUGINS = {
        "NodeResourcesFit",
        "NodeAffinity",
        "TaintToleration",
        "PrioritySort",
        "DefaultBinder",
        "ImageLocality",
        "InterPodAffinity",
        "PodTopologySpread",
        "VolumeBinding",
        "DefaultPreemption",
        "NodeResourcesBalancedAllocation",
        "NodeName",
        "NodePorts",
        "NodeUnschedulable",
        "VolumeRestrictions",
        "VolumeZone",
        "NodeVolumeLimits",
        "SchedulingGates",
        "DynamicResources"
    };
    static final String[] BAD_PLUGINS = {"*", "", "NoSuchPlugin", "SelectorSpread", "nodeaffinity", "a".repeat(5000)};
    static final String[] EXTENSION_POINTS = {
        "preEnqueue",
        "queueSort",
        "preFilter",
        "filter",
        "postFilter",
        "preScore",
        "score",
        "reserve",
        "permit",
        "preBind",
        "bind",
        "postBind",
        "multiPoint"
    };
    static final String[] DURATIONS = {"5s", "1m", "500ms", "1h30m", "0s"};
    static final String[] BAD_DURATIONS = {"", "-1s", "abc", "1.5", "9999999999999h", "5 s", "1d", "P1D"};
    static final Object[] WEIRD_NUMBERS = {
        0,
        -1,
        1,
        100,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        2147483648L,
        Long.MAX_VALUE,
        new BigInteger("123456789012345678901234567890"),
        1.5,
        -0.0,
        1e308,
        Double.NaN,
        "10",
        "",
        true
    };
    static final String[] ARG_KEYS = {
        "scoringStrategy",
        "type",
        "resources",
        "name",
        "weight",
        "hardPodAffinityWeight",
        "defaultConstraints",
        "defaultingType",
        "addedAffinity",
        "bindTimeoutSeconds",
        "minCandidateNodesPercentage",
        "minCandidateNodesAbsolute",
        "apiVersion",
        "kind",
        "requestedToCapacityRatio",
        "shape",
        "utilization",
        "score",
        "ignorePreferredTermsOfExistingPods",
        "maxSkew",
        "topologyKey",
        "whenUnsatisfiable",
        "x"
    };

    /** Any profile document, valid or not. */
    /**
     * A sample seeded by {@code -Dfuzz.seed=N}, or by a fresh seed printed once: a failing run names its seed, and
     * the same property draws the same profiles again (jqwik's sampleStream cannot be seeded).
     */
    public record Sample(long seed, java.util.Iterator<String> documents) {
        /** What a failure message should carry to be reproducible. */
        public String reproduce() {
            return "seed " + seed + " (reproduce with -Dfuzz.seed=" + seed + ")";
        }
    }

    public static Sample seeded(Arbitrary<String> arbitrary) {
        String fixed = System.getProperty("fuzz.seed");
        long seed = fixed == null || fixed.isBlank() ? new java.util.Random().nextLong() : Long.parseLong(fixed);
        System.out.println("[generated profiles] seed " + seed + " (reproduce with -Dfuzz.seed=" + seed + ")");
        java.util.Random random = new java.util.Random(seed);
        return new Sample(seed, new java.util.Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public String next() {
                if (net.jqwik.api.sessions.JqwikSession.isActive()) {
                    return arbitrary.generator(100).next(random).value();
                }
                // Outside a property, building a generator (memoized ones) and drawing from it (frequencyOf's) both
                // need jqwik's session, or they throw OutsideJqwikException: seed -5833332284001834870 drew nothing
                // in GeneratedProfilesTest, -2889766447467665866 threw in GeneratedProfilesAcceptedBySchedulerTest.
                // The same seed still draws the same documents: the generator is a pure function of the Random.
                String[] drawn = new String[1];
                net.jqwik.api.sessions.JqwikSession.run(
                        () -> drawn[0] = arbitrary.generator(100).next(random).value());
                return drawn[0];
            }
        });
    }

    public static Arbitrary<String> documents() {
        return Arbitraries.frequencyOf(Tuple.of(4, plausible()), Tuple.of(5, hostile()), Tuple.of(1, damaged()));
    }

    /** Profiles with valid-looking values only: most are accepted (those the validator refuses are still fine). */
    public static Arbitrary<String> plausible() {
        Arbitrary<List<Object>> verbs = Arbitraries.of(VERBS).set().ofMaxSize(5).map(ArrayList::new);
        Arbitrary<Object> weight = Arbitraries.integers().between(1, 100).map(i -> (Object) i);
        Arbitrary<Map<String, Object>> plugins = pluginSets(Arbitraries.of(PLUGINS), Arbitraries.of(1, 2, 5, 10));
        Arbitrary<List<Map<String, Object>>> pluginConfig = Arbitraries.of(
                List.<Map<String, Object>>of(),
                List.of(map(
                        "name",
                        "NodeResourcesFit",
                        "args",
                        map(
                                "scoringStrategy",
                                map("type", "MostAllocated", "resources", List.of(map("name", "cpu", "weight", 1)))))),
                List.of(map("name", "InterPodAffinity", "args", map("hardPodAffinityWeight", 5))),
                List.of(map(
                        "name",
                        "DefaultPreemption",
                        "args",
                        map("minCandidateNodesPercentage", 20, "minCandidateNodesAbsolute", 50))),
                List.of(map("name", "PodTopologySpread", "args", map("defaultingType", "List"))));
        Arbitrary<Map<String, Object>> extender = Combinators.combine(
                        Arbitraries.integers().between(1, 3),
                        Arbitraries.of(true, false),
                        Arbitraries.of(true, false),
                        Arbitraries.of(DURATIONS))
                .as((replicas, cache, ignorable, timeout) -> map(
                        "replicas",
                        replicas,
                        "nodeCacheCapable",
                        cache,
                        "ignorable",
                        ignorable,
                        "httpTimeout",
                        timeout));
        Arbitrary<Map<String, Object>> scheduler = Combinators.combine(
                        Arbitraries.integers().between(1, 3),
                        Arbitraries.integers().between(0, 100),
                        Arbitraries.integers().between(0, 10),
                        Arbitraries.of(true, false))
                .as((replicas, pct, v, elect) -> map(
                        "replicas",
                        replicas,
                        "percentageOfNodesToScore",
                        pct,
                        "logVerbosity",
                        v,
                        "leaderElection",
                        map("leaderElect", elect)));
        return Combinators.combine(
                        Arbitraries.of(VALID_LABEL_KEYS),
                        verbs,
                        weight,
                        plugins.injectNull(0.5),
                        pluginConfig,
                        extender.injectNull(0.5),
                        scheduler.injectNull(0.5),
                        Arbitraries.integers().between(0, 1_000_000))
                .as((key, v, w, p, pc, ext, sch, n) -> {
                    Map<String, Object> spec = new LinkedHashMap<>();
                    spec.put("labelKey", key);
                    if (!v.isEmpty()) {
                        spec.put("verbs", v);
                    }
                    spec.put("weight", w);
                    putIfNotNull(spec, "plugins", p);
                    if (!pc.isEmpty()) {
                        spec.put("pluginConfig", pc);
                    }
                    putIfNotNull(spec, "extender", ext);
                    putIfNotNull(spec, "scheduler", sch);
                    return yaml(profile("gen-" + n, "fuzz", spec));
                });
    }

    /** Profiles whose every field may be invalid, of a wrong type, huge or missing; and unknown fields. */
    static Arbitrary<String> hostile() {
        Arbitrary<Object> anyValue = anyJson();
        Arbitrary<Object> labelKey = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(VALID_LABEL_KEYS).map(o -> (Object) o)),
                Tuple.of(3, Arbitraries.of(INVALID_LABEL_KEYS).map(o -> (Object) o)),
                Tuple.of(1, anyValue));
        Arbitrary<Object> verbs = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(VERBS).list().ofMaxSize(7).map(o -> (Object) o)),
                Tuple.of(
                        2,
                        Arbitraries.oneOf(Arbitraries.of(VERBS), Arbitraries.of(BAD_VERBS))
                                .list()
                                .ofMaxSize(7)
                                .map(o -> (Object) o)),
                Tuple.of(1, anyValue));
        Arbitrary<Object> number = Arbitraries.oneOf(
                Arbitraries.of(WEIRD_NUMBERS).injectNull(0.05),
                Arbitraries.integers().map(i -> (Object) i));
        Arbitrary<Map<String, Object>> plugins =
                pluginSets(Arbitraries.oneOf(Arbitraries.of(PLUGINS), Arbitraries.of(BAD_PLUGINS)), number);
        Arbitrary<Object> pluginConfig = Combinators.combine(
                        Arbitraries.oneOf(Arbitraries.of(PLUGINS), Arbitraries.of(BAD_PLUGINS)),
                        Arbitraries.oneOf(argsObject(), anyValue))
                .as((name, args) -> (Object) map("name", name, "args", args))
                .list()
                .ofMaxSize(4)
                .map(o -> (Object) o);
        Arbitrary<Object> duration =
                Arbitraries.oneOf(Arbitraries.of(DURATIONS), Arbitraries.of(BAD_DURATIONS), number);
        Arbitrary<Object> extender = Combinators.combine(
                        number, duration, anyValue, Arbitraries.of(true, false), placement(anyValue))
                .as((replicas, timeout, any, unknown, placement) -> {
                    Map<String, Object> m = map(
                            "replicas",
                            replicas,
                            "httpTimeout",
                            timeout,
                            "nodeCacheCapable",
                            any,
                            "image",
                            any instanceof String ? any : "img:1");
                    if (unknown) {
                        m.put("replica", 1);
                    }
                    m.putAll(placement);
                    return (Object) m;
                });
        Arbitrary<Object> scheduler = Combinators.combine(
                        number,
                        number,
                        duration,
                        Arbitraries.of("registry.k8s.io/kube-scheduler:v1.33.0", "", "UPPER/x", "a".repeat(3000)),
                        placement(anyValue))
                .as((pct, v, lease, image, placement) -> {
                    Map<String, Object> m = map(
                            "percentageOfNodesToScore",
                            pct,
                            "logVerbosity",
                            v,
                            "image",
                            image,
                            "leaderElection",
                            map("leaseDuration", lease, "renewDeadline", lease, "retryPeriod", "2s"));
                    m.putAll(placement);
                    return (Object) m;
                });
        Arbitrary<Object> name = Arbitraries.oneOf(
                Arbitraries.of("p", "default-scheduler", "UPPER", "", "a".repeat(300), "a.b", "-x"),
                Arbitraries.strings().ofMaxLength(20));
        return Combinators.combine(
                        Combinators.combine(labelKey, verbs, number, name).as(java.util.Arrays::asList),
                        plugins.injectNull(0.3),
                        pluginConfig.injectNull(0.3),
                        extender.injectNull(0.3),
                        scheduler.injectNull(0.3),
                        Arbitraries.of(KEYS_TO_DROP),
                        Arbitraries.of(true, false))
                .as((basics, p, pc, ext, sch, drop, unknownField) -> {
                    Map<String, Object> spec = new LinkedHashMap<>();
                    spec.put("labelKey", basics.get(0));
                    spec.put("verbs", basics.get(1));
                    spec.put("weight", basics.get(2));
                    spec.put("schedulerName", basics.get(3));
                    putIfNotNull(spec, "plugins", p);
                    putIfNotNull(spec, "pluginConfig", pc);
                    putIfNotNull(spec, "extender", ext);
                    putIfNotNull(spec, "scheduler", sch);
                    spec.remove(drop);
                    if (unknownField) {
                        spec.put("labelkey", "typo");
                    }
                    Object metaName = basics.get(3) instanceof String s && !s.isEmpty() ? s : "p";
                    return yaml(profile(metaName, "fuzz", spec));
                });
    }

    /**
     * Placement fields of extender or scheduler, each present or not: maps with valid, invalid and reserved keys and
     * values of any type; tolerations and spread constraints with valid and invalid fields, missing ones and nulls.
     */
    static Arbitrary<Map<String, Object>> placement(Arbitrary<Object> anyValue) {
        Arbitrary<String> keys = Arbitraries.oneOf(
                Arbitraries.of(VALID_LABEL_KEYS),
                Arbitraries.of(INVALID_LABEL_KEYS),
                Arbitraries.of("app.kubernetes.io/instance", "schedulerops.dev/config-hash", "team"));
        // Rarely one value past the API server's 256 KiB total of annotations.
        Arbitrary<Object> values = Arbitraries.frequencyOf(
                Tuple.of(
                        20,
                        Arbitraries.of("", "x", "not a value", "a".repeat(64)).map(v -> (Object) v)),
                Tuple.of(10, anyValue),
                Tuple.of(1, Arbitraries.just("a".repeat(300_000))));
        Arbitrary<Object> stringMap =
                Arbitraries.maps(keys, values).ofMaxSize(4).map(m -> (Object) m);
        Arbitrary<Object> toleration = Combinators.combine(
                        Arbitraries.of("", "dedicated", "bad key!").injectNull(0.3),
                        Arbitraries.of("Exists", "Equal", "In").injectNull(0.3),
                        Arbitraries.of("", "infra").injectNull(0.5),
                        Arbitraries.of("NoSchedule", "NoExecute", "Nope", "").injectNull(0.3),
                        Arbitraries.of((Object) 30, -1, "x").injectNull(0.7))
                .as((key, op, value, effect, seconds) -> (Object) withoutNulls(map(
                        "key", key, "operator", op, "value", value, "effect", effect, "tolerationSeconds", seconds)));
        Arbitrary<Object> spread = Combinators.combine(
                        Arbitraries.of((Object) 1, 0, -3, "one").injectNull(0.2),
                        Arbitraries.of("kubernetes.io/hostname", "", "bad key!").injectNull(0.2),
                        Arbitraries.of("DoNotSchedule", "ScheduleAnyway", "Never")
                                .injectNull(0.2))
                .as((skew, key, when) ->
                        (Object) withoutNulls(map("maxSkew", skew, "topologyKey", key, "whenUnsatisfiable", when)));
        Arbitrary<Object> pullSecrets = Arbitraries.of((Object) List.of(map("name", "regcred")), List.of(map()), "x");
        return Combinators.combine(
                        stringMap.injectNull(0.6),
                        Arbitraries.oneOf(toleration.list().ofMaxSize(3).map(l -> (Object) l), anyValue)
                                .injectNull(0.6),
                        spread.list().ofMaxSize(2).map(l -> (Object) l).injectNull(0.7),
                        Arbitraries.of("system-cluster-critical", "Bad_Class", "")
                                .injectNull(0.7),
                        stringMap.injectNull(0.6),
                        stringMap.injectNull(0.6),
                        pullSecrets.injectNull(0.7),
                        Arbitraries.of(
                                        (Object) map("nodeAffinity", map()),
                                        map("podAntiAffinity", "x"),
                                        map("unknown", 1))
                                .injectNull(0.8))
                .as((nodeSelector, tolerations, spreads, priority, labels, annotations, secrets, affinity) ->
                        withoutNulls(map(
                                "nodeSelector", nodeSelector,
                                "tolerations", tolerations,
                                "topologySpreadConstraints", spreads,
                                "priorityClassName", priority,
                                "podLabels", labels,
                                "podAnnotations", annotations,
                                "imagePullSecrets", secrets,
                                "affinity", affinity)));
    }

    private static Map<String, Object> withoutNulls(Map<String, Object> m) {
        m.values().removeIf(java.util.Objects::isNull);
        return m;
    }

    private static final String[] KEYS_TO_DROP = {"none", "labelKey", "verbs", "weight", "schedulerName"};

    /** YAML text damaged below the object level. */
    static Arbitrary<String> damaged() {
        return Combinators.combine(
                        Arbitraries.oneOf(plausible(), hostile()),
                        Arbitraries.doubles().between(0, 1),
                        Arbitraries.integers().between(0, 6))
                .as((text, f, kind) -> {
                    int at = (int) (f * text.length());
                    return switch (kind) {
                        case 0 -> text.substring(0, at);
                        case 1 -> text.substring(0, at) + "\t" + text.substring(at);
                        case 2 -> text.substring(0, at) + ": : [" + text.substring(at);
                        case 3 -> text + "---\n" + text;
                        case 4 -> ALIAS_BOMB;
                        case 5 -> text + "spec: {labelKey: duplicate}\n";
                        default -> text.replace("spec:", "spec: &a\n  x: *a\n  y:");
                    };
                });
    }

    static final String ALIAS_BOMB =
            """
            apiVersion: schedulerops.dev/v1beta1
            kind: SchedulerProfile
            metadata: {name: bomb}
            a: &a ["x","x","x","x","x","x","x","x","x"]
            b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
            c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
            d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
            e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
            f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
            spec: {labelKey: [*f,*f,*f,*f,*f,*f,*f,*f,*f]}
            """;

    private static Arbitrary<Map<String, Object>> pluginSets(Arbitrary<String> names, Arbitrary<Object> weights) {
        Arbitrary<Object> plugin = Combinators.combine(names, weights.injectNull(0.6))
                .as((n, w) -> (Object) (w == null ? map("name", n) : map("name", n, "weight", w)));
        Arbitrary<Object> set = Combinators.combine(
                        plugin.list().ofMaxSize(3), plugin.list().ofMaxSize(2))
                .as((enabled, disabled) -> (Object) map("enabled", enabled, "disabled", disabled));
        return Combinators.combine(Arbitraries.of(EXTENSION_POINTS), set)
                .as(Tuple::of)
                .list()
                .ofMaxSize(3)
                .map(entries -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    entries.forEach(e -> m.put(e.get1(), e.get2()));
                    return m;
                });
    }

    /** Plugin args: objects with real args keys and values of right and wrong shapes. */
    private static Arbitrary<Object> argsObject() {
        return Combinators.combine(Arbitraries.of(ARG_KEYS), anyJson())
                .as(Tuple::of)
                .list()
                .ofMaxSize(4)
                .map(entries -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    entries.forEach(e -> m.put(e.get1(), e.get2()));
                    return (Object) m;
                });
    }

    /** Any JSON value, a few levels deep, with huge strings and numbers now and then. */
    static Arbitrary<Object> anyJson() {
        Arbitrary<Object> leaf = Arbitraries.oneOf(
                Arbitraries.of(WEIRD_NUMBERS).injectNull(0.05),
                Arbitraries.strings().ofMaxLength(16).map(s -> (Object) s),
                Arbitraries.of(
                        "MostAllocated",
                        "LeastAllocated",
                        "RequestedToCapacityRatio",
                        "List",
                        "System",
                        "cpu",
                        "memory",
                        "DoNotSchedule",
                        "kubescheduler.config.k8s.io/v1",
                        "NodeResourcesFitArgs"),
                Arbitraries.integers()
                        .between(0, 1000)
                        .withDistribution(net.jqwik.api.RandomDistribution.uniform())
                        .map(e -> (int) Math.max(1, Math.pow(100_000, e / 1000.0)))
                        .map(n -> (Object) "x".repeat(n)));
        return Arbitraries.recursive(
                () -> leaf,
                inner -> Arbitraries.oneOf(
                        inner.list().ofMaxSize(3).map(o -> (Object) o),
                        Combinators.combine(Arbitraries.of(ARG_KEYS), inner)
                                .as(Tuple::of)
                                .list()
                                .ofMaxSize(3)
                                .map(entries -> {
                                    Map<String, Object> m = new LinkedHashMap<>();
                                    entries.forEach(e -> m.put(e.get1(), e.get2()));
                                    return (Object) m;
                                })),
                0,
                3);
    }

    static Map<String, Object> profile(Object name, String namespace, Map<String, Object> spec) {
        return map(
                "apiVersion",
                "schedulerops.dev/v1beta1",
                "kind",
                "SchedulerProfile",
                "metadata",
                map("name", name, "namespace", namespace),
                "spec",
                spec);
    }

    static Map<String, Object> map(Object... keyValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    private static void putIfNotNull(Map<String, Object> m, String key, Object value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    static String yaml(Object tree) {
        try {
            return Yaml.MAPPER.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
