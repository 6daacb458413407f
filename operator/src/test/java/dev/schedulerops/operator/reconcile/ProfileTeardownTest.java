package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class ProfileTeardownTest {
    KubernetesClient client;

    SchedulerProfile profile;

    static ObjectMeta meta(String name, String namespace, String profile, String component) {
        ObjectMetaBuilder builder = new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(Labels.component(profile, component));
        return builder.build();
    }

    @BeforeEach
    void createWhatAProfileBecame() {
        profile = new SchedulerProfile();
        profile.setMetadata(new ObjectMetaBuilder().withName("p").build());
        List<HasMetadata> objects = List.of(
                new DeploymentBuilder()
                        .withMetadata(meta("p-scheduler", "ops", "p", Labels.COMPONENT_SCHEDULER))
                        .build(),
                new ConfigMapBuilder()
                        .withMetadata(meta("p-scheduler-config", "ops", "p", Labels.COMPONENT_SCHEDULER))
                        .build(),
                new DeploymentBuilder()
                        .withMetadata(meta("p-extender", "ops", "p", Labels.COMPONENT_EXTENDER))
                        .build(),
                new ServiceAccountBuilder()
                        .withMetadata(meta("p-extender", "ops", "p", Labels.COMPONENT_EXTENDER))
                        .build(),
                new ClusterRoleBindingBuilder()
                        .withMetadata(meta("schedulerops:p:extender-nodes", null, "p", Labels.COMPONENT_EXTENDER))
                        .build(),
                new RoleBindingBuilder()
                        .withMetadata(meta("schedulerops:p:auth-reader", "kube-system", "p", "scheduler"))
                        .build(),
                // Another profile's object: never touched.
                new ClusterRoleBindingBuilder()
                        .withMetadata(meta("schedulerops:q:extender-nodes", null, "q", Labels.COMPONENT_EXTENDER))
                        .build());
        objects.forEach(o -> client.resource(o).create());
    }

    @Test
    void deletesSchedulerThenExtenderThenClusterScopedObjects() {
        ProfileTeardown teardown = new ProfileTeardown(client, "ops");

        assertThat(teardown.advance(profile)).isFalse();
        assertThat(client.apps()
                        .deployments()
                        .inNamespace("ops")
                        .withName("p-scheduler")
                        .get())
                .isNull();
        assertThat(client.configMaps()
                        .inNamespace("ops")
                        .withName("p-scheduler-config")
                        .get())
                .isNull();
        assertThat(client.apps()
                        .deployments()
                        .inNamespace("ops")
                        .withName("p-extender")
                        .get())
                .isNotNull();

        assertThat(teardown.advance(profile)).isFalse();
        assertThat(client.apps()
                        .deployments()
                        .inNamespace("ops")
                        .withName("p-extender")
                        .get())
                .isNull();
        assertThat(client.serviceAccounts()
                        .inNamespace("ops")
                        .withName("p-extender")
                        .get())
                .isNull();
        assertThat(client.rbac()
                        .clusterRoleBindings()
                        .withName("schedulerops:p:extender-nodes")
                        .get())
                .isNotNull();

        assertThat(teardown.advance(profile)).isFalse();
        assertThat(client.rbac()
                        .clusterRoleBindings()
                        .withName("schedulerops:p:extender-nodes")
                        .get())
                .isNull();
        assertThat(client.rbac()
                        .roleBindings()
                        .inNamespace("kube-system")
                        .withName("schedulerops:p:auth-reader")
                        .get())
                .isNull();

        assertThat(teardown.advance(profile)).isTrue();
        assertThat(client.rbac()
                        .clusterRoleBindings()
                        .withName("schedulerops:q:extender-nodes")
                        .get())
                .isNotNull();
    }
}
