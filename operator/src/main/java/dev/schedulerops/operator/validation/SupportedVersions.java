package dev.schedulerops.operator.validation;

import java.util.Optional;

/**
 * The Kubernetes minor versions whose kube-scheduler rules the operator knows: those with a flag and a plugin
 * catalogue (listed in {@code kube-scheduler/versions.txt}, generated from the real binaries of {@code e2e/scheduler-versions}). On any
 * other version a profile is refused with reason UnsupportedKubernetesVersion rather than checked by a guess.
 */
public final class SupportedVersions {
    private SupportedVersions() {}

    /** Why profiles cannot be rendered for this cluster version, or empty when it is supported. */
    public static Optional<String> refusal(String kubernetesVersion) {
        KubernetesVersion version;
        try {
            version = KubernetesVersion.parse(kubernetesVersion);
        } catch (IllegalArgumentException e) {
            return Optional.of("The cluster reports Kubernetes version '" + kubernetesVersion
                    + "', which the operator cannot read; nothing was rolled out.");
        }
        if (SchedulerFlagCatalog.forVersion(version).isPresent()
                && PluginCatalog.find(version).isPresent()) {
            return Optional.empty();
        }
        return Optional.of("The cluster runs Kubernetes " + version + ", and this operator knows the kube-scheduler"
                + " rules of Kubernetes " + SchedulerFlagCatalog.knownVersions().replace("..", " to ")
                + " only; it does not guess, so"
                + " nothing was rolled out and running schedulers are left as they are. Use an operator release"
                + " that supports " + version + ".");
    }
}
