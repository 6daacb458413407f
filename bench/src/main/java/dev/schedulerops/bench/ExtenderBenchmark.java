package dev.schedulerops.bench;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.protocol.BadRequestException;
import dev.schedulerops.extender.protocol.Reply;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.Verb;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decode + filter and decode + prioritize, in process (no HTTP), on one thread: what one request costs the extender.
 * The reply is fully built (for full-node mode, as the list of buffers the server writes), then released as the
 * server releases it once written, which gives a pooled array back. MB/s of request body per core = bytes per op
 * (printed in the report) x ops/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ExtenderBenchmark {
    @Param({"100", "1000", "5000"})
    public int nodes;

    @Param({"full", "names"})
    public String mode;

    private byte[] body;
    private ExtenderVerbs verbs;

    @Setup
    public void setUp() {
        body = mode.equals("full") ? NodeJson.fullNodesRequest(nodes) : NodeJson.namesOnlyRequest(nodes);
        verbs = new ExtenderVerbs(NodeJson.LABEL_KEY, NodeJson.staticCache(nodes), args -> BindResult.bound());
    }

    @Benchmark
    public long decodeAndFilter() throws BadRequestException {
        return consume(verbs.answer(Verb.FILTER, body).reply());
    }

    @Benchmark
    public long decodeAndPrioritize() throws BadRequestException {
        return consume(verbs.answer(Verb.PRIORITIZE, body).reply());
    }

    private static long consume(Reply reply) {
        long result = reply.segments().size() + reply.length();
        reply.release();
        return result;
    }
}
