package dev.schedulerops.operator.reconcile;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The one list of kinds a profile becomes. {@link OwnedInformers} watches each, {@link ResourceApplier} applies only
 * these, and {@link ProfileTeardown} derives its steps from them, so a kind the renderer starts producing must be added
 * here once, and {@code OwnedKindTest} fails until it is.
 *
 * <p>The declaration order is the deletion order within one teardown step: workloads before what they use.
 */
public enum OwnedKind {
    DEPLOYMENT(Deployment.class, Scope.NAMESPACED, EnumSet.of(Stage.EXTENDER, Stage.SCHEDULER), false),
    POD_DISRUPTION_BUDGET(
            PodDisruptionBudget.class, Scope.NAMESPACED, EnumSet.of(Stage.EXTENDER, Stage.SCHEDULER), false),
    SERVICE(Service.class, Scope.NAMESPACED, EnumSet.of(Stage.EXTENDER), false),
    NETWORK_POLICY(NetworkPolicy.class, Scope.NAMESPACED, EnumSet.of(Stage.EXTENDER), false),
    CONFIG_MAP(ConfigMap.class, Scope.NAMESPACED, EnumSet.of(Stage.SCHEDULER), false),
    CLUSTER_ROLE_BINDING(ClusterRoleBinding.class, Scope.CLUSTER, EnumSet.of(Stage.EXTENDER), false),
    ROLE_BINDING(RoleBinding.class, Scope.NAMESPACED, EnumSet.of(Stage.EXTENDER), true),
    ROLE(Role.class, Scope.NAMESPACED, EnumSet.of(Stage.EXTENDER), false),
    SERVICE_ACCOUNT(ServiceAccount.class, Scope.NAMESPACED, EnumSet.of(Stage.EXTENDER), false),
    /** The TLS Secrets: written by {@code ProfileTls} before stage 1, not rendered (the renderer never sees keys). */
    SECRET(Secret.class, Scope.NAMESPACED, EnumSet.of(Stage.EXTENDER, Stage.SCHEDULER), false);

    public enum Scope {
        NAMESPACED,
        CLUSTER
    }

    /** The rollout stage that applies objects of a kind; see {@code DesiredState}. */
    public enum Stage {
        /** ServiceAccounts, RBAC and the extender: applied first. */
        EXTENDER,
        /** The scheduler's ConfigMap and Deployment: applied once the extender is available, deleted first. */
        SCHEDULER
    }

    private final Class<? extends HasMetadata> type;
    private final Scope scope;
    private final Set<Stage> stages;
    private final boolean alsoInKubeSystem;

    OwnedKind(Class<? extends HasMetadata> type, Scope scope, Set<Stage> stages, boolean alsoInKubeSystem) {
        this.type = type;
        this.scope = scope;
        this.stages = Set.copyOf(stages);
        this.alsoInKubeSystem = alsoInKubeSystem;
    }

    public Class<? extends HasMetadata> type() {
        return type;
    }

    public Scope scope() {
        return scope;
    }

    /** The stages whose objects include this kind. */
    public Set<Stage> stages() {
        return stages;
    }

    /**
     * Whether objects of this kind may live in kube-system rather than the workload namespace (the RoleBinding to the
     * authentication reader); teardown deletes them with the cluster-scoped objects, after the workloads.
     */
    public boolean alsoInKubeSystem() {
        return alsoInKubeSystem;
    }

    public static Optional<OwnedKind> of(Class<?> type) {
        return Arrays.stream(values()).filter(k -> k.type.equals(type)).findFirst();
    }

    /** The kind of {@code object}; fails for an object of a kind not declared here. */
    public static OwnedKind of(HasMetadata object) {
        return of(object.getClass())
                .orElseThrow(() -> new IllegalArgumentException(object.getKind() + " is not an owned kind: declare "
                        + object.getClass().getName() + " in " + OwnedKind.class.getName()));
    }
}
