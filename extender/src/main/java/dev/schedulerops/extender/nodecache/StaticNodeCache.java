package dev.schedulerops.extender.nodecache;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node labels the extender answers from: fed through {@link #put} and {@link #remove} by hand in tests and
 * benchmarks, and through the versioned {@link #observe}, {@link #forget} and {@link #apply} by the informer and by
 * consistent reads in production. Lookups by name bytes read an immutable {@link NodeLabelIndex} that is rebuilt on the
 * first lookup after a write that changed something. Node status updates that leave the label alone change nothing, so
 * in a steady cluster the index is rebuilt only when a label, or the set of nodes, changes.
 *
 * <p>Each index records how many changes it includes. A lookup that finds the index behind waits for the rebuild, one
 * at a time, rather than read an index without the change: no request is answered from an index older than a change
 * it could have seen (the first index after start-up would otherwise read as "every node unknown").
 *
 * <p>Two writers feed it in production, the watch and consistent reads, and either may be the fresher. Each node's
 * entry keeps the resource version of the state it holds, and a write with an older version is dropped, so the cache
 * never goes back to a state it has already passed, whichever writer delivered the newer one.
 */
public final class StaticNodeCache implements NodeCache {
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicInteger changes = new AtomicInteger();
    private volatile Indexed indexed = new Indexed(NodeLabelIndex.EMPTY, 0);
    private volatile boolean synced = true;
    /** The newest resource version the watch's events have delivered (not bookmarks); guarded by this. */
    private long watchedVersion = ResourceVersion.UNKNOWN;

    /** Adds or replaces a node whatever its version; {@code labelValue} null means the node lacks the label. */
    public StaticNodeCache put(String nodeName, String labelValue) {
        store(nodeName, labelValue, ResourceVersion.UNKNOWN);
        return this;
    }

    public StaticNodeCache remove(String nodeName) {
        if (entries.remove(nodeName) != null) {
            changes.incrementAndGet();
        }
        return this;
    }

    /** A node as the watch delivered it: applied unless the cache already holds a newer state of it. */
    public synchronized void observe(String nodeName, String labelValue, long version) {
        watchedVersion = Math.max(watchedVersion, version);
        Entry held = entries.get(nodeName);
        if (held == null || !ResourceVersion.isOlder(version, held.version)) {
            store(nodeName, labelValue, version);
        }
    }

    /** A node the watch reported deleted at {@code version}: removed unless the cache holds a newer state of it. */
    public synchronized void forget(String nodeName, long version) {
        watchedVersion = Math.max(watchedVersion, version);
        Entry held = entries.get(nodeName);
        if (held != null && !ResourceVersion.isOlder(version, held.version)) {
            entries.remove(nodeName);
            changes.incrementAndGet();
        }
    }

    /**
     * Brings the cache up to a consistent read of the labelled nodes. Skipped whole when the watch has already delivered
     * an event as new as the read (the cache then knows at least as much). Otherwise every labelled node of the read
     * replaces an older state, and a node the cache holds as labelled but the read does not list lost its label (or was
     * deleted) before the read: it is marked unlabelled as of the read's version.
     *
     * @return how many nodes the read changed: each is a change the watch had not delivered yet
     */
    public synchronized int apply(LabelledNodes read) {
        if (ResourceVersion.isKnown(watchedVersion) && !ResourceVersion.isOlder(watchedVersion, read.version())) {
            return 0;
        }
        int corrected = 0;
        for (Map.Entry<String, LabelledNodes.Node> node : read.nodes().entrySet()) {
            Entry held = entries.get(node.getKey());
            LabelledNodes.Node fresh = node.getValue();
            if ((held == null || ResourceVersion.isOlder(held.version, fresh.version()))
                    && store(node.getKey(), fresh.value(), fresh.version())) {
                corrected++;
            }
        }
        Map<String, Entry> unlisted = new HashMap<>();
        entries.forEach((name, held) -> {
            if (held.value != NodeLabelIndex.NO_LABEL
                    && !read.nodes().containsKey(name)
                    && ResourceVersion.isOlder(held.version, read.version())) {
                unlisted.put(name, held);
            }
        });
        for (String name : unlisted.keySet()) {
            if (store(name, null, read.version())) {
                corrected++;
            }
        }
        return corrected;
    }

    /** Stores a node's state; returns whether its label value changed (the index then needs a rebuild). */
    private boolean store(String nodeName, String labelValue, long version) {
        String stored = labelValue == null ? NodeLabelIndex.NO_LABEL : labelValue;
        Entry previous = entries.put(nodeName, new Entry(stored, version));
        if (previous == null || !Objects.equals(previous.value, stored)) {
            changes.incrementAndGet();
            return true;
        }
        return false;
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
        return entries.size();
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
            Map<String, String> labels = new HashMap<>(entries.size() * 2);
            entries.forEach((name, entry) -> labels.put(name, entry.value));
            indexed = new Indexed(new NodeLabelIndex(labels), seen);
        }
        return indexed.index;
    }

    /** A node's label value ({@link NodeLabelIndex#NO_LABEL} when it lacks it) and the version it is from. */
    private record Entry(String value, long version) {}

    /** An index and the number of changes it includes. */
    private record Indexed(NodeLabelIndex index, int changes) {}
}
