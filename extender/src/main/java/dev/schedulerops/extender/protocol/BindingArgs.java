package dev.schedulerops.extender.protocol;

/** The decoded {@code ExtenderBindingArgs}: bind pod {@code podNamespace/podName} to {@code node}. */
public record BindingArgs(String podName, String podNamespace, String podUid, String node) {}
