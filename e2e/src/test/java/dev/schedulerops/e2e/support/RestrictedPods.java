package dev.schedulerops.e2e.support;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import java.util.Map;

/**
 * The pods the e2e tests create themselves, each admitted by a namespace that enforces the restricted Pod Security
 * Standard: non-root, RuntimeDefault seccomp, no privilege escalation, every capability dropped.
 */
public final class RestrictedPods {
    /** The taint every KWOK node carries once a real node joins: only pods that tolerate it go to KWOK nodes. */
    public static final String KWOK_TAINT = "kwok.x-k8s.io/node";

    private RestrictedPods() {}

    /** A pod for {@code schedulerName} to place, tolerating the KWOK taint (KWOK never runs its container). */
    public static Pod forScheduler(String namespace, String name, String schedulerName) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withSpec(restrictedSpec()
                        .withSchedulerName(schedulerName)
                        .addNewToleration()
                        .withKey(KWOK_TAINT)
                        .withOperator("Exists")
                        .withEffect("NoSchedule")
                        .endToleration()
                        .addNewContainer()
                        .withName("app")
                        .withImage("registry.k8s.io/pause:3.10")
                        .withNewResources()
                        .addToRequests("cpu", new Quantity("10m"))
                        .endResources()
                        .withSecurityContext(containerSecurityContext())
                        .endContainer()
                        .build())
                .build();
    }

    /**
     * A pod that sleeps in {@code image} (one of the product's, which has bash) on the real node, read-only, with no
     * ServiceAccount token: a client that tests exec into.
     */
    public static Pod client(String namespace, String name, String image, Map<String, String> labels) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(labels)
                .endMetadata()
                .withSpec(restrictedSpec()
                        .withAutomountServiceAccountToken(false)
                        .withTerminationGracePeriodSeconds(0L)
                        .addNewContainer()
                        .withName("client")
                        .withImage(image)
                        .withCommand("sleep", "infinity")
                        .withNewResources()
                        .addToRequests("cpu", new Quantity("10m"))
                        .addToRequests("memory", new Quantity("16Mi"))
                        .addToLimits("memory", new Quantity("64Mi"))
                        .endResources()
                        .withSecurityContext(containerSecurityContext())
                        .endContainer()
                        .build())
                .build();
    }

    private static PodSpecBuilder restrictedSpec() {
        return new PodSpecBuilder()
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withRunAsUser(65532L)
                .withRunAsGroup(65532L)
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext();
    }

    private static SecurityContext containerSecurityContext() {
        return new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(true)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .build();
    }
}
