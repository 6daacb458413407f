package dev.schedulerops.extender.nodecache;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A node cache fed through {@link #put} and {@link #remove}: by the informer in production, by hand in tests and
 * benchmarks. Writes go to a concurrent map; lookups by name bytes read an immutable {@link NodeLabelIndex} that is
 * rebuilt on the first lookup after a write that changed something. Node status updates that leave the label alone
 * change nothing, so in a steady cluster the index is rebuilt only when a label, or the set of nodes, changes.
 */
public final class StaticNodeCache implements NodeCache {
    private static final String NO_LABEL = new String("<no label>");

    private final Map<String, String> labels = new ConcurrentHashMap<>();
    private volatile NodeLabelIndex index = NodeLabelIndex.EMPTY;
    private volatile boolean indexStale;
    private volatile boolean synced = true;

    /** Adds or replaces a node; {@code labelValue} null means the node lacks the label. */
    public StaticNodeCache put(String nodeName, String labelValue) {
        String stored = labelValue == null ? NO_LABEL : labelValue;
        if (!Objects.equals(labels.put(nodeName, stored), stored)) {
            indexStale = true;
        }
        return this;
    }

    public StaticNodeCache remove(String nodeName) {
        if (labels.remove(nodeName) != null) {
            indexStale = true;
        }
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
        return answer(labels.get(nodeName));
    }

    @Override
    public String labelValue(byte[] utf8, int from, int to) {
        NodeLabelIndex current = indexStale ? rebuildIndex() : index;
        return answer(current.get(utf8, from, to));
    }

    @Override
    public String labelValue(byte[] utf8, int from, int to, int nameHash) {
        NodeLabelIndex current = indexStale ? rebuildIndex() : index;
        return answer(current.get(utf8, from, to, nameHash));
    }

    private static String answer(String stored) {
        if (stored == null) {
            return UNKNOWN_NODE;
        }
        return stored == NO_LABEL ? null : stored;
    }

    private synchronized NodeLabelIndex rebuildIndex() {
        if (indexStale) {
            // Cleared before the map is read: a write racing with the copy marks the index stale again.
            indexStale = false;
            index = new NodeLabelIndex(Map.copyOf(labels));
        }
        return index;
    }
}
