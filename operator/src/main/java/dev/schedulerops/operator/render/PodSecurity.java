package dev.schedulerops.operator.render;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;

/** Security contexts that pass the `restricted` Pod Security Standard. */
public final class PodSecurity {
    /** The non-root user of the distroless and Jib images. */
    public static final long NON_ROOT_UID = 65532L;

    private PodSecurity() {}

    public static PodSecurityContext pod() {
        return new PodSecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withRunAsUser(NON_ROOT_UID)
                .withRunAsGroup(NON_ROOT_UID)
                .withFsGroup(NON_ROOT_UID)
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .build();
    }

    public static SecurityContext container() {
        return new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(true)
                .withRunAsNonRoot(true)
                .withNewCapabilities()
                .addToDrop("ALL")
                .endCapabilities()
                .build();
    }
}
