package dev.schedulerops.extender.protocol;

/** The few fields of the pod being scheduled that the extender looks at (for logs only). */
public record PodRef(String namespace, String name, String uid) {
    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
