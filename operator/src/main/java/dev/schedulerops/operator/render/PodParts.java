package dev.schedulerops.operator.render;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.Map;

/**
 * Pieces both generated pods share: their probes, a writable /tmp under a read-only root filesystem, the spread over
 * nodes and the PodDisruptionBudget of a component with more than one replica.
 */
final class PodParts {
    private static final String TMP = "tmp";

    /** Startup probe tries, one every 2 s. */
    static final int STARTUP_TRIES = 90;

    private PodParts() {}

    /** An HTTP(S) GET probe every 10 s that gives up after {@code failureThreshold} failures. */
    static Probe probe(String scheme, IntOrString port, String path, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath(path)
                .withPort(port)
                .withScheme(scheme)
                .endHttpGet()
                .withPeriodSeconds(10)
                .withTimeoutSeconds(2)
                .withFailureThreshold(failureThreshold)
                .build();
    }

    /**
     * Allows three minutes to start (90 tries every 2 s) before liveness takes over. A JVM's start costs a few seconds
     * of CPU, and on a busy node a pod gets little more than its CPU request (100m by default): there the extender
     * has taken over a minute to answer /healthz. A shorter window kills a pod that is only starting slowly, and the
     * restart costs the same CPU again; a pod that answers sooner is probed live at once.
     */
    static Probe startupProbe(String scheme, IntOrString port, String path) {
        return new ProbeBuilder(probe(scheme, port, path, STARTUP_TRIES))
                .withPeriodSeconds(2)
                .build();
    }

    static VolumeMount tmpMount() {
        return new VolumeMountBuilder().withName(TMP).withMountPath("/tmp").build();
    }

    /**
     * Bounded: the JVM writes a few small files there (its perf data), kube-scheduler none; past the bound the kubelet
     * evicts the pod rather than let it fill the node. Nothing that could hold a key is written there: the JVMs
     * neither dump their heap nor core (see the images' flags) and the allowed jvm.options cannot ask them to.
     */
    static final Quantity TMP_SIZE_LIMIT = new Quantity("16Mi");

    /**
     * Secret files (keys) readable by their owner only. With the pods' fsGroup the kubelet makes them group-readable
     * by that group (0440, group 65532), which the non-root containers are in.
     */
    static final int SECRET_MODE = 0400;

    static Volume tmpVolume() {
        return new VolumeBuilder()
                .withName(TMP)
                .withNewEmptyDir()
                .withSizeLimit(TMP_SIZE_LIMIT)
                .endEmptyDir()
                .build();
    }

    /**
     * Neither kube-scheduler nor the JVM writes /dev/termination-log: with this policy the kubelet keeps the end of
     * the log of a failed container as its termination message, which the profile's status then quotes (a
     * scheduler's fatal config error, an extender's stack trace).
     */
    static final String TERMINATION_MESSAGE_POLICY = "FallbackToLogsOnError";

    static final String HOSTNAME = "kubernetes.io/hostname";

    /**
     * A spread of the component's pods over {@code topologyKey} with skew 1. Cordoned and tainted nodes are left out of
     * the count (nodeTaintsPolicy Honor): otherwise the node a drain empties would hold the minimum and a required
     * spread would leave the evicted pod Pending.
     */
    static VolumeMount readOnlyMount(String volume, String path) {
        return new VolumeMountBuilder()
                .withName(volume)
                .withMountPath(path)
                .withReadOnly(true)
                .build();
    }

    /** A Secret's keys as files of mode {@link #SECRET_MODE}. */
    static Volume secretVolume(String volume, String secretName) {
        return new VolumeBuilder()
                .withName(volume)
                .withNewSecret()
                .withSecretName(secretName)
                .withDefaultMode(SECRET_MODE)
                .endSecret()
                .build();
    }

    static TopologySpreadConstraint spread(String topologyKey, boolean required, Map<String, String> selector) {
        return new TopologySpreadConstraintBuilder()
                .withMaxSkew(1)
                .withTopologyKey(topologyKey)
                .withWhenUnsatisfiable(required ? "DoNotSchedule" : "ScheduleAnyway")
                .withNodeTaintsPolicy(required ? "Honor" : null)
                .withNewLabelSelector()
                .withMatchLabels(selector)
                .endLabelSelector()
                .build();
    }

    /** At most one of the component's pods down by a voluntary disruption (a drain) at a time. */
    static PodDisruptionBudget podDisruptionBudget(ObjectMeta meta, Map<String, String> selector) {
        return new PodDisruptionBudgetBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector()
                .withMatchLabels(selector)
                .endSelector()
                .endSpec()
                .build();
    }
}
