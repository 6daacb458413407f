package dev.schedulerops.extender.bind;

import dev.schedulerops.extender.protocol.BindingArgs;

/** Binds a pod to a node. */
public interface Binder {
    /** Creates the Binding if the pod is one this extender may bind. */
    BindResult bind(BindingArgs args);
}
