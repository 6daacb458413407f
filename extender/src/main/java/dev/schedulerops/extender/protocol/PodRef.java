package dev.schedulerops.extender.protocol;

/** The few fields of the pod being scheduled that the extender looks at (for logs only). */
public record PodRef(String namespace, String name, String uid) {
    public static final PodRef UNKNOWN = new PodRef("", "", "");

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
