package dev.schedulerops.bench;

import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The names-only verbs in process, timed by the thread's CPU time rather than the wall clock: on a machine shared with
 * other work, JMH's wall-clock scores swing with the neighbours' load (±100 % here), while the CPU time a request
 * costs its own thread barely moves. Complements {@link ExtenderBenchmark}, not a replacement. Only uses API that
 * older revisions have too, so {@code bench/ab} runs it against an older extender jar put first on the class path;
 * like the server, it releases each reply once done with it when the revision has {@code Reply.release()}.
 *
 * <p>Usage: {@code CpuTimeBench [NODES [ROUNDS [names|full]]]} (5000, 10, names): full-node requests are
 * {@link NodeJson#fullNodesRequest}, timed in rounds of 20 operations instead of 2000. Prints one line per verb:
 * {@code <verb> nodes=<n> cpu_us_per_op=<median of the measured rounds>}.
 */
public final class CpuTimeBench {
    private CpuTimeBench() {}

    /** {@code Reply.release()}, which the server calls once a reply is written, or null in revisions without it. */
    private static MethodHandle releaseOfReply() throws IllegalAccessException {
        try {
            return MethodHandles.publicLookup().findVirtual(Reply.class, "release", MethodType.methodType(void.class));
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    public static void main(String[] args) throws Throwable {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        boolean full = args.length > 2 && args[2].equals("full");
        byte[] body = full ? NodeJson.fullNodesRequest(nodes) : NodeJson.namesOnlyRequest(nodes);
        // No binder: filter and prioritize never bind, and the binder's types differ between revisions.
        ExtenderVerbs verbs = new ExtenderVerbs(NodeJson.LABEL_KEY, NodeJson.staticCache(nodes), null);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        MethodHandle release = releaseOfReply();
        for (Verb verb : new Verb[] {Verb.FILTER, Verb.PRIORITIZE}) {
            long sink = 0;
            double[] perOp = new double[rounds];
            int ops = full ? 20 : 2000;
            for (int round = -5; round < rounds; round++) { // five rounds of warm-up
                long start = threads.getCurrentThreadCpuTime();
                for (int i = 0; i < ops; i++) {
                    Reply reply = verbs.answer(verb, body).reply();
                    sink += reply.length();
                    if (release != null) {
                        release.invokeExact(reply);
                    }
                }
                if (round >= 0) {
                    perOp[round] = (threads.getCurrentThreadCpuTime() - start) / 1000.0 / ops;
                }
            }
            java.util.Arrays.sort(perOp);
            System.out.printf(
                    "%s nodes=%d cpu_us_per_op=%.1f min=%.1f max=%.1f mode=%s (%d)%n",
                    verb, nodes, perOp[rounds / 2], perOp[0], perOp[rounds - 1], full ? "full" : "names", sink % 7);
        }
    }
}
