package dev.schedulerops.extender;

import java.time.Duration;
import java.util.regex.Pattern;

/** The extender's settings, read once at start-up from options and environment. */
public record ExtenderConfig(
        String labelKey,
        int port,
        String bindAddress,
        boolean nodeCache,
        int maxBodyBytes,
        LogFormat logFormat,
        Duration shutdownGrace) {

    public enum LogFormat {
        json,
        text
    }

    private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    public ExtenderConfig {
        String problem = labelKeyProblem(labelKey);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
        }
        if (bindAddress == null || bindAddress.isBlank()) {
            throw new IllegalArgumentException("bind address must not be empty");
        }
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("max body bytes must be positive, got " + maxBodyBytes);
        }
        if (shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("shutdown grace must not be negative");
        }
    }

    /** Why {@code key} is not a valid Kubernetes label key (a qualified name), or null when it is. */
    static String labelKeyProblem(String key) {
        if (key == null || key.isEmpty()) {
            return "a label key is required (--label-key or SCHEDULEROPS_LABEL_KEY)";
        }
        int slash = key.indexOf('/');
        String name = slash < 0 ? key : key.substring(slash + 1);
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            if (prefix.isEmpty()
                    || prefix.length() > 253
                    || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                return "label key \"" + key + "\": the prefix must be a DNS subdomain (lower case, at most 253 chars)";
            }
        }
        if (name.isEmpty() || name.length() > 63 || !LABEL_NAME.matcher(name).matches()) {
            return "label key \"" + key + "\": the name must be at most 63 characters of [A-Za-z0-9-_.],"
                    + " starting and ending with a letter or digit";
        }
        return null;
    }
}
