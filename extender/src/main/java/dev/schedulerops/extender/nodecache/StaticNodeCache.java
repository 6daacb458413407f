package dev.schedulerops.extender.nodecache;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node cache fed through {@link #put} and {@link #remove}: by the informer in production, by hand in tests and
 * benchmarks. Writes go to a concurrent map; lookups by name bytes read an immutable {@link NodeLabelIndex} that is
 * rebuilt on the first lookup after a write that changed something. Node status updates that leave the label alone
 * change nothing, so in a steady cluster the index is rebuilt only when a label, or the set of nodes, changes.
 *
 * <p>Each index records how many changes it includes. A lookup that finds the index behind waits for the rebuild, one
 * at a time, rather than read an index without the change: no request is answered from an index older than a change
 * it could have seen (the first index after start-up would otherwise read as "every node unknown").
 */
public final class StaticNodeCache implements NodeCache {
    private final Map<String, String> labels = new ConcurrentHashMap<>();
    private final AtomicInteger changes = new AtomicInteger();
    private volatile Indexed indexed = new Indexed(NodeLabelIndex.EMPTY, 0);
    private volatile boolean synced = true;

    /** Adds or replaces a node; {@code labelValue} null means the node lacks the label. */
    public StaticNodeCache put(String nodeName, String labelValue) {
        String stored = labelValue == null ? NodeLabelIndex.NO_LABEL : labelValue;
        if (!Objects.equals(labels.put(nodeName, stored), stored)) {
            changes.incrementAndGet();
        }
        return this;
    }

    public StaticNodeCache remove(String nodeName) {
        if (labels.remove(nodeName) != null) {
            changes.incrementAndGet();
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

    /** How many nodes the cache holds. */
    public int size() {
        return labels.size();
    }

    @Override
    public String labelValue(String nodeName) {
        return index().labelValue(nodeName);
    }

    @Override
    public NodeLabelIndex index() {
        Indexed current = indexed;
        return current.changes == changes.get() ? current.index : rebuildIndex();
    }

    private synchronized NodeLabelIndex rebuildIndex() {
        // Counted before the map is read: a change racing with the copy leaves the new index behind again.
        int seen = changes.get();
        if (indexed.changes != seen) {
            indexed = new Indexed(new NodeLabelIndex(Map.copyOf(labels)), seen);
        }
        return indexed.index;
    }

    /** An index and the number of changes it includes. */
    private record Indexed(NodeLabelIndex index, int changes) {}
}
