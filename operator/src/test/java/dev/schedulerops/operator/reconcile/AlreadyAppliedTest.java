package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.render.Samples;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;

class AlreadyAppliedTest {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private static List<HasMetadata> rendered() {
        RenderResult result = ProfileRenderer.render(
                Samples.profile("labelKey: example.com/pool\nverbs: [Filter, Prioritize]"),
                ClusterFacts.forVersion("1.33.13"));
        List<HasMetadata> objects = ((RenderResult.Valid) result).state().all();
        objects.forEach(AlreadyApplied::stamp);
        return objects;
    }

    /** What the API server keeps of an applied object: the object plus metadata, defaults and status of its own. */
    private static <T extends HasMetadata> T asStored(T desired) {
        @SuppressWarnings("unchecked")
        T stored = (T) SERIALIZATION.clone(desired);
        stored.getMetadata().setResourceVersion("42");
        stored.getMetadata().setUid("uid");
        stored.getMetadata().getAnnotations().put("deployment.kubernetes.io/revision", "3");
        if (stored instanceof Deployment deployment) {
            deployment.getSpec().setProgressDeadlineSeconds(600);
            deployment.getSpec().getTemplate().getSpec().setDnsPolicy("ClusterFirst");
            deployment.getSpec().getTemplate().getSpec().getContainers().get(0).setTerminationMessagePath("/dev/x");
            deployment.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder()
                    .withReplicas(2)
                    .build());
        }
        return stored;
    }

    @Test
    void everyRenderedObjectIsAlreadyAppliedInItsStoredFormWithDefaultsAndStatus() {
        for (HasMetadata desired : rendered()) {
            assertThat(AlreadyApplied.in(asStored(desired), desired))
                    .as("%s %s", desired.getKind(), desired.getMetadata().getName())
                    .isTrue();
        }
    }

    @Test
    void aHandEditOfAnAppliedFieldOrAMissingObjectIsNotApplied() {
        Deployment desired = rendered().stream()
                .filter(Deployment.class::isInstance)
                .map(Deployment.class::cast)
                .findFirst()
                .orElseThrow();
        Deployment edited = asStored(desired);
        edited.getSpec().setReplicas(7);
        assertThat(AlreadyApplied.in(edited, desired)).isFalse();

        Deployment relabelled = asStored(desired);
        relabelled.getSpec().getTemplate().getMetadata().getLabels().remove("app.kubernetes.io/component");
        assertThat(AlreadyApplied.in(relabelled, desired)).isFalse();

        Deployment extraContainer = asStored(desired);
        extraContainer
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .add(new io.fabric8.kubernetes.api.model.Container());
        assertThat(AlreadyApplied.in(extraContainer, desired)).isFalse();

        assertThat(AlreadyApplied.in(null, desired)).isFalse();
    }

    /** Server-side apply removes a field its manager stops sending, so a desired object without it must be sent. */
    @Test
    void aFieldTheOperatorNoLongerRendersIsAppliedAway() {
        io.fabric8.kubernetes.api.model.Secret withOldCa = new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata()
                .withName("p-ca")
                .withNamespace("team-a")
                .endMetadata()
                .addToData("ca.crt", "bmV3")
                .addToData("previous-ca.crt", "b2xk")
                .build();
        AlreadyApplied.stamp(withOldCa);
        io.fabric8.kubernetes.api.model.Secret withoutOldCa = new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata()
                .withName("p-ca")
                .withNamespace("team-a")
                .endMetadata()
                .addToData("ca.crt", "bmV3")
                .build();
        AlreadyApplied.stamp(withoutOldCa);

        assertThat(AlreadyApplied.in(asStored(withOldCa), withOldCa)).isTrue();
        assertThat(AlreadyApplied.in(asStored(withOldCa), withoutOldCa)).isFalse();
    }

    @Test
    void emptyRenderedContainersMatchAbsentOnesAndNumbersCompareByValue() throws Exception {
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        assertThat(AlreadyApplied.contains(
                        mapper.readTree("{\"a\":1}"), mapper.readTree("{\"a\":1,\"b\":{},\"c\":[]}")))
                .isTrue();
        assertThat(AlreadyApplied.contains(mapper.readTree("{\"a\":1.0}"), mapper.readTree("{\"a\":1}")))
                .isTrue();
        assertThat(AlreadyApplied.contains(mapper.readTree("{\"a\":[1,2]}"), mapper.readTree("{\"a\":[2,1]}")))
                .isFalse();
        assertThat(AlreadyApplied.contains(mapper.readTree("{\"a\":\"x\"}"), mapper.readTree("{\"a\":\"y\"}")))
                .isFalse();
    }
}
