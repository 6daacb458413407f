package dev.schedulerops.extender.http;

import java.util.HashMap;
import java.util.Map;

/** The paths the extender serves. The extender verbs take {@code POST}; the rest {@code GET} or {@code HEAD}. */
enum Route {
    FILTER("/filter", true),
    FILTER_ONLYONE("/filter_onlyone", true),
    PRIORITIZE("/prioritize", true),
    BIND("/bind", true),
    PREEMPT("/preempt", true),
    HEALTHZ("/healthz", false),
    READYZ("/readyz", false),
    METRICS("/metrics", false);

    private static final Map<String, Route> BY_PATH = new HashMap<>();

    static {
        for (Route route : values()) {
            BY_PATH.put(route.path, route);
        }
    }

    final String path;
    /** The {@code verb} label of the metrics: the path without its slash. */
    final String verb;

    final boolean extenderVerb;

    Route(String path, boolean extenderVerb) {
        this.path = path;
        this.verb = path.substring(1);
        this.extenderVerb = extenderVerb;
    }

    static Route forPath(String path) {
        return BY_PATH.get(path);
    }

    String allowedMethods() {
        return extenderVerb ? "POST" : "GET, HEAD";
    }

    boolean allows(String method) {
        return extenderVerb ? method.equals("POST") : method.equals("GET") || method.equals("HEAD");
    }
}
