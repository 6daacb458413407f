package dev.schedulerops.operator.render;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

/** Pieces both generated pods share: their probes, and a writable /tmp under a read-only root filesystem. */
final class PodParts {
    private static final String TMP = "tmp";

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

    /** Allows a minute to start (30 tries every 2 s) before liveness takes over. */
    static Probe startupProbe(String scheme, IntOrString port, String path) {
        return new ProbeBuilder(probe(scheme, port, path, 30))
                .withPeriodSeconds(2)
                .build();
    }

    static VolumeMount tmpMount() {
        return new VolumeMountBuilder().withName(TMP).withMountPath("/tmp").build();
    }

    static Volume tmpVolume() {
        return new VolumeBuilder().withName(TMP).withNewEmptyDir().endEmptyDir().build();
    }
}
