package dev.schedulerops.extender.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one fuzzer saw: inputs run, outcomes by kind, the first failures, and the heap. The heap is sampled after every
 * input (peak) and after a full GC every {@value #GC_EVERY} inputs (live data). Live data must stay within {@link
 * #LIVE_HEAP_GROWTH_BOUND} of where it started (Jetty's buffer pool and the JIT's data fill some of it once), and must
 * not keep growing: the second half of the run may add at most {@link #SECOND_HALF_GROWTH_BOUND}. With {@code
 * -Dfuzz.report=FILE} (bench/fuzz sets it) a Markdown section is appended to FILE.
 */
public final class FuzzReport {
    static final int GC_EVERY = 1000;
    public static final long MIB = 1024 * 1024;
    static final long LIVE_HEAP_GROWTH_BOUND = 128 * MIB;
    static final long SECOND_HALF_GROWTH_BOUND = 32 * MIB;

    private final String name;
    private final Map<String, Long> outcomes = new TreeMap<>();
    private final List<String> failures = new ArrayList<>();
    private final long started = System.nanoTime();
    private long inputs;
    private long exceptions;
    private final long liveAtStart;
    private long maxLive;
    private final List<Long> liveSamples = new ArrayList<>();
    private long peakUsed;

    public FuzzReport(String name) {
        this.name = name;
        this.liveAtStart = liveHeap();
        this.maxLive = liveAtStart;
    }

    public synchronized void count(String outcome) {
        inputs++;
        outcomes.merge(outcome, 1L, Long::sum);
        Runtime rt = Runtime.getRuntime();
        peakUsed = Math.max(peakUsed, rt.totalMemory() - rt.freeMemory());
        if (inputs % GC_EVERY == 0) {
            long live = liveHeap();
            liveSamples.add(live);
            maxLive = Math.max(maxLive, live);
        }
    }

    /** An unexpected exception or answer; the property fails on it too, this keeps it for the report. */
    public synchronized void failure(String what) {
        exceptions++;
        if (failures.size() < 20) {
            failures.add(what.length() > 400 ? what.substring(0, 400) + "..." : what);
        }
    }

    public synchronized long inputs() {
        return inputs;
    }

    /** Checks the heap bound and no failures, then writes the report section (when asked to). */
    public synchronized void finish(String details) {
        long liveAtEnd = liveHeap();
        maxLive = Math.max(maxLive, liveAtEnd);
        long liveAtHalf = liveSamples.isEmpty() ? liveAtStart : liveSamples.get((liveSamples.size() - 1) / 2);
        write(details + "\n- live heap after GC at half-time " + liveAtHalf / MIB + " MiB, at the end "
                + liveAtEnd / MIB + " MiB (the second half may add at most " + SECOND_HALF_GROWTH_BOUND / MIB
                + " MiB)");
        assertThat(failures).as(name + ": unexpected exceptions or answers").isEmpty();
        assertThat(maxLive - liveAtStart)
                .as(name + ": live heap after GC grew from %d MiB to %d MiB", liveAtStart / MIB, maxLive / MIB)
                .isLessThan(LIVE_HEAP_GROWTH_BOUND);
        assertThat(liveAtEnd - liveAtHalf)
                .as(
                        name + ": live heap after GC still growing: %d MiB at half-time, %d MiB at the end",
                        liveAtHalf / MIB,
                        liveAtEnd / MIB)
                .isLessThan(SECOND_HALF_GROWTH_BOUND);
    }

    private void write(String details) {
        StringBuilder b = new StringBuilder();
        b.append("\n## ").append(name).append("\n\n");
        b.append("- inputs run: ").append(inputs).append('\n');
        b.append("- seconds: ")
                .append((System.nanoTime() - started) / 1_000_000_000)
                .append('\n');
        b.append("- unexpected exceptions or answers: ").append(exceptions).append('\n');
        b.append("- heap: live after GC ")
                .append(liveAtStart / MIB)
                .append(" MiB at start, at most ")
                .append(maxLive / MIB)
                .append(" MiB during the run (bound: start + ")
                .append(LIVE_HEAP_GROWTH_BOUND / MIB)
                .append(" MiB); peak used (garbage included) ")
                .append(peakUsed / MIB)
                .append(" MiB of max ")
                .append(Runtime.getRuntime().maxMemory() / MIB)
                .append(" MiB\n");
        if (!details.isEmpty()) {
            b.append(details).append('\n');
        }
        b.append("\n| outcome | count |\n|---|---|\n");
        outcomes.forEach(
                (k, v) -> b.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        failures.forEach(f -> b.append("\nFAILURE: ").append(f).append('\n'));
        String text = b.toString();
        System.out.println(text);
        String file = System.getProperty("fuzz.report", "");
        if (!file.isBlank()) {
            try {
                Files.writeString(
                        Path.of(file),
                        text,
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public static long liveHeap() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
