package dev.schedulerops.extender.protocol;

import static dev.schedulerops.extender.protocol.StrictJson.NOT_PLAIN;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The fast path of full-node requests, the shape kube-scheduler sends an extender with {@code nodeCacheCapable:
 * false}: {@code {"Pod":{...},"Nodes":{"metadata":{},"items":[{node},...]},"NodeNames":null}}. One pass over the
 * body with {@link StrictJson} checks every byte of every node and keeps, per node, where its object lies, its name
 * and the value of the one label; the pod, a few KB at most, is read by Jackson. Jackson's tokenizer had cost three
 * times as much: it decodes every key it skips, looks it up in its symbol table and keeps a context per object.
 *
 * <p>Like {@link NamesOnlyScanner} it recognises, it never judges: anything else (keys with escapes or non-ASCII bytes
 * where keys are matched, duplicate keys the decoder would take the last of, names or the label's value with escapes,
 * a null {@code Nodes}, {@code items} or {@code metadata}, anything {@link StrictJson} does not take) makes
 * {@link #scan} return null, and the general decoder reads the body and gives the answer or the error. So both paths
 * agree on every body by construction; {@code FullNodesScannerTest} checks it against the general decoder on generated
 * bodies.
 *
 * <p>A node array of a megabyte or more is read in two halves at once when there are two processors ({@link Halves}):
 * the second half from a guessed node boundary, kept only once the first half, read in order, proves the guess.
 */
final class FullNodesScanner {
    /** Longer names or label values are left to the general decoder and its limits. */
    private static final int MAX_VALUE_BYTES = 64 * 1024;

    private final StrictJson json;
    private final byte[] labelKey;
    private final Halves halves;
    private PodRef pod;
    private boolean namesSeen;
    private List<NodeItem> nodes;
    private int[] nameRanges;

    private FullNodesScanner(byte[] body, int length, byte[] labelKey, Halves halves) {
        this.json = new StrictJson(body, length);
        this.labelKey = labelKey;
        this.halves = halves;
    }

    /**
     * The arguments of a plain full-node request in {@code body[0, length)}, or null for any other body (the general
     * decoder reads it). The arguments' body is {@code body} itself, which may be longer than the request.
     */
    static ExtenderArgs scan(byte[] body, int length, byte[] labelKeyUtf8) {
        return scan(body, length, labelKeyUtf8, Halves.DEFAULT);
    }

    static ExtenderArgs scan(byte[] body, int length, byte[] labelKeyUtf8, Halves halves) {
        FullNodesScanner scanner = new FullNodesScanner(body, length, labelKeyUtf8, halves);
        if (scanner.request() != length || scanner.pod == null || scanner.nodes == null) {
            return null;
        }
        int count = scanner.nodes.size();
        return new ExtenderArgs(scanner.pod, scanner.nodes, body, scanner.nameRanges, count, null);
    }

    /** Reads the request object; returns the offset past it and its trailing whitespace, or NOT_PLAIN. */
    private int request() {
        int i = json.whitespace(0);
        if (!json.at(i, '{')) {
            return NOT_PLAIN;
        }
        i = json.whitespace(i + 1);
        while (json.at(i, '"')) {
            int keyEnd = json.stringEnd(i);
            if (keyEnd < 0 || !json.plainKey(i, keyEnd)) {
                return NOT_PLAIN;
            }
            int value = json.afterColon(keyEnd);
            i = json.whitespace(field(i, keyEnd, value));
            if (json.at(i, '}')) {
                return json.whitespace(i + 1);
            }
            i = json.at(i, ',') ? json.whitespace(i + 1) : NOT_PLAIN;
        }
        return NOT_PLAIN;
    }

    /** Reads the request field with key {@code body[keyFrom, keyTo)} whose value is at {@code i}. */
    private int field(int keyFrom, int keyTo, int i) {
        if (i < 0) {
            return NOT_PLAIN;
        }
        if (json.isKey("pod", keyFrom, keyTo)) {
            return pod == null ? pod(i) : NOT_PLAIN;
        }
        if (json.isKey("nodes", keyFrom, keyTo)) {
            return nodes == null && json.at(i, '{') ? nodeList(i) : NOT_PLAIN;
        }
        if (json.isKey("nodenames", keyFrom, keyTo)) {
            if (namesSeen || !json.isNull(i)) {
                return NOT_PLAIN;
            }
            namesSeen = true;
            return i + 4;
        }
        return json.valueEnd(i);
    }

    private int pod(int i) {
        // Checked here, not by Jackson: a parser that starts mid-body would skip a byte order mark there.
        if (!json.at(i, '{')) {
            return NOT_PLAIN;
        }
        try (JsonParser p = JsonFields.openAt(json.body, i, json.end - i)) {
            JsonToken token = p.nextToken();
            if (token != JsonToken.START_OBJECT) {
                return NOT_PLAIN;
            }
            pod = JsonFields.readPod(p, token);
            long podEnd = p.currentTokenLocation().getByteOffset();
            // No byte offset: Jackson took the bytes for another encoding than UTF-8.
            return podEnd < 0 ? NOT_PLAIN : i + (int) podEnd + 1;
        } catch (IOException | BadRequestException e) {
            return NOT_PLAIN;
        }
    }

    /** Reads the {@code Nodes} object (a NodeList) that opens at {@code i}. */
    private int nodeList(int i) {
        i = json.whitespace(i + 1);
        if (json.at(i, '}')) {
            return NOT_PLAIN; // no items: the general decoder answers for the odd case
        }
        while (json.at(i, '"')) {
            int keyEnd = json.stringEnd(i);
            if (keyEnd < 0 || !json.plainKey(i, keyEnd)) {
                return NOT_PLAIN;
            }
            int value = json.afterColon(keyEnd);
            if (json.isKey("items", i, keyEnd)) {
                i = nodes == null && json.at(value, '[') ? items(value) : NOT_PLAIN;
            } else {
                i = json.valueEnd(value);
            }
            i = json.whitespace(i);
            if (json.at(i, '}')) {
                return nodes == null ? NOT_PLAIN : i + 1;
            }
            i = json.at(i, ',') ? json.whitespace(i + 1) : NOT_PLAIN;
        }
        return NOT_PLAIN;
    }

    /** Reads the node array that opens at {@code i}. */
    private int items(int i) {
        i = json.whitespace(i + 1);
        // Room for nodes of about 4 KB; a kubelet's Node is 3 to 15 KB.
        NodeRun run = new NodeRun(Math.max(16, (json.end - i) / 4096));
        int end;
        if (json.at(i, ']')) {
            end = i + 1;
        } else {
            SecondHalf second = halves.start(this, i);
            end = run.read(i, second == null ? Integer.MAX_VALUE : second.from);
            if (second != null) {
                end = second.joinOrCancel(run, end);
            }
        }
        if (end < 0) {
            return NOT_PLAIN;
        }
        nodes = run.items;
        nameRanges = run.ranges;
        return end;
    }

    /** The nodes of the array read so far, in order, with their names' ranges. */
    private final class NodeRun {
        final List<NodeItem> items;
        int[] ranges;
        /** Set by {@link #cancel} from another thread: the run stops at its next node. */
        private volatile boolean cancelled;
        /** Whether {@link #read} stopped at the node that opens at its {@code stopAt}. */
        boolean stopped;

        NodeRun(int room) {
            items = new ArrayList<>(room);
            ranges = new int[2 * room];
        }

        /**
         * Reads the nodes from the one that opens at {@code i} to the end of the array: returns the offset past its
         * {@code ]}, or NOT_PLAIN. Stops early, returning {@code stopAt} and setting {@link #stopped}, when a node
         * opens exactly at {@code stopAt}.
         */
        int read(int i, int stopAt) {
            NodeReader node = new NodeReader();
            while (json.at(i, '{')) {
                if (i >= stopAt) {
                    if (i == stopAt) {
                        stopped = true;
                        return i;
                    }
                    stopAt = Integer.MAX_VALUE; // no node opens there: the guess was wrong
                }
                int nodeEnd = cancelled ? NOT_PLAIN : node.read(i);
                if (nodeEnd < 0) {
                    return NOT_PLAIN;
                }
                add(node, i, nodeEnd);
                i = json.whitespace(nodeEnd);
                if (json.at(i, ']')) {
                    return i + 1;
                }
                i = json.at(i, ',') ? json.whitespace(i + 1) : NOT_PLAIN;
            }
            return NOT_PLAIN;
        }

        void cancel() {
            cancelled = true;
        }

        private void add(NodeReader node, int from, int to) {
            int index = items.size();
            if (2 * index + 2 > ranges.length) {
                ranges = Arrays.copyOf(ranges, 2 * ranges.length);
            }
            ranges[2 * index] = node.nameFrom;
            ranges[2 * index + 1] = node.nameTo;
            items.add(new NodeItem(node.name(), node.labelValue(), from, to));
        }

        /** Appends {@code later}'s nodes, which follow this run's. */
        void append(NodeRun later) {
            int count = items.size();
            ranges = Arrays.copyOf(ranges, 2 * (count + later.items.size()));
            System.arraycopy(later.ranges, 0, ranges, 2 * count, 2 * later.items.size());
            items.addAll(later.items);
        }
    }

    /**
     * The second half of a large node array, read on another thread while this one reads the first. Where it starts
     * is a guess: the first node after the middle that opens as kube-scheduler writes nodes, {@code
     * },{"metadata":{"name":"}. The bytes alone cannot tell a node there from one nested in a node, or from a string
     * that holds them, so the guess counts only once the first half, read in order from the array's start, arrives
     * at a node that opens exactly there; otherwise the second half is dropped and the first half reads on. So the
     * outcome is the one a single pass gives, for every body.
     */
    private static final class SecondHalf implements Runnable {
        final int from;
        private final NodeRun run;
        private final AtomicBoolean claimed = new AtomicBoolean();
        private final CompletableFuture<Integer> end = new CompletableFuture<>();

        private SecondHalf(int from, NodeRun run) {
            this.from = from;
            this.run = run;
        }

        /** Reads the second half here, unless another thread has claimed it. */
        @Override
        public void run() {
            if (!claimed.compareAndSet(false, true)) {
                return;
            }
            try {
                end.complete(run.read(from, Integer.MAX_VALUE));
            } catch (Throwable failure) {
                end.completeExceptionally(failure);
            }
        }

        /**
         * The end of the array from {@code first}, which read up to this half or past it and returned {@code
         * firstEnd}: with this half's nodes appended when the first half stopped where this one starts (reading this
         * half here if no other thread has begun it), else the first half's own.
         */
        int joinOrCancel(NodeRun first, int firstEnd) {
            if (!first.stopped) {
                claimed.set(true);
                run.cancel();
                return firstEnd;
            }
            run();
            int secondEnd;
            try {
                secondEnd = end.join();
            } catch (CompletionException failure) {
                if (failure.getCause() instanceof RuntimeException e) {
                    throw e;
                }
                if (failure.getCause() instanceof Error e) {
                    throw e;
                }
                throw failure;
            }
            if (secondEnd >= 0) {
                first.append(run);
            }
            return secondEnd;
        }
    }

    /** Reads one node object: where its name and the label's value lie. Reused from node to node. */
    private final class NodeReader {
        int nameFrom;
        int nameTo;
        private int valueFrom;
        private int valueTo;
        /** The label's value is JSON null, which the decoder reads as the empty value. */
        private boolean nullValue;

        /** Reads the node object that opens at {@code i}; returns the offset past it, or NOT_PLAIN. */
        int read(int i) {
            nameFrom = -1;
            valueFrom = -1;
            nullValue = false;
            boolean metadataSeen = false;
            i = json.whitespace(i + 1);
            if (json.at(i, '}')) {
                return NOT_PLAIN; // no name
            }
            while (json.at(i, '"')) {
                int keyEnd = json.stringEnd(i);
                if (keyEnd < 0 || !json.plainKey(i, keyEnd)) {
                    return NOT_PLAIN;
                }
                int value = json.afterColon(keyEnd);
                if (json.isKey("metadata", i, keyEnd)) {
                    if (metadataSeen || !json.at(value, '{')) {
                        return NOT_PLAIN;
                    }
                    metadataSeen = true;
                    i = metadata(value);
                } else {
                    i = json.valueEnd(value);
                }
                i = json.whitespace(i);
                if (json.at(i, '}')) {
                    return nameFrom < 0 ? NOT_PLAIN : i + 1;
                }
                i = json.at(i, ',') ? json.whitespace(i + 1) : NOT_PLAIN;
            }
            return NOT_PLAIN;
        }

        private int metadata(int i) {
            boolean labelsSeen = false;
            i = json.whitespace(i + 1);
            if (json.at(i, '}')) {
                return i + 1;
            }
            while (json.at(i, '"')) {
                int keyEnd = json.stringEnd(i);
                if (keyEnd < 0 || !json.plainKey(i, keyEnd)) {
                    return NOT_PLAIN;
                }
                int value = json.afterColon(keyEnd);
                if (json.isKey("name", i, keyEnd)) {
                    i = nameFrom < 0 ? name(value) : NOT_PLAIN;
                } else if (json.isKey("labels", i, keyEnd)) {
                    if (labelsSeen) {
                        return NOT_PLAIN;
                    }
                    labelsSeen = true;
                    i = json.isNull(value) ? value + 4 : labels(value);
                } else {
                    i = json.valueEnd(value);
                }
                i = json.whitespace(i);
                if (json.at(i, '}')) {
                    return i + 1;
                }
                i = json.at(i, ',') ? json.whitespace(i + 1) : NOT_PLAIN;
            }
            return NOT_PLAIN;
        }

        private int name(int i) {
            int to = json.stringEnd(i);
            if (to < 0 || json.escaped || to - i == 2 || to - i > MAX_VALUE_BYTES) {
                return NOT_PLAIN; // an empty name is refused by the general decoder
            }
            nameFrom = i;
            nameTo = to;
            return to;
        }

        /** Reads the labels object that opens at {@code i}, keeping the value of the label key, the last if twice. */
        private int labels(int i) {
            if (!json.at(i, '{')) {
                return NOT_PLAIN;
            }
            i = json.whitespace(i + 1);
            if (json.at(i, '}')) {
                return i + 1;
            }
            while (json.at(i, '"')) {
                int keyEnd = json.stringEnd(i);
                if (keyEnd < 0 || json.escaped || keyEnd - i - 2 > StrictJson.MAX_KEY_BYTES) {
                    return NOT_PLAIN;
                }
                boolean wanted = isLabelKey(i + 1, keyEnd - 1);
                int value = json.afterColon(keyEnd);
                if (json.isNull(value)) {
                    if (wanted) {
                        valueFrom = -1;
                        nullValue = true;
                    }
                    i = value + 4;
                } else {
                    int valueEnd = json.stringEnd(value);
                    if (valueEnd < 0) {
                        return NOT_PLAIN;
                    }
                    if (wanted) {
                        if (json.escaped || valueEnd - value > MAX_VALUE_BYTES) {
                            return NOT_PLAIN;
                        }
                        valueFrom = value + 1;
                        valueTo = valueEnd - 1;
                        nullValue = false;
                    }
                    i = valueEnd;
                }
                i = json.whitespace(i);
                if (json.at(i, '}')) {
                    return i + 1;
                }
                i = json.at(i, ',') ? json.whitespace(i + 1) : NOT_PLAIN;
            }
            return NOT_PLAIN;
        }

        private boolean isLabelKey(int from, int to) {
            return to - from == labelKey.length && Arrays.equals(json.body, from, to, labelKey, 0, labelKey.length);
        }

        String name() {
            return new String(json.body, nameFrom + 1, nameTo - nameFrom - 2, StandardCharsets.UTF_8);
        }

        /** The label's value, "" for JSON null, null when the node lacks the label. */
        String labelValue() {
            if (nullValue) {
                return "";
            }
            return valueFrom < 0 ? null : new String(json.body, valueFrom, valueTo - valueFrom, StandardCharsets.UTF_8);
        }
    }

    /**
     * When a node array is read in two halves at once, and where the second half runs. A full-node request of 1000
     * nodes is 12 MB, and kube-scheduler waits for the answer before it goes on with the pod: on two processors the
     * request finishes sooner, for about the same CPU over HTTP (bench/README, "Full-node requests").
     *
     * @param fromBytes arrays shorter than this are read in one pass
     * @param executor runs second halves; null: every array is read in one pass
     */
    record Halves(int fromBytes, Executor executor) {
        /** One thread for second halves, with two processors or more: a half it has not begun, its caller reads. */
        static final Halves DEFAULT = new Halves(
                1024 * 1024,
                Runtime.getRuntime().availableProcessors() < 2
                        ? null
                        : Executors.newSingleThreadExecutor(runnable -> {
                            Thread thread = new Thread(runnable, "extender-second-half");
                            thread.setDaemon(true);
                            return thread;
                        }));

        /** How far past the middle a node opening is looked for: a kubelet's Node is 3 to 15 KB. */
        static final int SEARCH_BYTES = 64 * 1024;

        private static final byte[] NODE_OPENING = "},{\"metadata\":{\"name\":\"".getBytes(StandardCharsets.US_ASCII);

        /** Starts reading the second half of the array whose first node opens at {@code first}; null when not. */
        SecondHalf start(FullNodesScanner scanner, int first) {
            if (executor == null || scanner.json.end - first < fromBytes) {
                return null;
            }
            int middle = first + (scanner.json.end - first) / 2;
            int from = likelyNodeOpening(scanner.json.body, middle, Math.min(scanner.json.end, middle + SEARCH_BYTES));
            if (from < 0) {
                return null;
            }
            FullNodesScanner other = new FullNodesScanner(scanner.json.body, scanner.json.end, scanner.labelKey, this);
            SecondHalf half = new SecondHalf(from, other.new NodeRun(Math.max(16, (scanner.json.end - from) / 4096)));
            executor.execute(half);
            return half;
        }

        /**
         * The offset of the first {@code {"metadata":{"name":"} that follows {@code },} at or after {@code from} and
         * ends before {@code end}, or -1.
         */
        static int likelyNodeOpening(byte[] body, int from, int end) {
            for (int k = from; k + NODE_OPENING.length <= end; k++) {
                if (body[k] == '}'
                        && Arrays.equals(body, k, k + NODE_OPENING.length, NODE_OPENING, 0, NODE_OPENING.length)) {
                    return k + 2;
                }
            }
            return -1;
        }
    }
}
