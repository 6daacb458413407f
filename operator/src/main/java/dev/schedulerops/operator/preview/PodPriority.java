package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * What the live cluster's Priority admission would set on a sample pod: the priority and preemption policy of its
 * PriorityClass, or of the cluster's default class, or 0. Live pods already carry them. Pure.
 */
final class PodPriority {
    private PodPriority() {}

    /** Sets spec.priority and spec.preemptionPolicy on a sample pod's copy; returns a note when its class is unknown. */
    static Optional<String> admit(ObjectNode pod, List<JsonNode> priorityClasses) {
        ObjectNode spec = (ObjectNode) pod.get("spec");
        if (spec.has("priority")) {
            return Optional.empty();
        }
        String className = spec.path("priorityClassName").asText("");
        JsonNode chosen = null;
        for (JsonNode pc : priorityClasses) {
            boolean named = !className.isEmpty()
                    && className.equals(pc.at("/metadata/name").asText());
            boolean byDefault = className.isEmpty() && pc.path("globalDefault").asBoolean(false);
            if (named || byDefault) {
                chosen = pc;
                break;
            }
        }
        if (chosen == null) {
            spec.put("priority", 0);
            return className.isEmpty()
                    ? Optional.empty()
                    : Optional.of("its PriorityClass " + className + " does not exist in the cluster (the API server"
                            + " would refuse it); placed with priority 0");
        }
        spec.put("priority", chosen.path("value").asInt());
        if (!spec.has("preemptionPolicy")) {
            spec.put("preemptionPolicy", chosen.path("preemptionPolicy").asText("PreemptLowerPriority"));
        }
        if (className.isEmpty()) {
            spec.put("priorityClassName", chosen.at("/metadata/name").asText());
        }
        return Optional.empty();
    }
}
