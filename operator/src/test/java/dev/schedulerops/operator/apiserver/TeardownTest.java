package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Deleting a profile removes the scheduler first, then the extender, then the cluster-scoped RBAC. */
@ExtendWith(ApiServerTier.class)
class TeardownTest {

    @Test
    void deletionGoesSchedulerThenExtenderThenClusterScopedRbac(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank\nverbs: [Filter, Prioritize, Bind]");
        Deployment scheduler = tier.deployment(names.scheduler());
        Deployment extender = tier.deployment(names.extender());
        tier.garbageCollector().hold(scheduler);
        tier.garbageCollector().hold(extender);

        tier.profile("p").delete();

        // Step 1: the scheduler goes; nothing of the extender is touched yet.
        Eventually.until(
                "the scheduler Deployment is being deleted", () -> deleting(tier.deployment(names.scheduler())));
        Eventually.until("the scheduler ConfigMap is gone", () -> tier.configMap(names.schedulerConfig()) == null);
        assertThat(deleting(tier.deployment(names.extender()))).isFalse();
        assertThat(tier.client()
                        .serviceAccounts()
                        .inNamespace(tier.namespace())
                        .withName(names.extender())
                        .get())
                .isNotNull();

        // Step 2, once the scheduler's pods are gone: the extender and the namespaced RBAC.
        tier.garbageCollector().release(scheduler);
        Eventually.until("the scheduler Deployment is gone", () -> tier.deployment(names.scheduler()) == null);
        Eventually.until("the extender Deployment is being deleted", () -> deleting(tier.deployment(names.extender())));
        Eventually.until(
                "the extender ServiceAccount is gone",
                () -> tier.client()
                                .serviceAccounts()
                                .inNamespace(tier.namespace())
                                .withName(names.extender())
                                .get()
                        == null);
        assertThat(tier.client()
                        .rbac()
                        .clusterRoleBindings()
                        .withName(names.extenderNodesBinding())
                        .get())
                .as("cluster-scoped RBAC waits for the extender")
                .isNotNull();
        assertThat(tier.client()
                        .rbac()
                        .clusterRoleBindings()
                        .withName(names.kubeSchedulerBinding())
                        .get())
                .isNotNull();

        // Step 3: the cluster-scoped RBAC and the RoleBinding in kube-system, then the profile itself.
        tier.garbageCollector().release(extender);
        Eventually.until(
                "the cluster-scoped RBAC is gone",
                () -> tier.client()
                                        .rbac()
                                        .clusterRoleBindings()
                                        .withName(names.extenderNodesBinding())
                                        .get()
                                == null
                        && tier.client()
                                        .rbac()
                                        .clusterRoleBindings()
                                        .withName(names.kubeSchedulerBinding())
                                        .get()
                                == null
                        && tier.client()
                                        .rbac()
                                        .clusterRoleBindings()
                                        .withName(names.volumeSchedulerBinding())
                                        .get()
                                == null
                        && tier.client()
                                        .rbac()
                                        .roleBindings()
                                        .inNamespace(Names.KUBE_SYSTEM)
                                        .withName(names.authReaderBinding())
                                        .get()
                                == null);
        Eventually.until("the profile is gone", () -> tier.profile("p").get() == null);
    }

    private static boolean deleting(Deployment deployment) {
        return deployment != null && deployment.getMetadata().getDeletionTimestamp() != null;
    }
}
