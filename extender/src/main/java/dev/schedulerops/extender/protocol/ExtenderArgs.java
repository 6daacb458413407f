package dev.schedulerops.extender.protocol;

import java.util.List;

/**
 * The decoded {@code ExtenderArgs} of a filter or prioritize call. Exactly one of {@link #nodes()} (full-node mode,
 * {@code nodeCacheCapable: false}) and {@link #nodeNames()} (names-only mode) is non-null.
 *
 * @param body the request body; {@link NodeItem} offsets and {@code nameRanges} point into it
 * @param nameRanges in full-node mode, for node {@code i}, {@code [2i, 2i+1)} is the byte range of its name's JSON
 *     string literal in {@code body} (quotes included), so replies copy names without re-encoding them; null in
 *     names-only mode, where names are short and cheaper to encode than to locate
 */
public record ExtenderArgs(PodRef pod, List<NodeItem> nodes, List<String> nodeNames, byte[] body, int[] nameRanges) {
    public boolean namesOnly() {
        return nodeNames != null;
    }

    public int nodeCount() {
        return namesOnly() ? nodeNames.size() : nodes.size();
    }

    public String nodeName(int index) {
        return namesOnly() ? nodeNames.get(index) : nodes.get(index).name();
    }

    /** Appends node {@code index}'s name to {@code reply} as a JSON string, copied from the request. */
    public void appendName(Reply reply, int index) {
        if (nameRanges == null) {
            reply.string(nodeNames.get(index));
        } else {
            reply.raw(body, nameRanges[2 * index], nameRanges[2 * index + 1]);
        }
    }
}
