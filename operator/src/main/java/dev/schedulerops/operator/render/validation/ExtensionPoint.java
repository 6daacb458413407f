package dev.schedulerops.operator.render.validation;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The extension points of a KubeSchedulerConfiguration profile, named as in its {@code plugins} field. The order is
 * the order in which kube-scheduler's framework ({@code getExtensionPoints}) builds and expands them.
 */
public enum ExtensionPoint {
    PRE_FILTER("preFilter", "PreFilterPlugin"),
    FILTER("filter", "FilterPlugin"),
    POST_FILTER("postFilter", "PostFilterPlugin"),
    RESERVE("reserve", "ReservePlugin"),
    PRE_SCORE("preScore", "PreScorePlugin"),
    SCORE("score", "ScorePlugin"),
    PRE_BIND("preBind", "PreBindPlugin"),
    BIND("bind", "BindPlugin"),
    POST_BIND("postBind", "PostBindPlugin"),
    PERMIT("permit", "PermitPlugin"),
    PRE_ENQUEUE("preEnqueue", "PreEnqueuePlugin"),
    QUEUE_SORT("queueSort", "QueueSortPlugin"),
    /** Not an interface of its own: a plugin listed here is enabled at every point it implements. */
    MULTI_POINT("multiPoint", null);

    private final String fieldName;
    private final String goInterface;

    ExtensionPoint(String fieldName, String goInterface) {
        this.fieldName = fieldName;
        this.goInterface = goInterface;
    }

    /** The camelCase field name in {@code plugins}, e.g. {@code preFilter}. */
    public String fieldName() {
        return fieldName;
    }

    /** The Go interface kube-scheduler checks for, e.g. {@code FilterPlugin}; null for multiPoint. */
    public String goInterface() {
        return goInterface;
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
