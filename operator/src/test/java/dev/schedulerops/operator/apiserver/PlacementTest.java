package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Placement fields on the real API server: the CRD's schema carries the Kubernetes types and its CEL rules refuse what
 * the Deployment would be refused for, the operator applies them to the component they belong to, and a change of one
 * component's placement rolls that component only.
 */
@ExtendWith(ApiServerTier.class)
class PlacementTest {

    @Test
    void anExtenderPlacementChangeRollsTheExtenderOnlyAndTheSchedulerPlacementArrives(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut(
                "p",
                """
                labelKey: example.com/rank
                extender: {replicas: 1}
                scheduler:
                  priorityClassName: system-cluster-critical
                  tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
                  affinity:
                    nodeAffinity:
                      requiredDuringSchedulingIgnoredDuringExecution:
                        nodeSelectorTerms: [{matchExpressions: [{key: spot, operator: DoesNotExist}]}]
                """);
        PodSpec scheduler =
                tier.deployment(names.scheduler()).getSpec().getTemplate().getSpec();
        assertThat(scheduler.getPriorityClassName()).isEqualTo("system-cluster-critical");
        assertThat(scheduler.getTolerations())
                .extracting(Toleration::getKey)
                .containsExactly("node-role.kubernetes.io/control-plane");
        assertThat(scheduler.getAffinity().getNodeAffinity()).isNotNull();
        long schedulerGeneration =
                tier.deployment(names.scheduler()).getMetadata().getGeneration();
        long extenderGeneration =
                tier.deployment(names.extender()).getMetadata().getGeneration();

        tier.editSpec("p", spec -> {
            spec.getExtender().setNodeSelector(Map.of("pool", "infra"));
            spec.getExtender().setPodAnnotations(Map.of("sidecar.istio.io/inject", "false"));
        });
        Eventually.until(
                "a new extender generation with the nodeSelector",
                () -> tier.deployment(names.extender()).getMetadata().getGeneration() > extenderGeneration);
        Deployment extender = tier.deployment(names.extender());
        assertThat(extender.getSpec().getTemplate().getSpec().getNodeSelector())
                .containsExactly(Map.entry("pool", "infra"));
        assertThat(extender.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("sidecar.istio.io/inject", "false");
        Eventually.until(
                "Ready=True again",
                () -> tier.hasCondition("p", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                () -> tier.conditions("p"));
        tier.reconciledAsOfNow("p");
        assertThat(tier.deployment(names.scheduler()).getMetadata().getGeneration())
                .as("the scheduler is not restarted for an extender placement change")
                .isEqualTo(schedulerGeneration);
    }

    @Test
    void theCrdRefusesAReservedPodLabelAndABadTolerationAtAdmission(Tier tier) {
        KubernetesClientException reserved = catchThrowableOfType(
                KubernetesClientException.class,
                () -> tier.createProfile(
                        "reserved",
                        "labelKey: example.com/rank\nextender:\n  podLabels: {app.kubernetes.io/instance: x}"));
        assertThat(reserved).isNotNull();
        assertThat(reserved.getCode()).isEqualTo(422);
        assertThat(reserved.getStatus().getMessage())
                .contains("spec.extender.podLabels")
                .contains("podLabels may not set the labels the operator sets itself");

        KubernetesClientException toleration = catchThrowableOfType(
                KubernetesClientException.class,
                () -> tier.createProfile(
                        "toleration",
                        "labelKey: example.com/rank\nscheduler:\n  tolerations: [{key: a, operator: Exists, value: b}]"));
        assertThat(toleration).isNotNull();
        assertThat(toleration.getStatus().getMessage())
                .contains("spec.scheduler.tolerations")
                .contains("a toleration with operator Exists must have no value");
    }
}
