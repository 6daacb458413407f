package dev.schedulerops.operator.render;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.api.Verb;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.model.TlsFacts;
import dev.schedulerops.operator.validation.GoDuration;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The extender's ServiceAccount, Deployment, Service, NetworkPolicy and (with more than one replica)
 * PodDisruptionBudget. The verb port (named http: 8443 with TLS, 8080 without) serves only the verbs; the health port
 * (8081, plain HTTP) serves only /healthz, /readyz and /metrics, so probes and scraping need no client certificate.
 */
final class ExtenderRenderer {
    private static final IntOrString HTTP_PORT = new IntOrString("http");
    private static final IntOrString HEALTH_PORT = new IntOrString("health");
    private static final String TLS_VOLUME = "tls";

    private ExtenderRenderer() {}

    static List<HasMetadata> render(ResolvedProfile p, ClusterFacts facts, TlsFacts tls) {
        Map<String, String> selector = Labels.selector(p.names().profile(), Labels.COMPONENT_EXTENDER);
        List<HasMetadata> objects = new ArrayList<>();
        objects.add(serviceAccount(p));
        objects.add(deployment(p, facts, tls, selector));
        objects.add(service(p, selector));
        objects.add(NetworkPolicyRenderer.extender(p, facts));
        if (p.extender().replicas() > 1) {
            objects.add(PodParts.podDisruptionBudget(
                    ObjectMetas.of(p, p.names().extender(), Labels.COMPONENT_EXTENDER), selector));
        }
        return objects;
    }

    private static HasMetadata serviceAccount(ResolvedProfile p) {
        return new ServiceAccountBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extender(), Labels.COMPONENT_EXTENDER))
                .withAutomountServiceAccountToken(p.extenderNeedsApi())
                .build();
    }

    private static Deployment deployment(
            ResolvedProfile p, ClusterFacts facts, TlsFacts tls, Map<String, String> selector) {
        boolean tlsOn = p.tls().enabled();
        Map<String, String> podAnnotations = tlsOn && tls.extenderMaterialHash() != null
                ? Map.of(Labels.TLS_HASH, tls.extenderMaterialHash())
                : null;
        Deployment built = new DeploymentBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extender(), Labels.COMPONENT_EXTENDER))
                .withNewSpec()
                .withReplicas(p.extender().replicas())
                .withRevisionHistoryLimit(3)
                .withNewSelector()
                .withMatchLabels(selector)
                .endSelector()
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(0))
                .withMaxSurge(new IntOrString(1))
                .endRollingUpdate()
                .endStrategy()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(Labels.component(p.names().profile(), Labels.COMPONENT_EXTENDER))
                .withAnnotations(podAnnotations)
                .endMetadata()
                .withNewSpec()
                // The extender's own pods must never wait for the scheduler that depends on them.
                .withSchedulerName(Names.DEFAULT_SCHEDULER)
                .withServiceAccountName(p.names().extender())
                .withAutomountServiceAccountToken(p.extenderNeedsApi())
                .withEnableServiceLinks(false)
                .withTerminationGracePeriodSeconds(30L)
                .withSecurityContext(PodSecurity.pod())
                .withTopologySpreadConstraints(
                        PodParts.spread(
                                PodParts.HOSTNAME,
                                facts.spreadsAcrossNodes(p.extender().replicas()),
                                selector),
                        PodParts.spread("topology.kubernetes.io/zone", false, selector))
                .addNewContainer()
                .withName("extender")
                .withImage(p.extenderImage(facts))
                .withImagePullPolicy("IfNotPresent")
                .withTerminationMessagePolicy(PodParts.TERMINATION_MESSAGE_POLICY)
                .withEnv(env(p))
                .addNewPort()
                .withName("http")
                .withContainerPort(p.extenderPort())
                .withProtocol("TCP")
                .endPort()
                .addNewPort()
                .withName("health")
                .withContainerPort(Names.EXTENDER_HEALTH_PORT)
                .withProtocol("TCP")
                .endPort()
                .withLivenessProbe(PodParts.probe("HTTP", HEALTH_PORT, "/healthz", 3))
                .withReadinessProbe(PodParts.probe("HTTP", HEALTH_PORT, "/readyz", 1))
                .withStartupProbe(PodParts.startupProbe("HTTP", HEALTH_PORT, "/healthz"))
                .withResources(p.extender().resources())
                .withSecurityContext(PodSecurity.container())
                .addToVolumeMounts(PodParts.tmpMount())
                .addAllToVolumeMounts(
                        tlsOn ? List.of(PodParts.readOnlyMount(TLS_VOLUME, Names.EXTENDER_TLS_MOUNT_PATH)) : List.of())
                .endContainer()
                .addToVolumes(PodParts.tmpVolume())
                .addAllToVolumes(
                        tlsOn
                                ? List.of(PodParts.secretVolume(
                                        TLS_VOLUME, p.names().extenderTlsSecret()))
                                : List.of())
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
        return PodPlacement.applyTo(built, p.extender().placement(), selector);
    }

    private static List<EnvVar> env(ResolvedProfile p) {
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVar("SCHEDULEROPS_LABEL_KEY", p.labelKey(), null));
        env.add(new EnvVar("SCHEDULEROPS_PORT", Integer.toString(p.extenderPort()), null));
        env.add(new EnvVar("SCHEDULEROPS_HEALTH_PORT", Integer.toString(Names.EXTENDER_HEALTH_PORT), null));
        env.add(new EnvVar("SCHEDULEROPS_TLS_MODE", p.tls().extenderValue(), null));
        if (p.tls().enabled()) {
            env.add(new EnvVar("SCHEDULEROPS_TLS_CERT_FILE", tlsFile(Names.TLS_CERT), null));
            env.add(new EnvVar("SCHEDULEROPS_TLS_KEY_FILE", tlsFile(Names.TLS_KEY), null));
        }
        if (p.tls() == TlsMode.MUTUAL) {
            env.add(new EnvVar("SCHEDULEROPS_TLS_CLIENT_CA_FILE", tlsFile(Names.CLIENT_CA), null));
        }
        env.add(new EnvVar("SCHEDULEROPS_NODE_CACHE", Boolean.toString(p.extenderNeedsNodeCache()), null));
        if (p.extenderNeedsNodeCache()) {
            env.add(new EnvVar(
                    "SCHEDULEROPS_CATCH_UP_LIMIT_MS",
                    Long.toString(catchUpLimitMillis(p.extender().httpTimeout())),
                    null));
        }
        // Only the verbs the scheduler calls are served (every other path answers 404), and Bind binds only pods
        // that name this profile's scheduler.
        env.add(new EnvVar(
                "SCHEDULEROPS_VERBS",
                p.verbs().stream().map(ExtenderRenderer::crdName).collect(Collectors.joining(",")),
                null));
        env.add(new EnvVar("SCHEDULEROPS_SCHEDULER_NAME", p.schedulerName(), null));
        env.add(new EnvVar("SCHEDULEROPS_LOG_FORMAT", "json", null));
        env.add(new EnvVar("JAVA_TOOL_OPTIONS", p.extender().javaToolOptions(), null));
        return env;
    }

    /**
     * How long a filter call may wait for the extender's node cache to catch up with the API server before it rejects
     * every node: 1 s, or half of kube-scheduler's httpTimeout when that is shorter, so that the call is always
     * answered before kube-scheduler gives up on it.
     */
    static long catchUpLimitMillis(String httpTimeout) {
        long timeoutMillis = GoDuration.parseNanos(httpTimeout).orElse(5_000_000_000L) / 1_000_000;
        return Math.max(1, Math.min(1000, timeoutMillis / 2));
    }

    /** A verb as the CRD and the extender's SCHEDULEROPS_VERBS spell it ("FilterOnlyOne"). */
    private static String crdName(Verb verb) {
        try {
            return Verb.class
                    .getField(verb.name())
                    .getAnnotation(JsonProperty.class)
                    .value();
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String tlsFile(String key) {
        return Names.EXTENDER_TLS_MOUNT_PATH + "/" + key;
    }

    private static HasMetadata service(ResolvedProfile p, Map<String, String> selector) {
        return new ServiceBuilder()
                .withMetadata(ObjectMetas.of(p, p.names().extender(), Labels.COMPONENT_EXTENDER))
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(selector)
                .addNewPort()
                .withName("http")
                .withPort(p.extenderPort())
                .withTargetPort(HTTP_PORT)
                .withProtocol("TCP")
                .endPort()
                .addNewPort()
                .withName("metrics")
                .withPort(Names.EXTENDER_HEALTH_PORT)
                .withTargetPort(HEALTH_PORT)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build();
    }
}
