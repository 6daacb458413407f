package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * One pod the sandbox places, in every run.
 *
 * @param namespace its namespace (in the live cluster and in the sandbox)
 * @param name its name
 * @param sample whether the user gave it (it does not exist in the live cluster)
 * @param today the node it is bound to in the live cluster, null when it is not bound (or a sample)
 * @param todayState what the live cluster says of it: "bound", "Pending: ..." or "sample"
 * @param pod the sandbox copy ({@link SnapshotCopy#podToPlace}); its schedulerName is set per run
 * @param omissions what was left out of the copy that can matter for its placement
 */
public record PodToPlace(
        String namespace,
        String name,
        boolean sample,
        String today,
        String todayState,
        ObjectNode pod,
        List<String> omissions) {
    public PodToPlace {
        omissions = List.copyOf(omissions);
    }

    public String key() {
        return namespace + "/" + name;
    }

    /** The copy to create in a run: the run's scheduler takes it. */
    public ObjectNode forScheduler(String schedulerName) {
        ObjectNode copy = pod.deepCopy();
        ((ObjectNode) copy.get("spec")).put("schedulerName", schedulerName);
        return copy;
    }
}
