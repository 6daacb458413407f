package dev.schedulerops.extender.protocol;

import java.util.Arrays;

/**
 * The nodes a filter drops, as (index into the request, reason) pairs in request order. Reasons are JSON string
 * literals encoded once ({@link #encode(String)}) and shared by every node they apply to.
 */
public final class FailedNodes {
    private int[] nodes;
    private byte[][] reasons;
    private int size;

    public FailedNodes(int expected) {
        nodes = new int[Math.max(4, expected)];
        reasons = new byte[nodes.length][];
    }

    /** A reason as a JSON string literal, ready to be copied into replies. */
    public static byte[] encode(String reason) {
        return new Reply().string(reason).toByteArray();
    }

    public void add(int node, byte[] encodedReason) {
        if (size == nodes.length) {
            nodes = Arrays.copyOf(nodes, size * 2);
            reasons = Arrays.copyOf(reasons, size * 2);
        }
        nodes[size] = node;
        reasons[size++] = encodedReason;
    }

    public int size() {
        return size;
    }

    public int node(int i) {
        return nodes[i];
    }

    public byte[] reason(int i) {
        return reasons[i];
    }
}
