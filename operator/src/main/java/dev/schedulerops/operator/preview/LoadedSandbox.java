package dev.schedulerops.operator.preview;

import java.util.Map;

/**
 * What the load step of a sandbox pod hands to its driver, through the pod's shared volume: the pods to place and
 * the rest of the copy, the snapshot's size and the time the steps took.
 */
public record LoadedSandbox(SandboxContents contents, Snapshot.Size size, Map<String, Long> timings) {
    public LoadedSandbox {
        timings = Map.copyOf(timings);
    }
}
