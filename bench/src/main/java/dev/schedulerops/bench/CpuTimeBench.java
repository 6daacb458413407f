package dev.schedulerops.bench;

import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The names-only verbs in process, timed by the thread's CPU time rather than the wall clock: on a machine shared with
 * other work, JMH's wall-clock scores swing with the neighbours' load (±100 % here), while the CPU time a request
 * costs its own thread barely moves. Complements {@link ExtenderBenchmark}, not a replacement. Only uses API that
 * older revisions have too, so {@code bench/ab} runs it against an older extender jar put first on the class path.
 *
 * <p>Prints one line per verb: {@code <verb> nodes=<n> cpu_us_per_op=<median of the measured rounds>}.
 */
public final class CpuTimeBench {
    private CpuTimeBench() {}

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        byte[] body = NodeJson.namesOnlyRequest(nodes);
        ExtenderVerbs verbs = new ExtenderVerbs(NodeJson.LABEL_KEY, NodeJson.staticCache(nodes), binding -> "");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (Verb verb : new Verb[] {Verb.FILTER, Verb.PRIORITIZE}) {
            long sink = 0;
            double[] perOp = new double[rounds];
            int ops = 2000;
            for (int round = -5; round < rounds; round++) { // five rounds of warm-up
                long start = threads.getCurrentThreadCpuTime();
                for (int i = 0; i < ops; i++) {
                    sink += verbs.answer(verb, body).reply().length();
                }
                if (round >= 0) {
                    perOp[round] = (threads.getCurrentThreadCpuTime() - start) / 1000.0 / ops;
                }
            }
            java.util.Arrays.sort(perOp);
            System.out.printf(
                    "%s nodes=%d cpu_us_per_op=%.1f min=%.1f max=%.1f (%d)%n",
                    verb, nodes, perOp[rounds / 2], perOp[0], perOp[rounds - 1], sink % 7);
        }
    }
}
