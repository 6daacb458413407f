package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.ProfileYaml;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SandboxPodRendererTest {
    static Pod pod() throws Exception {
        var live = ProfileYaml.readOne(
                "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata: {name: lp}\n"
                        + "spec: {labelKey: k, weight: 20}");
        var proposal = ProfileYaml.readOne(
                "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata: {name: lp}\n"
                        + "spec: {labelKey: k, verbs: [FilterOnlyOne]}");
        SandboxPlan plan = ((PreviewPlanner.Planned) PreviewPlanner.preview(
                        proposal, Optional.of(live), List.of(), PreviewPlannerTest.FACTS, SandboxPlan.Limits.DEFAULT))
                .plan();
        OwnerReference owner =
                new OwnerReference("schedulerops.dev/v1alpha1", true, true, "SchedulerProfilePreview", "p-1", "uid-1");
        return SandboxPodRenderer.render(
                plan,
                new SandboxImages(
                        "ghcr.io/schedulerops/schedulerops-operator:t",
                        "registry.k8s.io/kube-apiserver:v1.33.13",
                        "registry.k8s.io/etcd:3.5.21-0"),
                "p-1-sandbox",
                "schedulerops-system",
                "schedulerops-preview-sandbox",
                owner,
                Map.of("schedulerops.dev/preview", "p-1"));
    }

    static List<Container> all(Pod pod) {
        List<Container> all = new ArrayList<>(pod.getSpec().getInitContainers());
        all.addAll(pod.getSpec().getContainers());
        return all;
    }

    @Test
    void theStepsRunInOrderWithTheControlPlaneAndEachRunAsSidecars() throws Exception {
        Pod pod = pod();
        assertThat(pod.getSpec().getInitContainers())
                .extracting(Container::getName)
                .containsExactly(
                        "prepare",
                        "etcd",
                        "kube-apiserver",
                        "extender-current",
                        "scheduler-current",
                        "extender-proposal",
                        "scheduler-proposal");
        assertThat(pod.getSpec().getContainers()).extracting(Container::getName).containsExactly("driver");
        for (Container c : pod.getSpec().getInitContainers()) {
            boolean step = c.getName().equals("prepare");
            assertThat(c.getRestartPolicy()).as(c.getName()).isEqualTo(step ? null : "Always");
        }
        assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getSpec().getActiveDeadlineSeconds()).isEqualTo(660L);
        assertThat(pod.getMetadata().getOwnerReferences())
                .extracting(OwnerReference::getUid)
                .containsExactly("uid-1");
    }

    @Test
    void eachRunRunsTheProfilesImagesAndTheControlPlaneTheInstallationsImages() throws Exception {
        Map<String, String> images = new java.util.HashMap<>();
        all(pod()).forEach(c -> images.put(c.getName(), c.getImage()));
        assertThat(images)
                .containsEntry("scheduler-current", "registry.k8s.io/kube-scheduler:v1.33.13")
                .containsEntry("scheduler-proposal", "registry.k8s.io/kube-scheduler:v1.33.13")
                .containsEntry("extender-current", "ghcr.io/schedulerops/schedulerops-extender:t")
                .containsEntry("kube-apiserver", "registry.k8s.io/kube-apiserver:v1.33.13")
                .containsEntry("etcd", "registry.k8s.io/etcd:3.5.21-0")
                .containsEntry("driver", "ghcr.io/schedulerops/schedulerops-operator:t");
    }

    @Test
    void onlyTheStepsThatReadTheLiveClusterGetItsTokenAndNoSecretOrConfigMapIsMade() throws Exception {
        Pod pod = pod();
        assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("schedulerops-preview-sandbox");
        for (Container c : all(pod)) {
            boolean reads = c.getName().equals("driver");
            assertThat(c.getVolumeMounts().stream()
                            .anyMatch(m -> m.getName().equals(SandboxPodRenderer.LIVE_API_VOLUME)))
                    .as(c.getName())
                    .isEqualTo(reads);
            boolean hasPlan = c.getEnv() != null
                    && c.getEnv().stream().anyMatch(e -> e.getName().equals(SandboxPodRenderer.PLAN_ENV));
            assertThat(hasPlan).as(c.getName()).isEqualTo(c.getImage().contains("schedulerops-operator"));
        }
        assertThat(pod.getSpec().getVolumes())
                .allMatch(
                        v -> v.getSecret() == null && v.getConfigMap() == null && v.getPersistentVolumeClaim() == null);
    }

    @Test
    void everyContainerPassesTheRestrictedPodSecurityStandard() throws Exception {
        Pod pod = pod();
        assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSpec().getSecurityContext().getSeccompProfile().getType())
                .isEqualTo("RuntimeDefault");
        for (Container c : all(pod)) {
            assertThat(c.getSecurityContext().getAllowPrivilegeEscalation())
                    .as(c.getName())
                    .isFalse();
            assertThat(c.getSecurityContext().getCapabilities().getDrop())
                    .as(c.getName())
                    .containsExactly("ALL");
            assertThat(c.getSecurityContext().getReadOnlyRootFilesystem())
                    .as(c.getName())
                    .isTrue();
            assertThat(c.getResources().getLimits()).as(c.getName()).containsKey("memory");
        }
    }

    @Test
    void theExtenderTalksToTheSandboxOnlyAndTheSchedulerLogsItsScores() throws Exception {
        Map<String, Container> byName = new java.util.HashMap<>();
        all(pod()).forEach(c -> byName.put(c.getName(), c));
        Map<String, String> env = new java.util.HashMap<>();
        byName.get("extender-proposal").getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
        assertThat(env)
                .containsEntry("KUBECONFIG", "/sandbox/kubeconfig")
                .containsEntry("SCHEDULEROPS_TLS_MODE", "disabled")
                .containsEntry("SCHEDULEROPS_BIND_ADDRESS", "127.0.0.1")
                .containsEntry("SCHEDULEROPS_SCHEDULER_NAME", "schedulerops-preview-proposal")
                .containsEntry("SCHEDULEROPS_VERBS", "FilterOnlyOne")
                .doesNotContainKey("SCHEDULEROPS_TLS_CERT_FILE");
        assertThat(byName.get("scheduler-current").getCommand())
                .contains(
                        "kube-scheduler",
                        "--config=/sandbox/current-scheduler.yaml",
                        "--vmodule=schedule_one=10",
                        "--bind-address=127.0.0.1");
    }
}
