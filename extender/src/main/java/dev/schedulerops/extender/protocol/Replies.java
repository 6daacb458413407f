package dev.schedulerops.extender.protocol;

import java.util.List;
import java.util.Map;

/**
 * Writers of the extender v1 replies. Top-level keys are PascalCase Go field names in Go's field order, and absent
 * values are {@code null}, exactly as kube-scheduler's own types marshal.
 */
public final class Replies {
    private static final byte[] HOST = ascii("{\"Host\":");
    private static final byte[] SCORE = ascii(",\"Score\":");

    private Replies() {}

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * An {@code ExtenderFilterResult} that keeps the nodes at {@code kept} (ascending indices into the request). In
     * full-node mode the kept node objects are copied byte for byte from the request.
     */
    public static Reply filterResult(ExtenderArgs args, int[] kept, int keptCount, FailedNodes unresolvable) {
        Reply reply;
        if (args.namesOnly()) {
            reply = new Reply(namesOnlyFilterBytes(args, kept, keptCount, unresolvable));
            reply.ascii("{\"Nodes\":null,\"NodeNames\":[");
            for (int i = 0; i < keptCount; i++) {
                if (i > 0) {
                    reply.ch(',');
                }
                args.appendName(reply, kept[i]);
            }
            reply.ascii("]");
        } else {
            reply = new Reply(4096 + unresolvable.size() * 120);
            reply.ascii("{\"Nodes\":{\"metadata\":{},\"items\":[");
            appendNodeRuns(reply, args, kept, keptCount);
            reply.ascii("]},\"NodeNames\":null");
        }
        reply.ascii(",\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{");
        for (int i = 0; i < unresolvable.size(); i++) {
            if (i > 0) {
                reply.ch(',');
            }
            args.appendName(reply, unresolvable.node(i));
            reply.ch(':').bytes(unresolvable.reason(i));
        }
        return reply.ascii("},\"Error\":\"\"}");
    }

    /** The exact size of a names-only filter reply, so that its buffer is allocated once and never copied. */
    private static int namesOnlyFilterBytes(ExtenderArgs args, int[] kept, int keptCount, FailedNodes unresolvable) {
        int bytes = 96;
        for (int i = 0; i < keptCount; i++) {
            bytes += args.nameBytes(kept[i]) + 1;
        }
        for (int i = 0; i < unresolvable.size(); i++) {
            bytes += args.nameBytes(unresolvable.node(i)) + unresolvable.reason(i).length + 2;
        }
        return bytes;
    }

    /** Copies runs of consecutive kept items as single byte ranges (the separators between them come along). */
    private static void appendNodeRuns(Reply reply, ExtenderArgs args, int[] kept, int keptCount) {
        List<NodeItem> nodes = args.nodes();
        byte[] body = args.body();
        int i = 0;
        while (i < keptCount) {
            int first = kept[i];
            int last = first;
            while (i + 1 < keptCount && kept[i + 1] == last + 1) {
                last = kept[++i];
            }
            if (first != kept[0]) {
                reply.ch(',');
            }
            reply.raw(body, nodes.get(first).start(), nodes.get(last).end());
            i++;
        }
    }

    /** An {@code ExtenderFilterResult} that only reports an error (scheduling fails, or is skipped if ignorable). */
    public static Reply filterError(String error) {
        return new Reply()
                .ascii("{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":null,")
                .ascii("\"FailedAndUnresolvableNodes\":null,\"Error\":")
                .string(error)
                .ch('}');
    }

    /** A {@code HostPriorityList}: {@code [{"Host":"n1","Score":7},...]} in request order. */
    public static Reply priorities(ExtenderArgs args, int[] scores) {
        int n = args.nodeCount();
        Reply reply = new Reply(16 + n * 48);
        reply.ch('[');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                reply.ch(',');
            }
            reply.bytes(HOST);
            args.appendName(reply, i);
            reply.bytes(SCORE);
            reply.number(scores[i]).ch('}');
        }
        return reply.ch(']');
    }

    /** An {@code ExtenderPreemptionResult}: always {@code NodeNameToMetaVictims}. */
    public static Reply preemption(Map<String, PreemptionArgs.MetaVictims> candidates) {
        Reply reply = new Reply(64 + candidates.size() * 128);
        reply.ascii("{\"NodeNameToMetaVictims\":{");
        boolean first = true;
        for (Map.Entry<String, PreemptionArgs.MetaVictims> entry : candidates.entrySet()) {
            if (!first) {
                reply.ch(',');
            }
            first = false;
            reply.string(entry.getKey()).ascii(":{\"Pods\":[");
            List<String> uids = entry.getValue().podUids();
            for (int i = 0; i < uids.size(); i++) {
                if (i > 0) {
                    reply.ch(',');
                }
                reply.ascii("{\"UID\":").string(uids.get(i)).ch('}');
            }
            reply.ascii("],\"NumPDBViolations\":")
                    .number(entry.getValue().numPdbViolations())
                    .ch('}');
        }
        return reply.ascii("}}");
    }

    /** An {@code ExtenderBindingResult}; an empty error means success. */
    public static Reply binding(String error) {
        return new Reply().ascii("{\"Error\":").string(error).ch('}');
    }

    /** The body of a 4xx answer: {@code {"error":"..."}}. */
    public static Reply httpError(String message) {
        return new Reply().ascii("{\"error\":").string(message).ch('}');
    }
}
