package dev.schedulerops.operator.runtime;

import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.reconcile.OwnedKind;
import dev.schedulerops.operator.reconcile.ProfileMetrics;
import dev.schedulerops.operator.validation.SupportedVersions;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The operator's own series about its profiles and its work, named and labelled as Prometheus expects: one series per
 * profile (label {@code schedulerprofile}; profiles are few, created by the cluster's administrators), condition
 * reasons and kinds from fixed vocabularies, never a pod's name. The per-profile series are rebuilt from {@link
 * ProfileMetrics} each time {@code /metrics} is scraped ({@link #refresh}), so a deleted profile's series go with it.
 * Every metric is listed, with what to do when it alerts, in deploy/README.md, "Monitoring".
 */
final class OperatorMetrics {
    static final String PROFILE = "schedulerprofile";

    private final ProfileMetrics profiles;
    private final Supplier<String> kubernetesVersion;
    private final MultiGauge ready;
    private final MultiGauge readyReason;
    private final MultiGauge labelledNodes;
    private final MultiGauge httpTimeout;
    private final MultiGauge certificateExpiry;
    private final MultiGauge version;
    private final MeterRegistry registry;

    OperatorMetrics(
            MeterRegistry registry,
            ProfileMetrics profiles,
            Supplier<String> kubernetesVersion,
            BooleanSupplier leader) {
        this.registry = registry;
        this.profiles = profiles;
        this.kubernetesVersion = kubernetesVersion;
        this.ready = MultiGauge.builder("schedulerops.profile.ready")
                .description("1 when the profile's Ready condition is True, else 0 (as last reconciled by this"
                        + " instance: the leader)")
                .register(registry);
        this.readyReason = MultiGauge.builder("schedulerops.profile.ready.reason")
                .description("1 for the reason of the profile's Ready condition (one series per profile)")
                .register(registry);
        this.labelledNodes = MultiGauge.builder("schedulerops.profile.labelled.nodes")
                .description("Nodes that carry the profile's labelKey (status.labelledNodes)")
                .register(registry);
        this.httpTimeout = MultiGauge.builder("schedulerops.profile.extender.http.timeout")
                .description("The scheduler's timeout for one call to the profile's extender"
                        + " (spec.extender.httpTimeout)")
                .baseUnit("seconds")
                .register(registry);
        this.certificateExpiry = MultiGauge.builder("schedulerops.profile.certificate.expiry.timestamp")
                .description("notAfter of each certificate in the profile's TLS Secrets (ca, extender-serving,"
                        + " scheduler-client), in seconds since the epoch; the operator renews them long before")
                .baseUnit("seconds")
                .register(registry);
        this.version = MultiGauge.builder("schedulerops.kubernetes.version.info")
                .description("1, labelled with the API server's version the operator last read and whether the"
                        + " operator supports it (a profile is refused on an unsupported version)")
                .register(registry);
        Gauge.builder("schedulerops.build.info", () -> 1)
                .description("1, labelled with the operator's version")
                .tag("version", ClusterFacts.BuildInfo.version())
                .register(registry);
        Gauge.builder("schedulerops.leader", () -> leader.getAsBoolean() ? 1 : 0)
                .description("1 when this instance holds the leader lease and reconciles, 0 on a standby")
                .register(registry);
        for (OwnedKind kind : OwnedKind.values()) {
            String name = kind.type().getSimpleName();
            FunctionCounter.builder("schedulerops.apply.failures", profiles, p -> p.applyFailures(name))
                    .description("Applies the API server refused (RBAC, an admission webhook or policy, a quota), by"
                            + " kind of object; the profile's Ready says which object and why")
                    .tag("kind", name)
                    .register(registry);
        }
    }

    /** The HTTP port's connections, and those its guard closed, by why (see {@link HttpEndpoints}). */
    void httpGuard(dev.schedulerops.httpguard.ConnectionGuard guard) {
        Gauge.builder("schedulerops.http.connections", guard::open)
                .description("Connections the operator's HTTP port (probes, metrics) holds now")
                .strongReference(true)
                .register(registry);
        for (dev.schedulerops.httpguard.ConnectionGuard.Reason reason :
                dev.schedulerops.httpguard.ConnectionGuard.Reason.values()) {
            FunctionCounter.builder("schedulerops.http.connections.closed", guard, g -> g.closed(reason))
                    .description("HTTP-port connections the guard closed: per_source (a source past its share),"
                            + " total (the port full), lifetime (open too long)")
                    .tag("reason", reason.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry);
        }
    }

    /** Rebuilds the per-profile series from what the reconciler last recorded. */
    void refresh() {
        List<MultiGauge.Row<?>> readyRows = new ArrayList<>();
        List<MultiGauge.Row<?>> reasonRows = new ArrayList<>();
        List<MultiGauge.Row<?>> nodeRows = new ArrayList<>();
        List<MultiGauge.Row<?>> timeoutRows = new ArrayList<>();
        List<MultiGauge.Row<?>> certificateRows = new ArrayList<>();
        for (ProfileMetrics.Profile p : profiles.profiles()) {
            Tags tags = Tags.of(PROFILE, p.name());
            readyRows.add(MultiGauge.Row.of(tags, p.ready() ? 1 : 0));
            reasonRows.add(MultiGauge.Row.of(tags.and("reason", p.readyReason()), 1));
            nodeRows.add(MultiGauge.Row.of(tags, p.labelledNodes()));
            p.extenderHttpTimeoutSeconds().ifPresent(t -> timeoutRows.add(MultiGauge.Row.of(tags, t)));
            p.certificateExpiries()
                    .forEach((certificate, notAfter) -> certificateRows.add(
                            MultiGauge.Row.of(tags.and("certificate", certificate), notAfter.getEpochSecond())));
        }
        ready.register(readyRows, true);
        readyReason.register(reasonRows, true);
        labelledNodes.register(nodeRows, true);
        httpTimeout.register(timeoutRows, true);
        certificateExpiry.register(certificateRows, true);
        String current = kubernetesVersion.get();
        version.register(
                List.of(MultiGauge.Row.of(
                        Tags.of(
                                "version",
                                current,
                                "supported",
                                Boolean.toString(
                                        SupportedVersions.refusal(current).isEmpty())),
                        1)),
                true);
    }
}
