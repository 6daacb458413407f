package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.schedulerops.operator.api.SchedulerProfile;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class ProfileEventsTest {
    KubernetesClient client;

    @Test
    void eventsAreCreatedInDefaultWithNamesTheServerGeneratesFromTheProfileName() {
        SchedulerProfile profile = new SchedulerProfile();
        profile.setMetadata(
                new ObjectMetaBuilder().withName("p").withUid("uid-1").build());
        ProfileEvents events = new ProfileEvents(client, "instance-1");

        events.normal(profile, "Created", "Created Deployment schedulerops-system/p-extender");
        events.warning(profile, "InvalidConfig", "bad");

        assertThat(client.v1().events().inAnyNamespace().list().getItems())
                .allSatisfy(e -> assertThat(e.getMetadata().getNamespace()).isEqualTo("default"));
        List<Event> recorded =
                client.v1().events().inNamespace("default").list().getItems();
        assertThat(recorded).hasSize(2);
        assertThat(recorded).allSatisfy(e -> {
            assertThat(e.getMetadata().getGenerateName()).isEqualTo("p.");
            assertThat(e.getMetadata().getName()).startsWith("p.").isNotEqualTo("p.");
            assertThat(e.getInvolvedObject().getKind()).isEqualTo(SchedulerProfile.KIND);
            assertThat(e.getInvolvedObject().getName()).isEqualTo("p");
            // A cluster-scoped object: kubectl describe finds its events by an empty involvedObject.namespace.
            assertThat(e.getInvolvedObject().getNamespace()).isNull();
            assertThat(e.getInvolvedObject().getUid()).isEqualTo("uid-1");
            assertThat(e.getReportingInstance()).isEqualTo("instance-1");
        });
        assertThat(recorded).extracting(e -> e.getMetadata().getName()).doesNotHaveDuplicates();
        assertThat(recorded)
                .extracting(Event::getType, Event::getReason)
                .containsExactlyInAnyOrder(tuple("Normal", "Created"), tuple("Warning", "InvalidConfig"));
    }
}
