package dev.schedulerops.extender.bind;

/**
 * What became of a bind request. Only a pod of this extender's scheduler, with the UID the request names, is ever
 * bound; what else is found out about the pod stays in the extender's log, so that an answer never tells a caller
 * whether a pod of that name exists (in a namespace it may not see).
 */
public sealed interface BindResult {
    /** The Binding was created. */
    record Bound() implements BindResult {}

    /**
     * The pod is not one this extender may bind: there is no such pod, it has another UID, or it names another
     * scheduler. {@code detail} is for the extender's log only.
     */
    record Refused(String detail) implements BindResult {}

    /** The pod could not be read from the API server. {@code detail} is for the extender's log only. */
    record PodUnreadable(String detail) implements BindResult {}

    /**
     * The pod is this scheduler's and has the UID the request names, but the API server did not create its Binding:
     * {@code message} (the API server's reason) goes back to kube-scheduler in {@code Error}, which shows it in the
     * pod's events.
     */
    record BindingFailed(String message) implements BindResult {}

    static BindResult bound() {
        return new Bound();
    }
}
