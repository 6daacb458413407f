package dev.schedulerops.extender.http;

import dev.schedulerops.extender.verbs.Verb;
import java.util.HashMap;
import java.util.Map;

/** The paths the extender serves. The extender verbs take {@code POST}; the rest {@code GET} or {@code HEAD}. */
enum Route {
    FILTER(Verb.FILTER),
    FILTER_ONLY_ONE(Verb.FILTER_ONLY_ONE),
    PRIORITIZE(Verb.PRIORITIZE),
    BIND(Verb.BIND),
    PREEMPT(Verb.PREEMPT),
    HEALTHZ("/healthz"),
    READYZ("/readyz"),
    METRICS("/metrics");

    private static final Map<String, Route> BY_PATH = new HashMap<>();

    static {
        for (Route route : values()) {
            BY_PATH.put(route.path, route);
        }
    }

    final String path;
    /** The {@code verb} label of the metrics: the path without its slash. */
    final String verb;

    /** The extender verb served here, or null for the health, readiness and metrics endpoints. */
    final Verb extenderVerb;

    Route(Verb extenderVerb) {
        this(extenderVerb.path(), extenderVerb);
    }

    Route(String path) {
        this(path, null);
    }

    Route(String path, Verb extenderVerb) {
        this.path = path;
        this.verb = path.substring(1);
        this.extenderVerb = extenderVerb;
    }

    static Route forPath(String path) {
        return BY_PATH.get(path);
    }

    String allowedMethods() {
        return extenderVerb != null ? "POST" : "GET, HEAD";
    }

    boolean allows(String method) {
        return extenderVerb != null ? method.equals("POST") : method.equals("GET") || method.equals("HEAD");
    }
}
