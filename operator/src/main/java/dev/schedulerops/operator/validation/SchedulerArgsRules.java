package dev.schedulerops.operator.validation;

import dev.schedulerops.operator.api.Defaults;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * kube-scheduler's command line beyond what the operator passes: {@code spec.scheduler.featureGates} and
 * {@code spec.scheduler.extraArgs}, checked against the flags and gates of the target version
 * ({@link SchedulerFlagCatalog}). kube-scheduler exits at start-up on an unknown flag, an unknown gate or a value its
 * type cannot parse, so each of those is refused here, before anything rolls out.
 */
public final class SchedulerArgsRules {
    private static final Pattern FLAG_NAME = Pattern.compile("^[a-z0-9][a-z0-9-]*$");
    private static final Pattern GATE_NAME = Pattern.compile("^[A-Za-z0-9]+$");
    private static final Pattern INTEGER = Pattern.compile("^[-+]?\\d{1,19}$");
    private static final Pattern FLOAT = Pattern.compile("^[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?$");
    /** A gated boolean flag set to false asks for nothing the gate guards, and kube-scheduler accepts it. */
    private static final Set<String> GO_FALSE = Set.of("0", "f", "F", "FALSE", "false", "False");

    private static final Set<String> GO_TRUE = Set.of("1", "t", "T", "TRUE", "true", "True");

    private static final String LEADER_ELECTION = "use spec.scheduler.leaderElection";
    private static final String API_SERVER = "the scheduler reaches the API server through its ServiceAccount";

    /** Flags the operator sets itself or owns through a spec field, with what to do instead. */
    static final Map<String, String> OWNED = Map.ofEntries(
            Map.entry("config", "the operator passes the KubeSchedulerConfiguration it renders"),
            Map.entry("v", "use spec.scheduler.logVerbosity"),
            Map.entry("feature-gates", "use spec.scheduler.featureGates"),
            Map.entry("write-config-to", "it makes kube-scheduler write its configuration and exit"),
            Map.entry("version", "it makes kube-scheduler print its version and exit"),
            Map.entry("help", "it makes kube-scheduler print its help and exit"),
            Map.entry("master", API_SERVER),
            Map.entry("kubeconfig", API_SERVER),
            Map.entry("secure-port", "the probes and the metrics endpoint use port 10259"),
            Map.entry("bind-address", "the probes reach the scheduler on the pod's address"),
            Map.entry("leader-elect", LEADER_ELECTION),
            Map.entry("leader-elect-lease-duration", LEADER_ELECTION),
            Map.entry("leader-elect-renew-deadline", LEADER_ELECTION),
            Map.entry("leader-elect-retry-period", LEADER_ELECTION),
            Map.entry("leader-elect-resource-lock", LEADER_ELECTION),
            Map.entry("leader-elect-resource-name", LEADER_ELECTION),
            Map.entry("leader-elect-resource-namespace", LEADER_ELECTION));

    private SchedulerArgsRules() {}

    /** What a schema can say: sizes and name syntax; the catalogue checks come in {@link #validate}. */
    public static void validateSyntax(Map<String, Boolean> gates, Map<String, String> args, List<String> errors) {
        String gatesPath = "spec.scheduler.featureGates";
        String argsPath = "spec.scheduler.extraArgs";
        if (gates != null) {
            if (gates.size() > Defaults.MAX_FEATURE_GATES) {
                errors.add(GoValues.tooMany(gatesPath, gates.size(), Defaults.MAX_FEATURE_GATES, "gates"));
            }
            gates.forEach((name, value) -> {
                if (!GATE_NAME.matcher(name).matches()) {
                    errors.add(gatesPath + ": Invalid value: " + GoValues.shown(name)
                            + ": a feature gate name has only letters and digits, e.g. SchedulerQueueingHints");
                } else if (value == null) {
                    errors.add(gatesPath + "." + name + ": Required value: true or false");
                }
            });
        }
        if (args != null) {
            if (args.size() > Defaults.MAX_EXTRA_ARGS) {
                errors.add(GoValues.tooMany(argsPath, args.size(), Defaults.MAX_EXTRA_ARGS, "flags"));
            }
            args.forEach((name, value) -> {
                if (!FLAG_NAME.matcher(name).matches()) {
                    errors.add(argsPath + ": Invalid value: " + GoValues.shown(name)
                            + ": write a flag's name without its leading dashes, e.g. kube-api-qps: \"100\"");
                } else if (value == null) {
                    errors.add(argsPath + "." + name + ": Required value: the flag's value as a string, e.g. \"true\"");
                } else if (value.length() > Defaults.MAX_VALUE_LENGTH) {
                    errors.add(argsPath + "." + name + ": Too long: may not be more than " + Defaults.MAX_VALUE_LENGTH
                            + " characters");
                } else if (value.chars().anyMatch(Character::isISOControl)) {
                    errors.add(argsPath + "." + name + ": Invalid value: " + GoValues.shown(value)
                            + ": control characters such as line breaks are not allowed");
                }
            });
        }
    }

    /**
     * The version's rules, on names that passed {@link #validateSyntax}.
     *
     * @param catalog the target version's catalogue, or empty when the operator has none for it
     * @param version the target version, for messages
     * @param customImage whether spec.scheduler.image is set: then only the operator's own flags are refused, since a
     *     custom build may know other flags and gates
     */
    public static void validate(
            Map<String, Boolean> gates,
            Map<String, String> args,
            Optional<SchedulerFlagCatalog> catalog,
            KubernetesVersion version,
            boolean customImage,
            List<String> errors) {
        args.keySet().forEach(name -> ownFlagRefusal(name)
                .ifPresent(why -> errors.add("spec.scheduler.extraArgs." + name + ": Forbidden: " + why)));
        if (customImage || (gates.isEmpty() && args.isEmpty())) {
            return;
        }
        if (catalog.isEmpty()) {
            errors.add("spec.scheduler: Forbidden: featureGates and extraArgs are checked against the flags of"
                    + " kube-scheduler " + version + ", and this operator has no catalogue of them (it knows "
                    + SchedulerFlagCatalog.knownVersions() + "); remove them, or set spec.scheduler.image to take"
                    + " responsibility for the flags");
            return;
        }
        SchedulerFlagCatalog known = catalog.get();
        gates.forEach((name, value) -> {
            if (known.gate(name).isEmpty()) {
                errors.add("spec.scheduler.featureGates." + name + ": Unsupported value: kube-scheduler " + version
                        + " has no alpha or beta feature gate " + GoValues.quote(name) + suggestion(name, known)
                        + " (GA and deprecated gates cannot be set)");
            }
        });
        known.dependencies().forEach((gate, needs) -> {
            if (!enabled(gate, gates, known)) {
                return;
            }
            List<String> off =
                    needs.stream().filter(n -> !enabled(n, gates, known)).toList();
            if (!off.isEmpty()) {
                errors.add("spec.scheduler.featureGates: Invalid value: " + gate + " is enabled, but depends on"
                        + " features that are disabled: " + off + " (kube-scheduler " + version
                        + " refuses to start)");
            }
        });
        args.forEach((name, value) -> {
            if (ownFlagRefusal(name).isPresent()) {
                return;
            }
            String path = "spec.scheduler.extraArgs." + name;
            Optional<SchedulerFlagCatalog.Flag> flag = known.flag(name);
            if (flag.isEmpty()) {
                errors.add(path + ": Unsupported value: kube-scheduler " + version + " has no flag --" + name);
            } else if (flag.get().ignoredWithConfig()) {
                errors.add(path + ": Forbidden: kube-scheduler ignores --" + name + " when it is given --config, as"
                        + " the operator always does; set the matching field of the spec instead");
            } else if (flag.get().gate().isPresent()
                    && !enabled(flag.get().gate().get(), gates, known)
                    && !GO_FALSE.contains(value)) {
                errors.add(path + ": Forbidden: --" + name + " needs the feature gate "
                        + flag.get().gate().get() + ", which is off: set spec.scheduler.featureGates."
                        + flag.get().gate().get() + ": true");
            } else if (!CHECKED_TYPES.contains(flag.get().type()) && !STRING_FLAGS.containsKey(name)) {
                errors.add(path + ": Forbidden: the operator cannot check a value of --" + name + " ("
                        + flag.get().type() + ") before kube-scheduler starts, and one it refuses would stop the"
                        + " scheduler; " + PASSED_THROUGH);
            } else {
                valueError(name, flag.get().type(), value)
                        .ifPresent(expected -> errors.add(path + ": Invalid value: " + GoValues.shown(value) + ": --"
                                + name + " takes " + expected));
            }
        });
    }

    /** Whether a gate is on: set in featureGates, else AllAlpha/AllBeta for its stage, else its default. */
    static boolean enabled(String gate, Map<String, Boolean> gates, SchedulerFlagCatalog known) {
        if (gates.containsKey(gate)) {
            return gates.get(gate);
        }
        Optional<SchedulerFlagCatalog.Gate> g = known.gate(gate);
        if (g.isEmpty()) {
            // Not listed: GA (locked on) or deprecated. Only the dependency map names such gates.
            return true;
        }
        String all = "ALPHA".equals(g.get().stage())
                ? "AllAlpha"
                : "BETA".equals(g.get().stage()) ? "AllBeta" : null;
        if (all != null && gates.containsKey(all)) {
            return gates.get(all);
        }
        return g.get().enabledByDefault();
    }

    /**
     * Why the operator never passes flag {@code name}, whatever the version: it sets or owns the flag itself, or the
     * flag names files in the container (which has only the operator's volumes).
     */
    static Optional<String> ownFlagRefusal(String name) {
        String owned = OWNED.get(name);
        if (owned != null) {
            return Optional.of("the operator does not pass --" + name + " through: " + owned);
        }
        boolean namesAFile = name.endsWith("-file")
                || name.endsWith("-dir")
                || name.endsWith("kubeconfig")
                || name.endsWith("-manifest")
                || name.equals("tls-sni-cert-key");
        return namesAFile
                ? Optional.of(
                        "--" + name + " names a file in the container, and the scheduler pod mounts none of yours")
                : Optional.empty();
    }

    /** Flag types whose every value pflag parses with Go's strconv or time.ParseDuration, checked like them. */
    static final Set<String> CHECKED_TYPES =
            Set.of("bool", "int", "int32", "int64", "uint", "uint32", "uint64", "float32", "float64", "duration");

    private static final Pattern ANY_LIST = Pattern.compile("^[^,]*(,[^,]*)*$");

    /**
     * String flags whose values the operator can check, each with the values kube-scheduler takes. Any other string
     * flag is refused: kube-scheduler checks those values only while it starts.
     */
    static final Map<String, StringRule> STRING_FLAGS = Map.of(
            "tls-min-version",
            new StringRule(
                    Pattern.compile("^VersionTLS1[0-3]$"),
                    "one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13"),
            "logging-format",
            new StringRule(Pattern.compile("^(text|json)$"), "text or json"),
            "vmodule",
            new StringRule(
                    Pattern.compile("^[^=,]+=\\d+(,[^=,]+=\\d+)*$"),
                    "pattern=N pairs separated by commas, e.g. schedule_one=5"),
            "disabled-metrics",
            // 1.37 checks the names; earlier versions take anything, so the stricter rule holds for every version.
            new StringRule(
                    Pattern.compile("^[a-zA-Z_:][a-zA-Z0-9_:]*(,[a-zA-Z_:][a-zA-Z0-9_:]*)*$"),
                    "fully qualified metric names separated by commas, e.g. scheduler_pending_pods"),
            "requestheader-allowed-names",
            new StringRule(ANY_LIST, "names separated by commas"),
            "requestheader-extra-headers-prefix",
            new StringRule(ANY_LIST, "header prefixes separated by commas"),
            "requestheader-group-headers",
            new StringRule(ANY_LIST, "header names separated by commas"),
            "requestheader-username-headers",
            new StringRule(ANY_LIST, "header names separated by commas"));

    record StringRule(Pattern values, String expected) {}

    private static final String PASSED_THROUGH = "flags of type "
            + String.join(", ", new java.util.TreeSet<>(CHECKED_TYPES)) + " and "
            + String.join(", ", new java.util.TreeSet<>(STRING_FLAGS.keySet())) + " are passed through";

    /** What the flag needs, when {@code value} is not it; pflag parses the typed ones with Go's strconv. */
    static Optional<String> valueError(String name, String type, String value) {
        StringRule rule = STRING_FLAGS.get(name);
        if (rule != null) {
            return rule.values().matcher(value).matches() ? Optional.empty() : Optional.of(rule.expected());
        }
        return switch (type) {
            case "bool" -> GO_TRUE.contains(value) || GO_FALSE.contains(value)
                    ? Optional.empty()
                    : Optional.of("true or false");
            case "int", "int64" -> integer(value, Long.MIN_VALUE, Long.MAX_VALUE, "an integer");
            case "int32" -> integer(value, Integer.MIN_VALUE, Integer.MAX_VALUE, "a 32-bit integer");
            case "uint", "uint64" -> integer(value, 0, Long.MAX_VALUE, "a non-negative integer");
            case "uint32" -> integer(value, 0, 4_294_967_295L, "a non-negative 32-bit integer");
            case "float32", "float64" -> FLOAT.matcher(value).matches()
                    ? Optional.empty()
                    : Optional.of("a decimal number such as 50 or 0.5");
            case "duration" -> GoDuration.parseNanos(value).isPresent()
                    ? Optional.empty()
                    : Optional.of("a duration such as 10s, 1m30s or 500ms");
            default -> Optional.empty();
        };
    }

    private static Optional<String> integer(String value, long min, long max, String expected) {
        if (!INTEGER.matcher(value).matches()) {
            return Optional.of(expected + " in decimal digits");
        }
        try {
            long parsed = Long.parseLong(value.startsWith("+") ? value.substring(1) : value);
            return parsed < min || parsed > max ? Optional.of(expected + " (out of range)") : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.of(expected + " (out of range)");
        }
    }

    private static String suggestion(String name, SchedulerFlagCatalog known) {
        String lower = name.toLowerCase(Locale.ROOT);
        return known.gates().keySet().stream()
                .filter(g -> g.toLowerCase(Locale.ROOT).equals(lower))
                .findFirst()
                .map(g -> " (did you mean " + g + "?)")
                .orElse("");
    }
}
