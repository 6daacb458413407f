package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * Which pods a preview places.
 *
 * @param kind which of the three
 * @param schedulerName the profile's schedulerName ({@link Kind#ONE_POD}: the pod must have it)
 * @param namespace {@link Kind#ONE_POD}: the pod's namespace
 * @param name {@link Kind#ONE_POD}: the pod's name
 * @param samples {@link Kind#SAMPLE_PODS}: the pods, as the user wrote them
 */
public record PodSelection(Kind kind, String schedulerName, String namespace, String name, List<JsonNode> samples) {
    public enum Kind {
        /**
         * The profile's current pods: every unfinished live pod whose spec.schedulerName is the profile's, in the
         * order they were created, each taken out of the snapshot's bound pods and placed again.
         */
        PROFILE_PODS,
        /** One live pod (explain): taken out of the snapshot's bound pods and placed again. */
        ONE_POD,
        /** Pods the user gives, placed in the given order as new pods; every live pod stays as it is. */
        SAMPLE_PODS
    }

    public PodSelection {
        Objects.requireNonNull(kind, "kind");
        samples = samples == null ? List.of() : List.copyOf(samples);
    }

    public static PodSelection profilePods(String schedulerName) {
        return new PodSelection(Kind.PROFILE_PODS, schedulerName, null, null, List.of());
    }

    public static PodSelection onePod(String namespace, String name, String schedulerName) {
        return new PodSelection(Kind.ONE_POD, schedulerName, namespace, name, List.of());
    }

    public static PodSelection samplePods(List<JsonNode> pods) {
        return new PodSelection(Kind.SAMPLE_PODS, null, null, null, pods);
    }

    /** Whether a live pod is one this selection places again. */
    boolean places(JsonNode livePod) {
        return switch (kind) {
            case PROFILE_PODS -> schedulerName.equals(
                    livePod.at("/spec/schedulerName").asText());
            case ONE_POD -> namespace.equals(livePod.at("/metadata/namespace").asText())
                    && name.equals(livePod.at("/metadata/name").asText());
            case SAMPLE_PODS -> false;
        };
    }
}
