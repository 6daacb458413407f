package dev.schedulerops.operator.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The few facts about the cluster and the operator build that rendering depends on.
 *
 * @param kubernetesVersion the API server's version without the leading "v", e.g. "1.33.13"
 * @param extenderImage the bundled extender image used when a profile does not pin one
 * @param schedulerImageRepository where kube-scheduler images come from; the tag is "v" + kubernetesVersion
 */
public record ClusterFacts(String kubernetesVersion, String extenderImage, String schedulerImageRepository) {

    public static final String DEFAULT_SCHEDULER_IMAGE_REPOSITORY = "registry.k8s.io/kube-scheduler";

    public ClusterFacts {
        kubernetesVersion = stripV(kubernetesVersion);
    }

    /** Facts for a cluster of the given version, with this build's extender image. */
    public static ClusterFacts forVersion(String kubernetesVersion) {
        return new ClusterFacts(
                kubernetesVersion, BuildInfo.defaultExtenderImage(), DEFAULT_SCHEDULER_IMAGE_REPOSITORY);
    }

    public ClusterFacts withExtenderImage(String image) {
        return new ClusterFacts(kubernetesVersion, image, schedulerImageRepository);
    }

    /** The default kube-scheduler image: the cluster's own version, since a scheduler may not be newer. */
    public String defaultSchedulerImage() {
        // Drop build metadata such as "+k3s1": image tags carry only the release.
        String release = kubernetesVersion.replaceAll("[+].*$", "");
        return schedulerImageRepository + ":v" + release;
    }

    private static String stripV(String version) {
        if (version == null || version.isBlank()) {
            throw new IllegalArgumentException("kubernetesVersion is required");
        }
        return version.startsWith("v") ? version.substring(1) : version;
    }

    /** The operator's own version and image coordinates, stamped into the jar at build time. */
    public static final class BuildInfo {
        private static final Properties PROPERTIES = load();

        private BuildInfo() {}

        public static String version() {
            return PROPERTIES.getProperty("version", "dev");
        }

        public static String defaultExtenderImage() {
            return PROPERTIES.getProperty("image.registry", "ghcr.io/schedulerops") + "/schedulerops-extender:"
                    + PROPERTIES.getProperty("image.tag", version());
        }

        private static Properties load() {
            Properties properties = new Properties();
            try (InputStream in = ClusterFacts.class.getResourceAsStream("/schedulerops-build.properties")) {
                if (in != null) {
                    properties.load(in);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return properties;
        }
    }
}
