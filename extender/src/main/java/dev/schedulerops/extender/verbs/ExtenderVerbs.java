package dev.schedulerops.extender.verbs;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.bind.Binder;
import dev.schedulerops.extender.nodecache.NodeCache;
import dev.schedulerops.extender.nodecache.NodeLabelIndex;
import dev.schedulerops.extender.protocol.BadRequestException;
import dev.schedulerops.extender.protocol.BindingArgs;
import dev.schedulerops.extender.protocol.ExtenderArgs;
import dev.schedulerops.extender.protocol.FailedNodes;
import dev.schedulerops.extender.protocol.NodeItem;
import dev.schedulerops.extender.protocol.PreemptionArgs;
import dev.schedulerops.extender.protocol.Replies;
import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.protocol.ReplyBuffers;
import dev.schedulerops.extender.protocol.RequestDecoder;
import dev.schedulerops.extender.scoring.LabelScoring;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The semantics of each extender verb: decodes a request body and answers it. Stateless apart from the node cache;
 * thread-safe.
 */
public final class ExtenderVerbs {
    /**
     * The answer to one verb call, with the node counts the metrics report.
     *
     * @param catchUpFirst the call is not answered: a filter would have rejected every node from a node cache that may
     *     be behind the API server; {@link #catchUp} it, then {@link #answerCaughtUp answer} the call
     */
    public record Outcome(int status, Reply reply, int nodesIn, int nodesOut, boolean catchUpFirst) {
        public Outcome(int status, Reply reply, int nodesIn, int nodesOut) {
            this(status, reply, nodesIn, nodesOut, false);
        }

        static Outcome catchUpFirst(int nodesIn) {
            return new Outcome(0, null, nodesIn, 0, true);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(ExtenderVerbs.class);
    /**
     * The one answer to a bind of a pod that is not this extender's, whatever the reason (no such pod, another UID,
     * another scheduler's): a caller learns nothing about pods it may not see. The reason is in the extender's log.
     */
    static final String BIND_REFUSED = "binding refused: no pod of this scheduler with that namespace, name and UID"
            + " (the extender's log has the reason)";

    static final String POD_UNREADABLE =
            "binding failed: the pod could not be read from the API server (the extender's log has the reason)";

    private final Set<Verb> served;
    private final RequestDecoder decoder;
    private final NodeCache nodeCache;
    private final Binder binder;
    private final byte[] lacksLabelJson;
    private final byte[] notChosenJson;
    private final byte[] unknownNodeJson;
    private final String namesNeedCache;
    /** For the names-only filter's replies; kube-scheduler has one or two calls in flight at a time. */
    private final ReplyBuffers replyBuffers = new ReplyBuffers(8);

    /** Serves every verb. */
    public ExtenderVerbs(String labelKey, NodeCache nodeCache, Binder binder) {
        this(labelKey, EnumSet.allOf(Verb.class), nodeCache, binder);
    }

    /**
     * @param served the verbs the extender answers; the paths of the others are not served at all
     * @param nodeCache the node cache, or {@code null} when the extender runs without one
     */
    public ExtenderVerbs(String labelKey, Set<Verb> served, NodeCache nodeCache, Binder binder) {
        this.served = EnumSet.copyOf(served);
        this.decoder = new RequestDecoder(labelKey);
        this.nodeCache = nodeCache;
        this.binder = binder;
        String lacksLabel = "node(s) lack the label \"" + labelKey + "\" required by the SchedulerProfile extender";
        this.lacksLabelJson = FailedNodes.encode(lacksLabel);
        this.notChosenJson = FailedNodes.encode(
                "node(s) not chosen: the SchedulerProfile extender keeps only the node with the highest \"" + labelKey
                        + "\" value");
        this.unknownNodeJson =
                FailedNodes.encode("node(s) not yet known to the SchedulerProfile extender's node cache");
        this.namesNeedCache = "this extender got node names only (nodeCacheCapable: true) but runs without"
                + " --node-cache, so it cannot see node labels; start it with --node-cache"
                + " (SCHEDULEROPS_NODE_CACHE=true) or set nodeCacheCapable: false";
    }

    /** Whether {@code verb} is one the extender was configured to answer. */
    public boolean serves(Verb verb) {
        return served.contains(verb);
    }

    /**
     * Decodes {@code body} (the whole request body) as {@code verb}'s arguments and answers the call. The reply may be
     * written in an array from a pool: call {@link Reply#release} once it has been sent, or never (the array is then
     * garbage collected), but never read it after releasing it.
     */
    public Outcome answer(Verb verb, byte[] body) throws BadRequestException {
        return answer(verb, body, body.length, true);
    }

    /**
     * The same for a body in {@code body[0, length)}, an array that may be longer (a large body's, which the server
     * keeps for the next one): the reply may point into it until it has been sent.
     */
    public Outcome answer(Verb verb, byte[] body, int length) throws BadRequestException {
        return answer(verb, body, length, true);
    }

    /**
     * Brings the node cache up to a consistent read of the API server that started at or after {@code askedAtNanos}
     * (when the call arrived, a {@link System#nanoTime} time). Completes, never exceptionally, when the cache has it
     * (true) or when the read failed or took too long (false).
     */
    public CompletableFuture<Boolean> catchUp(long askedAtNanos) {
        return nodeCache == null ? CompletableFuture.completedFuture(false) : nodeCache.catchUp(askedAtNanos);
    }

    /** Answers a call whose {@link Outcome#catchUpFirst} was set, once {@link #catchUp} has completed. */
    public Outcome answerCaughtUp(Verb verb, byte[] body) throws BadRequestException {
        return answer(verb, body, body.length, false);
    }

    /** {@link #answerCaughtUp(Verb, byte[])} for a body in {@code body[0, length)}. */
    public Outcome answerCaughtUp(Verb verb, byte[] body, int length) throws BadRequestException {
        return answer(verb, body, length, false);
    }

    private Outcome answer(Verb verb, byte[] body, int length, boolean mayCatchUp) throws BadRequestException {
        return switch (verb) {
            case FILTER -> filterOrCatchUp(decodeArgs(body, length), false, mayCatchUp);
            case FILTER_ONLY_ONE -> filterOrCatchUp(decodeArgs(body, length), true, mayCatchUp);
            case PRIORITIZE -> prioritize(decodeArgs(body, length));
            case BIND -> bind(decoder.decodeBinding(exact(body, length)));
            case PREEMPT -> preempt(decoder.decodePreemption(exact(body, length)));
        };
    }

    private static byte[] exact(byte[] body, int length) {
        return length == body.length ? body : java.util.Arrays.copyOf(body, length);
    }

    /**
     * A names-only filter that rejects every node is the answer a stale node cache gives to the pod kube-scheduler
     * retried because a node just got the label: kube-scheduler heard of it first, and a rejected pod then waits for
     * the next cluster event, up to 5 minutes on a quiet cluster. Such an answer is given only after the cache has
     * caught up with the API server. Any other answer is given at once: it keeps a node, and the pod is placed.
     */
    private Outcome filterOrCatchUp(ExtenderArgs args, boolean onlyOne, boolean mayCatchUp) {
        Outcome outcome = filter(args, onlyOne);
        if (mayCatchUp
                && args.namesOnly()
                && nodeCache != null
                && nodeCache.catchesUp()
                && outcome.status() == 200
                && outcome.nodesIn() > 0
                && outcome.nodesOut() == 0) {
            outcome.reply().release();
            return Outcome.catchUpFirst(outcome.nodesIn());
        }
        return outcome;
    }

    /** Decodes the arguments into this thread's {@link Scratch}: they do not outlive {@link #answer}. */
    private ExtenderArgs decodeArgs(byte[] body, int length) throws BadRequestException {
        Scratch scratch = Scratch.ofThisThread();
        ExtenderArgs args = decoder.decodeArgs(body, length, scratch.nameRanges());
        scratch.keepNameRanges(args.nameRanges());
        return args;
    }

    /** Filter, or FilterOnlyOne when {@code onlyOne}: keep nodes with the label (then only the best of them). */
    Outcome filter(ExtenderArgs args, boolean onlyOne) {
        int n = args.nodeCount();
        if (args.namesOnly() && nodeCache == null) {
            LOG.warn("filter of pod {} answered with Error: {}", args.pod(), namesNeedCache);
            return new Outcome(200, Replies.filterError(namesNeedCache), n, 0);
        }
        if (!onlyOne && args.plainNames()) {
            return NamesOnlyFilter.answer(
                    args, nodeCache, lacksLabelJson, unknownNodeJson, Scratch.ofThisThread(), replyBuffers);
        }
        return filterByValues(args, onlyOne);
    }

    /** The general filter: every label value first, then the answer (FilterOnlyOne, full nodes, escaped names). */
    Outcome filterByValues(ExtenderArgs args, boolean onlyOne) {
        int n = args.nodeCount();
        String[] values = labelValues(args);
        int[] kept = new int[n];
        int keptCount = 0;
        FailedNodes unresolvable = new FailedNodes(n / 4);
        for (int i = 0; i < n; i++) {
            String value = values[i];
            if (value == NodeCache.UNKNOWN_NODE) {
                unresolvable.add(i, unknownNodeJson);
            } else if (value == null) {
                unresolvable.add(i, lacksLabelJson);
            } else {
                kept[keptCount++] = i;
            }
        }
        if (onlyOne && keptCount > 1) {
            String[] names = new String[n];
            for (int c = 0; c < keptCount; c++) {
                names[kept[c]] = args.nodeName(kept[c]);
            }
            int best = LabelScoring.best(names, values, kept, keptCount);
            for (int c = 0; c < keptCount; c++) {
                if (kept[c] != best) {
                    unresolvable.add(kept[c], notChosenJson);
                }
            }
            kept[0] = best;
            keptCount = 1;
        }
        return new Outcome(200, Replies.filterResult(args, kept, keptCount, unresolvable), n, keptCount);
    }

    /** Prioritize: score every node 0..10 by its label value. */
    private Outcome prioritize(ExtenderArgs args) {
        int n = args.nodeCount();
        if (args.namesOnly() && nodeCache == null) {
            // A HostPriorityList has no error field: a non-200 answer is how kube-scheduler learns of the failure.
            return new Outcome(422, Replies.httpError(namesNeedCache), n, 0);
        }
        // A node the cache has not seen reads as NodeCache.UNKNOWN_NODE, which is not numeric and so scores 0.
        String[] values = labelValues(args);
        return new Outcome(200, Replies.priorities(args, LabelScoring.scores(values, n)), n, n);
    }

    /**
     * Preempt: keep the candidates that pass the filter rule and still have victims. Without a node cache the labels
     * of candidates are unknown; every candidate with victims is kept, which stays consistent with the filter because
     * nodes without the label were reported unresolvable and so never become preemption candidates.
     */
    private Outcome preempt(PreemptionArgs args) {
        Map<String, PreemptionArgs.MetaVictims> kept = new LinkedHashMap<>();
        for (Map.Entry<String, PreemptionArgs.MetaVictims> candidate :
                args.candidates().entrySet()) {
            if (candidate.getValue().podUids().isEmpty()) {
                continue;
            }
            if (nodeCache != null) {
                String value = nodeCache.labelValue(candidate.getKey());
                if (value == null || value == NodeCache.UNKNOWN_NODE) {
                    continue;
                }
            }
            kept.put(candidate.getKey(), candidate.getValue());
        }
        return new Outcome(200, Replies.preemption(kept), args.candidates().size(), kept.size());
    }

    /**
     * Bind: create the Binding of a pod that is this extender's to bind. A pod that is not gets one answer whatever
     * the reason; the API server's refusal of the Binding itself travels in {@code Error}, as the protocol has it.
     */
    private Outcome bind(BindingArgs args) {
        BindResult result = binder.bind(args);
        if (result instanceof BindResult.Bound) {
            return new Outcome(200, Replies.binding(""), 1, 1);
        }
        if (result instanceof BindResult.BindingFailed failed) {
            return new Outcome(200, Replies.binding(failed.message()), 1, 0);
        }
        if (result instanceof BindResult.Refused) {
            return new Outcome(403, Replies.httpError(BIND_REFUSED), 1, 0);
        }
        return new Outcome(502, Replies.httpError(POD_UNREADABLE), 1, 0);
    }

    private String[] labelValues(ExtenderArgs args) {
        int n = args.nodeCount();
        String[] values = new String[n];
        if (args.namesOnly()) {
            byte[] body = args.body();
            NodeLabelIndex index = nodeCache.index();
            for (int i = 0; i < n; i++) {
                values[i] = args.nameHasEscapes(i)
                        ? index.labelValue(args.nodeName(i))
                        : index.labelValue(body, args.nameFrom(i), args.nameTo(i));
            }
        } else {
            List<NodeItem> nodes = args.nodes();
            for (int i = 0; i < n; i++) {
                values[i] = nodes.get(i).labelValue();
            }
        }
        return values;
    }
}
