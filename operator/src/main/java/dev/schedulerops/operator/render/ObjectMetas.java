package dev.schedulerops.operator.render;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.ResolvedProfile;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

/** Metadata of every rendered object: its name, its namespace (null for cluster-scoped) and the profile's labels. */
final class ObjectMetas {
    private ObjectMetas() {}

    static ObjectMeta of(ResolvedProfile p, String name, String namespace, String component) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(Labels.component(p.names().profile(), component))
                .build();
    }

    /** A namespaced object in the workload namespace. */
    static ObjectMeta of(ResolvedProfile p, String name, String component) {
        return of(p, name, p.names().namespace(), component);
    }
}
