package dev.schedulerops.operator.validation;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Kubernetes major.minor version, parsed from strings such as {@code 1.33}, {@code 1.33.13} or {@code v1.33.13+k3s1}. */
public record KubernetesVersion(int major, int minor) implements Comparable<KubernetesVersion> {

    private static final Pattern MAJOR_MINOR = Pattern.compile("^v?(\\d+)\\.(\\d+)(?:\\.\\d+)?(?:[-+].*)?$");

    public static KubernetesVersion parse(String version) {
        if (version == null) {
            throw new IllegalArgumentException("Kubernetes version is required");
        }
        Matcher matcher = MAJOR_MINOR.matcher(version.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException(
                    "not a Kubernetes version: \"" + version + "\" (expected e.g. 1.33 or 1.33.13)");
        }
        return new KubernetesVersion(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)));
    }

    @Override
    public int compareTo(KubernetesVersion other) {
        return major != other.major ? Integer.compare(major, other.major) : Integer.compare(minor, other.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
