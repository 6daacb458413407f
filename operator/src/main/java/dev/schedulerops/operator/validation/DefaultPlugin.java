package dev.schedulerops.operator.validation;

/**
 * A plugin kube-scheduler enables by default at {@code multiPoint}, with its default score weight (null for plugins
 * that do not score).
 */
public record DefaultPlugin(String name, Integer weight) {}
