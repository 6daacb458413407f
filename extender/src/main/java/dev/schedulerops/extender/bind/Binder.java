package dev.schedulerops.extender.bind;

import dev.schedulerops.extender.protocol.BindingArgs;

/** Binds a pod to a node. */
public interface Binder {
    /** Creates the binding; returns an empty string on success, else a message for {@code ExtenderBindingResult}. */
    String bind(BindingArgs args);
}
