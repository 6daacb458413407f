package dev.schedulerops.extender.protocol;

import java.util.BitSet;
import java.util.List;

/**
 * The decoded {@code ExtenderArgs} of a filter or prioritize call: full nodes ({@code nodeCacheCapable: false}) or
 * node names only.
 *
 * @param nodes the nodes in full-node mode, null in names-only mode
 * @param body the request body; {@link NodeItem} offsets and {@code nameRanges} point into it
 * @param nameRanges for node {@code i < nodeCount}, {@code [2i, 2i+1)} is the byte range of its name's JSON string
 *     literal in {@code body} (quotes included), in both modes, so replies copy names without re-encoding them; the
 *     array may be longer than that (the scanner does not trim it)
 * @param escapedNames in names-only mode, the names written with escape sequences (null when none are)
 */
public record ExtenderArgs(
        PodRef pod, List<NodeItem> nodes, byte[] body, int[] nameRanges, int nodeCount, BitSet escapedNames) {
    public ExtenderArgs {
        if (nodeCount < 0 || nodeCount > nameRanges.length / 2) {
            throw new IllegalArgumentException(nodeCount + " names but ranges for " + nameRanges.length / 2);
        }
    }

    ExtenderArgs(PodRef pod, List<NodeItem> nodes, byte[] body, int[] nameRanges, BitSet escapedNames) {
        this(pod, nodes, body, nameRanges, nameRanges.length / 2, escapedNames);
    }

    public boolean namesOnly() {
        return nodes == null;
    }

    /** Whether every name is looked up by its bytes as they lie in the body: names only, none with escapes. */
    public boolean plainNames() {
        return nodes == null && escapedNames == null;
    }

    public String nodeName(int index) {
        if (!namesOnly()) {
            return nodes.get(index).name();
        }
        return NodeNameLiterals.decode(body, nameRanges[2 * index], nameRanges[2 * index + 1], nameHasEscapes(index));
    }

    /**
     * Whether name {@code index}'s literal uses escape sequences, so its bytes between the quotes are not the name's
     * UTF-8 bytes. Always false in full-node mode, where names are not looked up by their bytes.
     */
    public boolean nameHasEscapes(int index) {
        return escapedNames != null && escapedNames.get(index);
    }

    /** Where name {@code index}'s characters start in {@link #body()} (after the opening quote). */
    public int nameFrom(int index) {
        return nameRanges[2 * index] + 1;
    }

    /** Where name {@code index}'s characters end in {@link #body()} (at the closing quote). */
    public int nameTo(int index) {
        return nameRanges[2 * index + 1] - 1;
    }

    /** The length of name {@code index}'s JSON string literal in {@link #body()}, quotes included. */
    public int nameBytes(int index) {
        return nameRanges[2 * index + 1] - nameRanges[2 * index];
    }

    /**
     * Appends node {@code index}'s name to {@code reply} as a JSON string, copied from the request as written, except
     * a name with a lone surrogate escape ({@code "\ud800"}): a value may carry one, but the name may become a key
     * of the reply's failed nodes, where a strict reader refuses it, so it is written again with U+FFFD in its place
     * (what Go's decoder in kube-scheduler reads it as).
     */
    public void appendName(Reply reply, int index) {
        int from = nameRanges[2 * index];
        int to = nameRanges[2 * index + 1];
        if (mayHoldEscapes(index, from, to)) {
            String name = nodeName(index);
            if (hasLoneSurrogate(name)) {
                reply.string(name);
                return;
            }
        }
        reply.raw(body, from, to);
    }

    private boolean mayHoldEscapes(int index, int from, int to) {
        if (namesOnly()) {
            return nameHasEscapes(index);
        }
        for (int i = from; i < to; i++) {
            if (body[i] == '\\') {
                return true;
            }
        }
        return false;
    }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }
}
