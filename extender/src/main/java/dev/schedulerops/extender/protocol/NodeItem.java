package dev.schedulerops.extender.protocol;

/**
 * One node of a full-node request: its name, the value of the configured label ({@code null} when the node lacks
 * it) and where its JSON object lies in the request body, so a reply can copy it byte for byte.
 */
public record NodeItem(String name, String labelValue, int start, int end) {}
