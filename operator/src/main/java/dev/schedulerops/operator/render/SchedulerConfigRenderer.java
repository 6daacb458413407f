package dev.schedulerops.operator.render;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.operator.api.ExternalExtender;
import dev.schedulerops.operator.api.ExternalExtenderTls;
import dev.schedulerops.operator.api.ManagedResource;
import dev.schedulerops.operator.api.PluginConfig;
import dev.schedulerops.operator.api.Plugins;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.api.Verb;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.model.SchedulerConfigApi;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders the KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) of a profile: one scheduling profile named
 * schedulerName, one extender pointing at the profile's extender Service, leader election on a lease of its own.
 * kube-scheduler decodes this strictly, so the records below carry exactly its field names and nothing else; their
 * null fields are left out by {@link Yaml#MAPPER}, the only writer of these records.
 */
public final class SchedulerConfigRenderer {
    private SchedulerConfigRenderer() {}

    /** Renders even profiles the validator rejects, so that the real kube-scheduler can be asked about them too. */
    public static String render(SchedulerProfile profile) {
        return render(ResolvedProfile.of(profile));
    }

    public static String render(ResolvedProfile p) {
        return Yaml.write(configuration(p));
    }

    static KubeSchedulerConfiguration configuration(ResolvedProfile p) {
        var s = p.scheduler();
        var leaderElection = new LeaderElection(
                s.leaderElect(),
                s.leaseDuration(),
                s.renewDeadline(),
                s.retryPeriod(),
                "leases",
                p.names().schedulerLease(),
                p.names().namespace());
        var profile = new Profile(
                p.schedulerName(),
                p.plugins(),
                p.pluginConfig().isEmpty()
                        ? null
                        : p.pluginConfig().stream()
                                .map(SchedulerConfigRenderer::pluginConfig)
                                .toList());
        return new KubeSchedulerConfiguration(
                SchedulerConfigApi.API_VERSION,
                SchedulerConfigApi.KIND,
                leaderElection,
                positiveOrNull(s.percentageOfNodesToScore()),
                s.parallelism(),
                s.podInitialBackoffSeconds(),
                s.podMaxBackoffSeconds(),
                List.of(profile),
                extenders(p));
    }

    /** The bundled extender first (with a labelKey), then the user's own in their order; null for none. */
    private static List<Extender> extenders(ResolvedProfile p) {
        List<Extender> extenders = new ArrayList<>();
        if (p.bundledExtender()) {
            extenders.add(extender(p));
        }
        p.externalExtenders().forEach(e -> extenders.add(external(e)));
        return extenders.isEmpty() ? null : extenders;
    }

    private static Extender external(ExternalExtender e) {
        ExternalExtenderTls tls = e.getTlsConfig();
        return new Extender(
                e.getUrlPrefix(),
                e.getFilterVerb(),
                e.getPreemptVerb(),
                e.getPrioritizeVerb(),
                e.getWeight(),
                e.getBindVerb(),
                Boolean.TRUE.equals(e.getEnableHTTPS()),
                tls == null
                        ? null
                        : new TlsConfig(
                                null,
                                null,
                                null,
                                Boolean.TRUE.equals(tls.getInsecure()) ? Boolean.TRUE : null,
                                tls.getServerName(),
                                tls.getCaData()),
                e.getHttpTimeout(),
                Boolean.TRUE.equals(e.getNodeCacheCapable()),
                managedResources(e.getManagedResources()),
                Boolean.TRUE.equals(e.getIgnorable()));
    }

    private static Extender extender(ResolvedProfile p) {
        var e = p.extender();
        boolean prioritize = p.has(Verb.PRIORITIZE);
        return new Extender(
                p.extenderUrl(),
                p.filterVerb().map(Verb::path).orElse(null),
                p.has(Verb.PREEMPT) ? Verb.PREEMPT.path() : null,
                prioritize ? Verb.PRIORITIZE.path() : null,
                // kube-scheduler requires weight > 0 only with prioritizeVerb; without it the weight means nothing.
                prioritize ? (long) p.weight() : null,
                p.has(Verb.BIND) ? Verb.BIND.path() : null,
                p.tls().enabled(),
                tlsConfig(p.tls()),
                e.httpTimeout(),
                e.nodeCacheCapable(),
                managedResources(e.managedResources()),
                e.ignorable());
    }

    /**
     * The files of the scheduler's extender-client Secret. caFile always (enableHTTPS without a CA would skip
     * verification, facts.md); the client certificate only in mode Mutual.
     */
    private static TlsConfig tlsConfig(TlsMode mode) {
        if (!mode.enabled()) {
            return null;
        }
        String dir = Names.SCHEDULER_TLS_MOUNT_PATH + "/";
        boolean mutual = mode == TlsMode.MUTUAL;
        return new TlsConfig(
                dir + Names.CA_CERT,
                mutual ? dir + Names.TLS_CERT : null,
                mutual ? dir + Names.TLS_KEY : null,
                null,
                null,
                null);
    }

    /** Left out (null) when empty: the extender is then asked about every pod. */
    private static List<ExtenderManagedResource> managedResources(List<ManagedResource> resources) {
        return resources == null || resources.isEmpty()
                ? null
                : resources.stream()
                        .map(r -> new ExtenderManagedResource(
                                r.getName(), Boolean.TRUE.equals(r.getIgnoredByScheduler())))
                        .toList();
    }

    private static PluginConfigEntry pluginConfig(PluginConfig c) {
        return new PluginConfigEntry(c.getName(), c.getArgs());
    }

    private static Integer positiveOrNull(Integer value) {
        return value == null || value == 0 ? null : value;
    }

    @JsonPropertyOrder({
        "apiVersion",
        "kind",
        "leaderElection",
        "percentageOfNodesToScore",
        "parallelism",
        "podInitialBackoffSeconds",
        "podMaxBackoffSeconds",
        "profiles",
        "extenders"
    })
    record KubeSchedulerConfiguration(
            String apiVersion,
            String kind,
            LeaderElection leaderElection,
            Integer percentageOfNodesToScore,
            Integer parallelism,
            Integer podInitialBackoffSeconds,
            Integer podMaxBackoffSeconds,
            List<Profile> profiles,
            List<Extender> extenders) {}

    record LeaderElection(
            boolean leaderElect,
            String leaseDuration,
            String renewDeadline,
            String retryPeriod,
            String resourceLock,
            String resourceName,
            String resourceNamespace) {}

    record Profile(String schedulerName, Plugins plugins, List<PluginConfigEntry> pluginConfig) {}

    record PluginConfigEntry(String name, JsonNode args) {}

    record Extender(
            String urlPrefix,
            String filterVerb,
            String preemptVerb,
            String prioritizeVerb,
            Long weight,
            String bindVerb,
            boolean enableHTTPS,
            TlsConfig tlsConfig,
            String httpTimeout,
            boolean nodeCacheCapable,
            List<ExtenderManagedResource> managedResources,
            boolean ignorable) {}

    /** kube-scheduler's tlsConfig; caData is base64 in YAML, as Go encodes its []byte. */
    record TlsConfig(
            String caFile, String certFile, String keyFile, Boolean insecure, String serverName, String caData) {}

    record ExtenderManagedResource(String name, boolean ignoredByScheduler) {}
}
