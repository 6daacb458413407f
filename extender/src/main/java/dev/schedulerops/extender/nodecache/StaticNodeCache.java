package dev.schedulerops.extender.nodecache;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A node cache fed by hand: used by tests and benchmarks that have no cluster. */
public final class StaticNodeCache implements NodeCache {
    private static final String NO_LABEL = new String("<no label>");

    private final Map<String, String> labels = new ConcurrentHashMap<>();
    private volatile boolean synced = true;

    /** Adds or replaces a node; {@code labelValue} null means the node lacks the label. */
    public StaticNodeCache put(String nodeName, String labelValue) {
        labels.put(nodeName, labelValue == null ? NO_LABEL : labelValue);
        return this;
    }

    public StaticNodeCache remove(String nodeName) {
        labels.remove(nodeName);
        return this;
    }

    public StaticNodeCache synced(boolean synced) {
        this.synced = synced;
        return this;
    }

    @Override
    public boolean synced() {
        return synced;
    }

    @Override
    public String labelValue(String nodeName) {
        String value = labels.get(nodeName);
        if (value == null) {
            return UNKNOWN_NODE;
        }
        return value == NO_LABEL ? null : value;
    }
}
