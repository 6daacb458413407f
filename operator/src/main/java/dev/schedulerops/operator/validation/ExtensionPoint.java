package dev.schedulerops.operator.validation;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The extension points of a KubeSchedulerConfiguration profile, named as in its {@code plugins} field. The order is
 * the order in which kube-scheduler's framework ({@code getExtensionPoints}) builds and expands them.
 */
public enum ExtensionPoint {
    PRE_FILTER("preFilter"),
    FILTER("filter"),
    POST_FILTER("postFilter"),
    RESERVE("reserve"),
    PRE_SCORE("preScore"),
    SCORE("score"),
    PRE_BIND("preBind"),
    BIND("bind"),
    POST_BIND("postBind"),
    PERMIT("permit"),
    PRE_ENQUEUE("preEnqueue"),
    QUEUE_SORT("queueSort"),
    /** Not an interface of its own: a plugin listed here is enabled at every point it implements. */
    MULTI_POINT("multiPoint");

    private final String fieldName;

    ExtensionPoint(String fieldName) {
        this.fieldName = fieldName;
    }

    /** The camelCase field name in {@code plugins}, e.g. {@code preFilter}. */
    public String fieldName() {
        return fieldName;
    }

    public static Optional<ExtensionPoint> fromFieldName(String fieldName) {
        return Arrays.stream(values())
                .filter(point -> point.fieldName.equals(fieldName))
                .findFirst();
    }

    /** Every point except multiPoint, in the framework's order. */
    public static List<ExtensionPoint> concrete() {
        return Arrays.stream(values()).filter(point -> point != MULTI_POINT).toList();
    }
}
