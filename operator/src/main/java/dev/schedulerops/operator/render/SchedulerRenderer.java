package dev.schedulerops.operator.render;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.model.TlsFacts;
import dev.schedulerops.operator.validation.KubernetesVersion;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The kube-scheduler's ServiceAccount, its configuration ConfigMap and its Deployment. */
final class SchedulerRenderer {
    private static final IntOrString SECURE_PORT = new IntOrString(Names.SCHEDULER_SECURE_PORT);

    private SchedulerRenderer() {}

    static HasMetadata serviceAccount(ResolvedProfile p) {
        return new ServiceAccountBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().scheduler(), Labels.COMPONENT_SCHEDULER))
                .build();
    }

    static ConfigMap configMap(ResolvedProfile p, String configYaml) {
        return new ConfigMapBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().schedulerConfig(), Labels.COMPONENT_SCHEDULER))
                .withData(Map.of(Names.CONFIG_FILE, configYaml))
                .build();
    }

    private static final String TLS_VOLUME = "extender-client";

    /**
     * kube-scheduler serves {@code /livez} and {@code /readyz} from 1.31 on; 1.30's answers them 404, so its startup
     * probe restarted it forever (found by e2e/matrix on a 1.30 control plane). There every probe reads {@code
     * /healthz}, which each version serves. The version is the image's when its tag names one (a profile may pin an
     * older scheduler image than the cluster's), else the cluster's.
     */
    static final KubernetesVersion FIRST_WITH_LIVEZ = new KubernetesVersion(1, 31);

    static String probePath(String image, String clusterVersion, String path) {
        return schedulerVersion(image, clusterVersion).compareTo(FIRST_WITH_LIVEZ) < 0 ? "/healthz" : path;
    }

    private static KubernetesVersion schedulerVersion(String image, String clusterVersion) {
        String name = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
        String last = name.substring(name.lastIndexOf('/') + 1);
        if (last.contains(":")) {
            try {
                return KubernetesVersion.parse(last.substring(last.indexOf(':') + 1));
            } catch (IllegalArgumentException e) {
                // A tag that names no version (latest, a build id): the cluster's version is the best guess.
            }
        }
        return KubernetesVersion.parse(clusterVersion);
    }

    static Deployment deployment(ResolvedProfile p, ClusterFacts facts, String configHash, TlsFacts tls) {
        var s = p.scheduler();
        String image = p.schedulerImage(facts);
        String live = probePath(image, facts.kubernetesVersion(), "/livez");
        String ready = probePath(image, facts.kubernetesVersion(), "/readyz");
        boolean tlsOn = p.tls().enabled();
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(Labels.CONFIG_HASH, configHash);
        if (p.bundledExtender()) {
            annotations.put(Labels.EXTENDER_RULE_HASH, Yaml.hash(p.labelKey()));
        }
        if (tlsOn && tls.schedulerMaterialHash() != null) {
            annotations.put(Labels.TLS_HASH, tls.schedulerMaterialHash());
        }
        Map<String, String> selector = Labels.selector(p.names().profile(), Labels.COMPONENT_SCHEDULER);
        Deployment built = new DeploymentBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().scheduler(), Labels.COMPONENT_SCHEDULER))
                .withNewSpec()
                .withReplicas(s.replicas())
                .withRevisionHistoryLimit(3)
                .withNewSelector()
                .withMatchLabels(selector)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(Labels.component(p.names().profile(), Labels.COMPONENT_SCHEDULER))
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                // A secondary scheduler is placed by the default one, never by itself.
                .withSchedulerName(Names.DEFAULT_SCHEDULER)
                .withServiceAccountName(p.names().scheduler())
                .withEnableServiceLinks(false)
                .withSecurityContext(PodSecurity.pod())
                .withInitContainers(initContainers(p, facts, tlsOn))
                .withTopologySpreadConstraints(
                        s.replicas() > 1
                                ? List.of(PodParts.spread(
                                        PodParts.HOSTNAME, facts.spreadsAcrossNodes(s.replicas()), selector))
                                : List.of())
                .addNewContainer()
                .withName(Names.SCHEDULER_CONTAINER)
                .withImage(image)
                .withImagePullPolicy("IfNotPresent")
                .withTerminationMessagePolicy(PodParts.TERMINATION_MESSAGE_POLICY)
                .withCommand(command(s, schedulerVersion(image, facts.kubernetesVersion())))
                .addNewPort()
                .withName("https")
                .withContainerPort(Names.SCHEDULER_SECURE_PORT)
                .withProtocol("TCP")
                .endPort()
                .withLivenessProbe(PodParts.probe("HTTPS", SECURE_PORT, live, 3))
                .withReadinessProbe(PodParts.probe("HTTPS", SECURE_PORT, ready, 1))
                .withStartupProbe(PodParts.startupProbe("HTTPS", SECURE_PORT, live))
                .withResources(s.resources())
                .withSecurityContext(PodSecurity.container())
                .addNewVolumeMount()
                .withName("config")
                .withMountPath(Names.CONFIG_MOUNT_PATH)
                .withReadOnly(true)
                .endVolumeMount()
                .addToVolumeMounts(PodParts.tmpMount())
                .addAllToVolumeMounts(
                        tlsOn ? List.of(PodParts.readOnlyMount(TLS_VOLUME, Names.SCHEDULER_TLS_MOUNT_PATH)) : List.of())
                .endContainer()
                .addNewVolume()
                .withName("config")
                .withNewConfigMap()
                .withName(p.names().schedulerConfig())
                .endConfigMap()
                .endVolume()
                .addToVolumes(PodParts.tmpVolume())
                .addAllToVolumes(
                        tlsOn
                                ? List.of(PodParts.secretVolume(
                                        TLS_VOLUME, p.names().schedulerClientSecret()))
                                : List.of())
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
        return PodPlacement.applyTo(built, s.placement(), selector);
    }

    /** {@code await-extender} first (with the bundled extender), then the {@code release-lease} sidecar. */
    private static List<Container> initContainers(ResolvedProfile p, ClusterFacts facts, boolean tlsOn) {
        List<Container> containers = new ArrayList<>();
        if (p.bundledExtender()) {
            containers.add(awaitExtender(p, facts, tlsOn));
        }
        if (p.scheduler().leaderElect() && facts.releaseLeaseSidecar()) {
            containers.add(releaseLease(p, facts));
        }
        return containers;
    }

    /**
     * A native sidecar ({@code restartPolicy: Always}, Kubernetes 1.29 and later) that gives kube-scheduler's lease back
     * when the pod stops, should kube-scheduler's own release have failed: the kubelet stops it only after
     * kube-scheduler has exited, and learns that from the runtime at once, where the operator waits for the kubelet's
     * status report. Listed after {@code await-extender}, so its JVM starts beside kube-scheduler rather than before.
     */
    static Container releaseLease(ResolvedProfile p, ClusterFacts facts) {
        return new ContainerBuilder()
                .withName(Names.RELEASE_LEASE_CONTAINER)
                .withImage(facts.operatorImage())
                .withImagePullPolicy("IfNotPresent")
                .withRestartPolicy("Always")
                .withTerminationMessagePolicy(PodParts.TERMINATION_MESSAGE_POLICY)
                .withArgs(
                        "release-lease",
                        "--namespace=" + p.names().namespace(),
                        "--lease=" + p.names().schedulerLease(),
                        "--scheduler-port=" + Names.SCHEDULER_SECURE_PORT)
                .withResources(releaseLeaseResources())
                .withSecurityContext(PodSecurity.container())
                .addToVolumeMounts(PodParts.tmpMount())
                .build();
    }

    /**
     * An idle JVM that makes two requests when it stops (its heap is 40% of the limit, the operator image's flags).
     * Most of what it holds is the JVM's own (class data, metaspace, code), not its heap: a 64Mi limit was OOMKilled
     * at its start (SchedulerHandOverTest prints the container's peak). The limit leaves room for its stop's requests.
     */
    private static ResourceRequirements releaseLeaseResources() {
        return Defaults.resources("5m", "80Mi", "128Mi");
    }

    /**
     * Holds kube-scheduler back until the extender answers this pod ({@code await-extender}, at most
     * {@value #AWAIT_EXTENDER_SECONDS} s): a new scheduler pod can take the lease within milliseconds of starting, before
     * a NetworkPolicy enforcer admits its address to the extender's port, and each call refused then is a failed
     * scheduling attempt. Runs from the operator's image, which always has the command it is given.
     */
    static Container awaitExtender(ResolvedProfile p, ClusterFacts facts, boolean tlsOn) {
        List<String> args = new ArrayList<>(List.of(
                "await-extender",
                "--url=" + p.extenderUrl() + "/readyz",
                "--timeout-seconds=" + AWAIT_EXTENDER_SECONDS));
        if (tlsOn) {
            args.add("--ca-file=" + Names.SCHEDULER_TLS_MOUNT_PATH + "/" + Names.CA_CERT);
        }
        if (p.tls() == TlsMode.MUTUAL) {
            args.add("--cert-file=" + Names.SCHEDULER_TLS_MOUNT_PATH + "/" + Names.TLS_CERT);
            args.add("--key-file=" + Names.SCHEDULER_TLS_MOUNT_PATH + "/" + Names.TLS_KEY);
        }
        return new ContainerBuilder()
                .withName(Names.AWAIT_EXTENDER_CONTAINER)
                .withImage(facts.operatorImage())
                .withImagePullPolicy("IfNotPresent")
                .withTerminationMessagePolicy(PodParts.TERMINATION_MESSAGE_POLICY)
                .withArgs(args)
                .withResources(awaitExtenderResources())
                .withSecurityContext(PodSecurity.container())
                .addToVolumeMounts(PodParts.tmpMount())
                .addAllToVolumeMounts(
                        tlsOn ? List.of(PodParts.readOnlyMount(TLS_VOLUME, Names.SCHEDULER_TLS_MOUNT_PATH)) : List.of())
                .build();
    }

    static final int AWAIT_EXTENDER_SECONDS = 30;

    /**
     * A JVM that makes a few HTTPS requests: its heap is 40% of the limit (the operator image's flags). A new object
     * each call, as {@code Defaults}' resources: fabric8's models are mutable and every rendered pod gets its own.
     */
    private static ResourceRequirements awaitExtenderResources() {
        return Defaults.resources("10m", "128Mi", "128Mi");
    }

    private static List<String> command(ResolvedProfile.Scheduler s, KubernetesVersion version) {
        List<String> command = new ArrayList<>(List.of(
                "kube-scheduler",
                "--config=" + Names.CONFIG_MOUNT_PATH + "/" + Names.CONFIG_FILE,
                "--v=" + s.logVerbosity()));
        command.addAll(s.extraFlags(SchedulerFeatureGates.effective(s.featureGates(), version)));
        return command;
    }

    /** With more than one replica: a drain takes at most one scheduler pod at a time, so another can lead. */
    static HasMetadata podDisruptionBudget(ResolvedProfile p) {
        return PodParts.podDisruptionBudget(
                ObjectMetas.of(p, p.names().scheduler(), Labels.COMPONENT_SCHEDULER),
                Labels.selector(p.names().profile(), Labels.COMPONENT_SCHEDULER));
    }
}
