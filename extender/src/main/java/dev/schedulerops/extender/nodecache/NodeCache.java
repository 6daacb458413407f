package dev.schedulerops.extender.nodecache;

import dev.schedulerops.extender.protocol.NameHash;

/**
 * What the extender knows about nodes when kube-scheduler sends names only ({@code nodeCacheCapable: true}): for
 * each node, the value of the configured label. Implementations are safe for concurrent use.
 */
public interface NodeCache extends AutoCloseable {
    /** Stands for a node the cache has never seen. */
    String UNKNOWN_NODE = new String("<unknown node>");

    /** Whether the cache has caught up with the cluster; the extender is ready only then. */
    boolean synced();

    /**
     * The label value of {@code nodeName}: {@code null} when the node lacks the label, {@link #UNKNOWN_NODE} (compare
     * by identity) when the node is not in the cache.
     */
    String labelValue(String nodeName);

    /**
     * The same answer as {@link #labelValue(String)} for the node whose name is the UTF-8 bytes {@code utf8[from,
     * to)}, without decoding them, so that names are looked up straight from a request body.
     */
    String labelValue(byte[] utf8, int from, int to);

    /** The same, for a caller that already has the name's {@link NameHash} (the request scanner computes it). */
    default String labelValue(byte[] utf8, int from, int to, int nameHash) {
        return labelValue(utf8, from, to);
    }

    @Override
    default void close() {}
}
