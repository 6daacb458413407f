package dev.schedulerops.operator.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The few facts about the cluster and the operator's installation that rendering depends on.
 *
 * @param kubernetesVersion the API server's version without the leading "v", e.g. "1.33.13"
 * @param extenderImage the bundled extender image used when a profile does not pin one
 * @param schedulerImageRepository where kube-scheduler images come from; the tag is "v" + kubernetesVersion
 * @param nodes how many Nodes the cluster has (0: not known, e.g. for `render`); their cordon state does not count, so
 *     a drain never changes it
 * @param workloadNamespace where every namespaced object of every profile goes: the installer's choice (the
 *     operator's own namespace by default), never a namespace a team controls
 * @param images the image repositories a profile may name
 * @param apiServer where the API server is reached from a pod, after the kubernetes Service's translation (the
 *     addresses and port of its EndpointSlice); empty when not known (e.g. for `render` without --api-server), and
 *     the extender's egress is then left open
 * @param operatorImage the operator's own image, which runs the scheduler pods' init container and sidecar (this
 *     build's when null)
 * @param releaseLeaseSidecar whether scheduler pods run the {@code release-lease} sidecar (native sidecars: kubelets
 *     of 1.29 or later with the SidecarContainers feature)
 */
public record ClusterFacts(
        String kubernetesVersion,
        String extenderImage,
        String schedulerImageRepository,
        int nodes,
        String workloadNamespace,
        ImagePolicy images,
        List<ApiServerEndpoint> apiServer,
        String operatorImage,
        boolean releaseLeaseSidecar) {

    public static final String DEFAULT_SCHEDULER_IMAGE_REPOSITORY = "registry.k8s.io/kube-scheduler";
    /** The workload namespace of an operator that runs outside a pod and is not told one (deploy/ installs here). */
    public static final String DEFAULT_WORKLOAD_NAMESPACE = "schedulerops-system";

    public ClusterFacts {
        kubernetesVersion = stripV(kubernetesVersion);
        if (workloadNamespace == null || workloadNamespace.isBlank()) {
            throw new IllegalArgumentException("workloadNamespace is required");
        }
        apiServer = List.copyOf(apiServer);
        if (operatorImage == null || operatorImage.isBlank()) {
            operatorImage = BuildInfo.defaultOperatorImage();
        }
    }

    public ClusterFacts(
            String kubernetesVersion,
            String extenderImage,
            String schedulerImageRepository,
            int nodes,
            String workloadNamespace,
            ImagePolicy images,
            List<ApiServerEndpoint> apiServer) {
        this(
                kubernetesVersion,
                extenderImage,
                schedulerImageRepository,
                nodes,
                workloadNamespace,
                images,
                apiServer,
                null);
    }

    public ClusterFacts(
            String kubernetesVersion,
            String extenderImage,
            String schedulerImageRepository,
            int nodes,
            String workloadNamespace,
            ImagePolicy images,
            List<ApiServerEndpoint> apiServer,
            String operatorImage) {
        this(
                kubernetesVersion,
                extenderImage,
                schedulerImageRepository,
                nodes,
                workloadNamespace,
                images,
                apiServer,
                operatorImage,
                true);
    }

    public ClusterFacts(
            String kubernetesVersion,
            String extenderImage,
            String schedulerImageRepository,
            int nodes,
            String workloadNamespace,
            ImagePolicy images) {
        this(kubernetesVersion, extenderImage, schedulerImageRepository, nodes, workloadNamespace, images, List.of());
    }

    /**
     * Facts without the node count (rendering then never requires pods on distinct nodes), for the default workload
     * namespace and image policy.
     */
    public ClusterFacts(String kubernetesVersion, String extenderImage, String schedulerImageRepository) {
        this(
                kubernetesVersion,
                extenderImage,
                schedulerImageRepository,
                0,
                DEFAULT_WORKLOAD_NAMESPACE,
                ImagePolicy.defaults(extenderImage, schedulerImageRepository));
    }

    public ClusterFacts withNodes(int count) {
        Copy copy = new Copy(this);
        copy.nodes = count;
        return copy.facts();
    }

    public ClusterFacts withWorkloadNamespace(String namespace) {
        Copy copy = new Copy(this);
        copy.workloadNamespace = namespace;
        return copy.facts();
    }

    public ClusterFacts withImages(ImagePolicy policy) {
        Copy copy = new Copy(this);
        copy.images = policy;
        return copy.facts();
    }

    public ClusterFacts withApiServer(List<ApiServerEndpoint> endpoints) {
        Copy copy = new Copy(this);
        copy.apiServer = endpoints;
        return copy.facts();
    }

    /** Whether scheduler pods run the {@code release-lease} sidecar (the operator's setting; on by default). */
    public ClusterFacts withReleaseLeaseSidecar(boolean on) {
        Copy copy = new Copy(this);
        copy.releaseLeaseSidecar = on;
        return copy.facts();
    }

    /**
     * Whether {@code replicas} pods of one component must each run on a node of their own (a DoNotSchedule spread over
     * nodes): only when the cluster has at least one node more than the replicas, so that the pod a drain evicts
     * always has a node of its own to go to. With fewer nodes the spread stays ScheduleAnyway, or a drain would leave
     * the evicted pod Pending.
     */
    public boolean spreadsAcrossNodes(int replicas) {
        return replicas > 1 && nodes >= replicas + 1;
    }

    /** Facts for a cluster of the given version, with this build's extender image. */
    public static ClusterFacts forVersion(String kubernetesVersion) {
        return new ClusterFacts(
                kubernetesVersion, BuildInfo.defaultExtenderImage(), DEFAULT_SCHEDULER_IMAGE_REPOSITORY);
    }

    public ClusterFacts withKubernetesVersion(String version) {
        Copy copy = new Copy(this);
        copy.kubernetesVersion = version;
        return copy.facts();
    }

    /** Another default extender image; the image policy is left as it is. */
    public ClusterFacts withExtenderImage(String image) {
        Copy copy = new Copy(this);
        copy.extenderImage = image;
        return copy.facts();
    }

    /**
     * The operator's own image, which also runs the scheduler pods' init container ({@code await-extender}) and
     * sidecar ({@code release-lease}).
     */
    public ClusterFacts withOperatorImage(String image) {
        Copy copy = new Copy(this);
        copy.operatorImage = image;
        return copy.facts();
    }

    /** The default kube-scheduler image: the cluster's own version, since a scheduler may not be newer. */
    public String defaultSchedulerImage() {
        return versionedImage(schedulerImageRepository);
    }

    /** An image of the cluster's own release from a repository that tags images as registry.k8s.io does. */
    public String versionedImage(String repository) {
        return repository + ":v" + imageRelease(kubernetesVersion);
    }

    private static final Pattern RELEASE = Pattern.compile("^(\\d+\\.\\d+)(\\.\\d+)?(-(?:alpha|beta|rc)\\.\\d+)?");

    /**
     * The upstream release a cluster version is built from, as registry.k8s.io tags it: vendor suffixes go
     * ("1.33.5-eks-1234abc", "1.32.3-gke.1785003", "1.31.4+k3s1" are 1.33.5, 1.32.3, 1.31.4), upstream pre-releases
     * stay ("1.34.0-rc.1"). A version without a patch number gets ".0".
     */
    static String imageRelease(String version) {
        Matcher m = RELEASE.matcher(version);
        if (!m.find()) {
            throw new IllegalArgumentException("not a Kubernetes version: \"" + version + "\"");
        }
        return m.group(1) + (m.group(2) == null ? ".0" : m.group(2)) + (m.group(3) == null ? "" : m.group(3));
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
            return image("schedulerops-extender");
        }

        /** The operator's own image of this build (a preview's sandbox runs its steps in it). */
        public static String defaultOperatorImage() {
            return image("schedulerops-operator");
        }

        private static String image(String name) {
            return PROPERTIES.getProperty("image.registry", "ghcr.io/schedulerops") + "/" + name + ":"
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

    /** A copy to change one fact of: the withers' one place that names every component. */
    private static final class Copy {
        String kubernetesVersion;
        String extenderImage;
        String schedulerImageRepository;
        int nodes;
        String workloadNamespace;
        ImagePolicy images;
        List<ApiServerEndpoint> apiServer;
        String operatorImage;
        boolean releaseLeaseSidecar;

        Copy(ClusterFacts facts) {
            kubernetesVersion = facts.kubernetesVersion;
            extenderImage = facts.extenderImage;
            schedulerImageRepository = facts.schedulerImageRepository;
            nodes = facts.nodes;
            workloadNamespace = facts.workloadNamespace;
            images = facts.images;
            apiServer = facts.apiServer;
            operatorImage = facts.operatorImage;
            releaseLeaseSidecar = facts.releaseLeaseSidecar;
        }

        ClusterFacts facts() {
            return new ClusterFacts(
                    kubernetesVersion,
                    extenderImage,
                    schedulerImageRepository,
                    nodes,
                    workloadNamespace,
                    images,
                    apiServer,
                    operatorImage,
                    releaseLeaseSidecar);
        }
    }
}
