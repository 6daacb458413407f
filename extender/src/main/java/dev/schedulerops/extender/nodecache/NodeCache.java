package dev.schedulerops.extender.nodecache;

import java.util.concurrent.CompletableFuture;

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
     * The labels as they are now, looked up by the UTF-8 bytes of names as they lie in a request body: an immutable
     * index, so a request reads all its names from one state of the cluster, and reads them without a synchronised
     * step per name.
     */
    NodeLabelIndex index();

    /**
     * Whether {@link #catchUp} can make the cache fresher than what it was fed (only a cache that can ask the API
     * server can).
     */
    default boolean catchesUp() {
        return false;
    }

    /**
     * Completes, never exceptionally, once the cache holds at least what a consistent read of the API server that
     * started at or after {@code askedAtNanos} (a {@link System#nanoTime} time) returned: true then, false when the
     * read failed or took longer than the cache's limit (the cache is then as the watch left it).
     */
    default CompletableFuture<Boolean> catchUp(long askedAtNanos) {
        return CompletableFuture.completedFuture(false);
    }

    /** What a filter needs to know of a node: whether the cache has seen it and whether it has the label. */
    enum Presence {
        LABELLED,
        UNLABELLED,
        UNKNOWN
    }

    @Override
    default void close() {}
}
