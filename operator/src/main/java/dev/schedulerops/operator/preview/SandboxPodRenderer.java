package dev.schedulerops.operator.preview;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.render.PodSecurity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sandbox pod of a preview: one pod, one ServiceAccount that may only read, nothing else (no Secret, no
 * ConfigMap: the plan travels in an environment variable, the sandbox's keys and token are made inside it). Its
 * containers run in this order, each a native sidecar (restartPolicy Always) so that the pod completes when the driver
 * does:
 *
 * <ol>
 *   <li>{@code prepare} (operator image): the sandbox's files;
 *   <li>{@code etcd} and {@code kube-apiserver} (the cluster's version), on the pod's loopback;
 *   <li>per run, {@code extender-<run>} and {@code scheduler-<run>}: the profile's extender and kube-scheduler
 *       images, the operator's rendered configuration, connected to the sandbox (they wait for its API server);
 *   <li>{@code driver} (operator image): reads the live cluster, fills the sandbox, places the pods, prints the
 *       result.
 * </ol>
 *
 * Only {@code driver} gets a token of the live cluster (a projected volume; the pod mounts none by default). Pure.
 */
public final class SandboxPodRenderer {
    public static final String PREPARE = "prepare";
    public static final String ETCD = "etcd";
    public static final String API_SERVER = "kube-apiserver";
    public static final String DRIVER = "driver";
    /** The environment variable that carries the plan (JSON). */
    public static final String PLAN_ENV = "SCHEDULEROPS_SANDBOX_PLAN";

    public static final String POD_NAME_ENV = "SCHEDULEROPS_POD_NAME";
    public static final String POD_NAMESPACE_ENV = "SCHEDULEROPS_POD_NAMESPACE";

    static final String SANDBOX_VOLUME = "sandbox";
    static final String TMP_VOLUME = "tmp";
    static final String LIVE_API_VOLUME = "live-api";
    static final String LIVE_API_MOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";
    /** How long the projected token lives; a sandbox is done long before. */
    static final long TOKEN_SECONDS = 3600;

    private SandboxPodRenderer() {}

    public static String extenderContainer(String run) {
        return "extender-" + run;
    }

    public static String schedulerContainer(String run) {
        return "scheduler-" + run;
    }

    /**
     * @param name the pod's name
     * @param namespace the operator's workload namespace
     * @param serviceAccount the sandbox's read-only ServiceAccount
     * @param owner the preview that owns it (the garbage collector removes the pod with it)
     * @param labels the pod's labels
     */
    public static Pod render(
            SandboxPlan plan,
            SandboxImages images,
            String name,
            String namespace,
            String serviceAccount,
            OwnerReference owner,
            Map<String, String> labels) {
        SandboxLayout layout = SandboxLayout.inPod(
                plan.runs().stream().map(SandboxPlan.Run::name).toList());
        String planJson = Json.write(plan);
        List<Container> init = new ArrayList<>();
        init.add(step(PREPARE, "prepare", images.operator(), planJson, false));
        init.add(sidecar(ETCD, images.etcd(), SandboxCommands.etcd("etcd", layout), Map.of(), Sizes.ETCD));
        init.add(sidecar(
                API_SERVER,
                images.apiServer(),
                SandboxCommands.apiServer("kube-apiserver", layout),
                Map.of(),
                Sizes.API_SERVER));
        for (SandboxPlan.Run run : plan.runs()) {
            if (plan.startsExtender(run)) {
                init.add(sidecar(
                        extenderContainer(run.name()),
                        run.extender().image(),
                        null,
                        SandboxCommands.extenderEnv(layout, run),
                        Sizes.EXTENDER));
            }
            init.add(sidecar(
                    schedulerContainer(run.name()),
                    run.schedulerImage(),
                    SandboxCommands.scheduler("kube-scheduler", layout, run),
                    Map.of(),
                    Sizes.SCHEDULER));
        }
        Container driver = step(DRIVER, "drive", images.operator(), planJson, true);
        driver.getEnv().add(fieldRef(POD_NAME_ENV, "metadata.name"));
        driver.getEnv().add(fieldRef(POD_NAMESPACE_ENV, "metadata.namespace"));
        Map<String, String> allLabels = new LinkedHashMap<>(labels);
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(allLabels)
                .withOwnerReferences(owner)
                .endMetadata()
                .withNewSpec()
                .withServiceAccountName(serviceAccount)
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withRestartPolicy("Never")
                .withActiveDeadlineSeconds((long) plan.limits().timeoutSeconds() + 60)
                .withTerminationGracePeriodSeconds(5L)
                .withSecurityContext(PodSecurity.pod())
                .withInitContainers(init)
                .withContainers(driver)
                .withVolumes(volumes())
                .endSpec()
                .build();
    }

    /**
     * An operator-image container running {@code sandbox <step>} with the plan; {@code liveApi}: it reads the live
     * cluster.
     */
    private static Container step(String name, String step, String image, String planJson, boolean liveApi) {
        List<VolumeMount> mounts = new ArrayList<>(commonMounts(name));
        if (liveApi) {
            mounts.add(mount(LIVE_API_VOLUME, LIVE_API_MOUNT, true));
        }
        return new ContainerBuilder()
                .withName(name)
                .withImage(image)
                .withArgs("sandbox", step)
                .withEnv(new ArrayList<>(List.of(new EnvVar(PLAN_ENV, planJson, null))))
                .withResources(Sizes.STEP)
                .withSecurityContext(PodSecurity.container())
                .withVolumeMounts(mounts)
                .build();
    }

    private static Container sidecar(
            String name, String image, List<String> command, Map<String, String> env, ResourceRequirements size) {
        ContainerBuilder container = new ContainerBuilder()
                .withName(name)
                .withImage(image)
                .withRestartPolicy("Always")
                .withResources(size)
                .withSecurityContext(PodSecurity.container())
                .withVolumeMounts(commonMounts(name));
        if (command != null) {
            container.withCommand(command);
        }
        env.forEach((k, v) -> container.addToEnv(new EnvVar(k, v, null)));
        return container.build();
    }

    private static EnvVar fieldRef(String name, String path) {
        return new EnvVarBuilder()
                .withName(name)
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath(path)
                .endFieldRef()
                .endValueFrom()
                .build();
    }

    /** The shared sandbox directory, and a /tmp of the container's own (each JVM is pid 1 of its container). */
    private static List<VolumeMount> commonMounts(String container) {
        VolumeMount tmp = mount(TMP_VOLUME, "/tmp", false);
        tmp.setSubPath(container);
        return List.of(mount(SANDBOX_VOLUME, SandboxLayout.IN_POD_DIRECTORY.toString(), false), tmp);
    }

    private static VolumeMount mount(String volume, String path, boolean readOnly) {
        VolumeMount mount = new VolumeMount();
        mount.setName(volume);
        mount.setMountPath(path);
        mount.setReadOnly(readOnly ? Boolean.TRUE : null);
        return mount;
    }

    private static List<Volume> volumes() {
        return List.of(
                new VolumeBuilder()
                        .withName(SANDBOX_VOLUME)
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .build(),
                new VolumeBuilder()
                        .withName(TMP_VOLUME)
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .build(),
                new VolumeBuilder()
                        .withName(LIVE_API_VOLUME)
                        .withNewProjected()
                        .addNewSource()
                        .withNewServiceAccountToken()
                        .withPath("token")
                        .withExpirationSeconds(TOKEN_SECONDS)
                        .endServiceAccountToken()
                        .endSource()
                        .addNewSource()
                        .withNewConfigMap()
                        .withName("kube-root-ca.crt")
                        .addNewItem()
                        .withKey("ca.crt")
                        .withPath("ca.crt")
                        .endItem()
                        .endConfigMap()
                        .endSource()
                        .addNewSource()
                        .withNewDownwardAPI()
                        .addNewItem()
                        .withPath("namespace")
                        .withNewFieldRef()
                        .withFieldPath("metadata.namespace")
                        .endFieldRef()
                        .endItem()
                        .endDownwardAPI()
                        .endSource()
                        .endProjected()
                        .build());
    }

    /** Each container's requests and limits (bench/preview measured the sandbox's memory, see docs/preview.md). */
    static final class Sizes {
        static final ResourceRequirements ETCD = size("50m", "64Mi", "512Mi");
        static final ResourceRequirements API_SERVER = size("100m", "256Mi", "1536Mi");
        static final ResourceRequirements EXTENDER = size("50m", "128Mi", "384Mi");
        static final ResourceRequirements SCHEDULER = size("50m", "64Mi", "512Mi");
        static final ResourceRequirements STEP = size("50m", "128Mi", "768Mi");

        private Sizes() {}

        private static ResourceRequirements size(String cpu, String memory, String memoryLimit) {
            return Defaults.resources(cpu, memory, memoryLimit);
        }
    }
}
