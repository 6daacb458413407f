package dev.schedulerops.operator.render;

import dev.schedulerops.operator.api.Verb;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.ResolvedProfile;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * Least-privilege RBAC, as bindings to roles the install ships (deploy/rbac/profile-roles.yaml), so the operator
 * needs {@code bind} on them, not their powers: the scheduler gets {@link Names#SCHEDULER_CLUSTER_ROLE} (what
 * {@code system:kube-scheduler} grants without the default scheduler's own lease) and {@code system:volume-scheduler},
 * a Role for its own lease, and read access to the authentication ConfigMap in kube-system; the extender gets only
 * what its verbs use (node reads for its node cache, the binder role for Bind), none at all otherwise.
 */
final class RbacRenderer {
    private static final String RBAC_GROUP = "rbac.authorization.k8s.io";

    private RbacRenderer() {}

    static List<HasMetadata> scheduler(ResolvedProfile p) {
        Names n = p.names();
        Subject sa = serviceAccount(n.scheduler(), n.namespace());
        List<HasMetadata> objects = new ArrayList<>();
        objects.add(clusterRoleBinding(
                p, n.kubeSchedulerBinding(), Names.SCHEDULER_CLUSTER_ROLE, sa, Labels.COMPONENT_SCHEDULER));
        objects.add(clusterRoleBinding(
                p, n.volumeSchedulerBinding(), Names.VOLUME_SCHEDULER_CLUSTER_ROLE, sa, Labels.COMPONENT_SCHEDULER));
        objects.add(new RoleBuilder()
                .withMetadata(ObjectMetas.of(p, n.schedulerLease(), Labels.COMPONENT_SCHEDULER))
                .withRules(
                        // create cannot be limited to a resource name; get/update are limited to the own lease.
                        rule("coordination.k8s.io", "leases", List.of(), "create"),
                        rule("coordination.k8s.io", "leases", List.of(n.schedulerLease()), "get", "update"))
                .build());
        objects.add(new RoleBindingBuilder()
                .withMetadata(ObjectMetas.of(p, n.schedulerLease(), Labels.COMPONENT_SCHEDULER))
                .withNewRoleRef(RBAC_GROUP, "Role", n.schedulerLease())
                .withSubjects(sa)
                .build());
        objects.add(new RoleBindingBuilder()
                .withMetadata(ObjectMetas.of(p, n.authReaderBinding(), Names.KUBE_SYSTEM, Labels.COMPONENT_SCHEDULER))
                .withNewRoleRef(RBAC_GROUP, "Role", Names.AUTH_READER_ROLE)
                .withSubjects(sa)
                .build());
        return objects;
    }

    static List<HasMetadata> extender(ResolvedProfile p) {
        Names n = p.names();
        Subject sa = serviceAccount(n.extender(), n.namespace());
        List<HasMetadata> objects = new ArrayList<>();
        if (p.extenderNeedsNodeCache()) {
            objects.add(clusterRoleBinding(
                    p, n.extenderNodesBinding(), Names.EXTENDER_NODES_CLUSTER_ROLE, sa, Labels.COMPONENT_EXTENDER));
        }
        if (p.has(Verb.BIND)) {
            objects.add(clusterRoleBinding(
                    p, n.extenderBinderBinding(), Names.EXTENDER_BINDER_CLUSTER_ROLE, sa, Labels.COMPONENT_EXTENDER));
        }
        return objects;
    }

    private static HasMetadata clusterRoleBinding(
            ResolvedProfile p, String name, String clusterRole, Subject subject, String component) {
        return new ClusterRoleBindingBuilder()
                .withMetadata(ObjectMetas.of(p, name, null, component))
                .withNewRoleRef(RBAC_GROUP, "ClusterRole", clusterRole)
                .withSubjects(subject)
                .build();
    }

    private static Subject serviceAccount(String name, String namespace) {
        return new SubjectBuilder()
                .withKind("ServiceAccount")
                .withName(name)
                .withNamespace(namespace)
                .build();
    }

    private static PolicyRule rule(String group, String resource, List<String> names, String... verbs) {
        return new PolicyRuleBuilder()
                .withApiGroups(group)
                .withResources(resource)
                .withResourceNames(names.isEmpty() ? null : names)
                .withVerbs(verbs)
                .build();
    }
}
