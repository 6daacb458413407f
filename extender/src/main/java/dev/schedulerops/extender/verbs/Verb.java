package dev.schedulerops.extender.verbs;

import java.util.Arrays;
import java.util.Optional;

/**
 * The extender verbs kube-scheduler calls, each a {@code POST} to its own path. The constants are spelled as the
 * operator's {@code dev.schedulerops.operator.api.Verb} spells them; {@link #crdName()} as the CRD's {@code verbs}
 * list does; the paths are kube-scheduler's.
 */
public enum Verb {
    FILTER("Filter", "filter"),
    FILTER_ONLY_ONE("FilterOnlyOne", "filter_onlyone"),
    PRIORITIZE("Prioritize", "prioritize"),
    BIND("Bind", "bind"),
    PREEMPT("Preempt", "preempt");

    private final String crdName;
    private final String path;

    Verb(String crdName, String name) {
        this.crdName = crdName;
        this.path = "/" + name;
    }

    /** {@code Filter}, {@code FilterOnlyOne}, ...: as a SchedulerProfile's {@code spec.verbs} spells it. */
    public String crdName() {
        return crdName;
    }

    /** {@code /filter}, {@code /filter_onlyone}, ... */
    public String path() {
        return path;
    }

    /** The verb served at {@code path} ({@code /filter}, ...), if any. */
    public static Optional<Verb> ofPath(String path) {
        return Arrays.stream(values()).filter(v -> v.path.equals(path)).findFirst();
    }

    /** The verb a SchedulerProfile spells {@code name} ({@code Filter}, ...; exactly, case included), if any. */
    public static Optional<Verb> ofCrdName(String name) {
        return Arrays.stream(values()).filter(v -> v.crdName.equals(name)).findFirst();
    }
}
