package dev.schedulerops.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A lower bound, not a feature: the least work any names-only extender must do, which is to look at every byte of the
 * request once (here: count the quotes). Read next to {@link ExtenderBenchmark}'s names-only rows, it says how much
 * of a request's cost is the machine and how much is ours.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ScanFloorBenchmark {
    @Param({"5000"})
    public int nodes;

    @Param({"names"})
    public String mode;

    private byte[] body;

    @Setup
    public void setUp() {
        body = NodeJson.namesOnlyRequest(nodes);
    }

    @Benchmark
    public int touchEveryByte() {
        int quotes = 0;
        for (byte b : body) {
            if (b == '"') {
                quotes++;
            }
        }
        return quotes;
    }
}
