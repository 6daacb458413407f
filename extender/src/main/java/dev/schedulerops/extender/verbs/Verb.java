package dev.schedulerops.extender.verbs;

import java.util.Arrays;
import java.util.Optional;

/**
 * The extender verbs kube-scheduler calls, each a {@code POST} to its own path. The constants are spelled as the
 * operator's {@code dev.schedulerops.operator.api.Verb} spells them; the paths are kube-scheduler's.
 */
public enum Verb {
    FILTER("filter"),
    FILTER_ONLY_ONE("filter_onlyone"),
    PRIORITIZE("prioritize"),
    BIND("bind"),
    PREEMPT("preempt");

    private final String path;

    Verb(String name) {
        this.path = "/" + name;
    }

    /** {@code /filter}, {@code /filter_onlyone}, ... */
    public String path() {
        return path;
    }

    /** The verb served at {@code path} ({@code /filter}, ...), if any. */
    public static Optional<Verb> ofPath(String path) {
        return Arrays.stream(values()).filter(v -> v.path.equals(path)).findFirst();
    }
}
