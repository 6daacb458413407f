package dev.schedulerops.extender.protocol;

/** The decoded {@code ExtenderBindingArgs}: bind pod {@code podNamespace/podName}, UID {@code podUid}, to {@code node}. */
public record BindingArgs(String podName, String podNamespace, String podUid, String node) {}
