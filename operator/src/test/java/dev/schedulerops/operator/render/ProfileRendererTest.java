package dev.schedulerops.operator.render;

import static dev.schedulerops.operator.render.Samples.profile;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ApiServerEndpoint;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ImagePolicy;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.model.TlsFacts;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ProfileRendererTest {

    static DesiredState render(String spec) {
        RenderResult result = ProfileRenderer.render(profile(spec), Samples.FACTS);
        assertThat(result).isInstanceOf(RenderResult.Valid.class);
        return ((RenderResult.Valid) result).state();
    }

    static JsonNode config(DesiredState state) throws Exception {
        return Yaml.MAPPER.readTree(state.schedulerConfigYaml());
    }

    /** kube-scheduler 1.30 serves /healthz only (its /livez and /readyz answer 404); 1.31 and later serve all three. */
    @ParameterizedTest
    @MethodSource("probePaths")
    void theSchedulerIsProbedOnPathsItsVersionServes(String version, String liveness, String readiness) {
        RenderResult result =
                ProfileRenderer.render(profile("labelKey: k"), Samples.FACTS.withKubernetesVersion(version));
        Container scheduler = podSpec(((RenderResult.Valid) result).state().schedulerDeployment())
                .getContainers()
                .get(0);

        assertThat(scheduler.getLivenessProbe().getHttpGet().getPath()).isEqualTo(liveness);
        assertThat(scheduler.getStartupProbe().getHttpGet().getPath()).isEqualTo(liveness);
        assertThat(scheduler.getReadinessProbe().getHttpGet().getPath()).isEqualTo(readiness);
    }

    /**
     * Both components get three minutes to start: on a busy node a JVM that gets only its CPU request took over a
     * minute to answer /healthz, and a startup probe that gives up sooner restarts a pod that was only slow.
     */
    @Test
    void bothComponentsHaveThreeMinutesToStartAndAreProbedOftenMeanwhile() {
        DesiredState state = render("labelKey: k");
        for (var deployment : List.of(state.extenderDeployment(), state.schedulerDeployment())) {
            var probe = podSpec(deployment).getContainers().get(0).getStartupProbe();
            assertThat(probe.getPeriodSeconds() * probe.getFailureThreshold())
                    .as("%s: seconds allowed to start", deployment.getMetadata().getName())
                    .isGreaterThanOrEqualTo(180);
            assertThat(probe.getPeriodSeconds())
                    .as(
                            "%s: seconds between startup probes",
                            deployment.getMetadata().getName())
                    .isLessThanOrEqualTo(2);
        }
    }

    /**
     * The release-lease sidecar: a native sidecar (restartPolicy Always) after await-extender, told the lease and
     * kube-scheduler's port; absent without leader election, and when the operator's setting turns it off.
     */
    @Test
    void schedulerPodsRunTheReleaseLeaseSidecarUnlessThereIsNoLeaseOrItIsTurnedOff() {
        var init = podSpec(render("labelKey: k").schedulerDeployment()).getInitContainers();
        assertThat(init)
                .extracting(Container::getName)
                .containsExactly(Names.AWAIT_EXTENDER_CONTAINER, Names.RELEASE_LEASE_CONTAINER);
        Container sidecar = init.get(1);
        assertThat(sidecar.getRestartPolicy()).isEqualTo("Always");
        assertThat(sidecar.getImage()).isEqualTo(Samples.FACTS.operatorImage());
        assertThat(sidecar.getArgs())
                .containsExactly(
                        "release-lease",
                        "--namespace=" + Samples.FACTS.workloadNamespace(),
                        "--lease=" + new Names("p", Samples.FACTS.workloadNamespace()).schedulerLease(),
                        "--scheduler-port=" + Names.SCHEDULER_SECURE_PORT);

        assertThat(podSpec(render("labelKey: k\nscheduler: {leaderElection: {leaderElect: false}}")
                                .schedulerDeployment())
                        .getInitContainers())
                .extracting(Container::getName)
                .containsExactly(Names.AWAIT_EXTENDER_CONTAINER);
        RenderResult off = ProfileRenderer.render(profile("labelKey: k"), Samples.FACTS.withReleaseLeaseSidecar(false));
        assertThat(podSpec(((RenderResult.Valid) off).state().schedulerDeployment())
                        .getInitContainers())
                .extracting(Container::getName)
                .containsExactly(Names.AWAIT_EXTENDER_CONTAINER);
    }

    /** A profile may pin its scheduler image: the probes follow the image's version, not the cluster's. */
    @Test
    void aPinnedSchedulerImageIsProbedOnThePathsOfItsOwnVersion() {
        assertThat(SchedulerRenderer.probePath("registry.k8s.io/kube-scheduler:v1.30.14", "1.33.13", "/livez"))
                .isEqualTo("/healthz");
        assertThat(SchedulerRenderer.probePath(
                        "mirror.example.com:5000/sched/kube-scheduler:v1.31.4", "1.30.2", "/readyz"))
                .isEqualTo("/readyz");
        assertThat(SchedulerRenderer.probePath("registry.example.com/kube-scheduler:custom-build", "1.30.2", "/livez"))
                .as("a tag without a version: the cluster's")
                .isEqualTo("/healthz");
        assertThat(SchedulerRenderer.probePath(
                        "registry.example.com/kube-scheduler@sha256:" + "a".repeat(64), "1.33.1", "/livez"))
                .as("a digest: the cluster's")
                .isEqualTo("/livez");
    }

    static Stream<Arguments> probePaths() {
        return Stream.of(
                Arguments.of("1.30.14", "/healthz", "/healthz"),
                Arguments.of("v1.30.2-eks-1234abc", "/healthz", "/healthz"),
                Arguments.of("1.31.4", "/livez", "/readyz"),
                Arguments.of("1.37.2", "/livez", "/readyz"));
    }

    @Test
    void extenderStageComesBeforeTheSchedulerStage() {
        DesiredState state = render("labelKey: k");
        assertThat(state.extenderStage()).extracting(HasMetadata::getKind).doesNotContain("ConfigMap");
        assertThat(state.extenderStage()).contains(state.extenderDeployment());
        assertThat(state.schedulerStage()).containsExactly(state.schedulerConfigMap(), state.schedulerDeployment());

        // all() is the order `render` prints and the operator creates: stage 1, then stage 2.
        List<HasMetadata> all = state.all();
        assertThat(all)
                .containsExactlyElementsOf(
                        Stream.concat(state.extenderStage().stream(), state.schedulerStage().stream())
                                .toList());
        assertThat(all.indexOf(state.extenderDeployment())).isLessThan(all.indexOf(state.schedulerConfigMap()));
        assertThat(all.subList(all.size() - 2, all.size()))
                .containsExactly(state.schedulerConfigMap(), state.schedulerDeployment());
    }

    @Test
    void configHasOneProfileAndOneExtenderPointingAtTheService() throws Exception {
        JsonNode config = config(render("labelKey: k\nverbs: [FilterOnlyOne, Prioritize, Preempt]\nweight: 7"));
        assertThat(config.path("apiVersion").asText()).isEqualTo("kubescheduler.config.k8s.io/v1");
        assertThat(config.path("profiles")).hasSize(1);
        assertThat(config.path("profiles").get(0).path("schedulerName").asText())
                .isEqualTo("p");
        JsonNode extender = config.path("extenders").get(0);
        assertThat(extender.path("urlPrefix").asText()).isEqualTo("https://p-extender.schedulerops-system.svc:8443");
        assertThat(extender.path("filterVerb").asText()).isEqualTo("filter_onlyone");
        assertThat(extender.path("prioritizeVerb").asText()).isEqualTo("prioritize");
        assertThat(extender.path("preemptVerb").asText()).isEqualTo("preempt");
        assertThat(extender.path("weight").asInt()).isEqualTo(7);
        assertThat(extender.has("bindVerb")).isFalse();
        assertThat(extender.path("nodeCacheCapable").asBoolean()).isTrue();
    }

    @Test
    void withoutPrioritizeTheWeightIsLeftOut() throws Exception {
        JsonNode extender = config(render("labelKey: k\nverbs: [Filter]\nweight: 3"))
                .path("extenders")
                .get(0);
        assertThat(extender.has("prioritizeVerb")).isFalse();
        assertThat(extender.has("weight")).isFalse();
    }

    @Test
    void leaderElectionUsesTheProfilesOwnLease() throws Exception {
        JsonNode le = config(render("labelKey: k")).path("leaderElection");
        assertThat(le.path("leaderElect").asBoolean()).isTrue();
        assertThat(le.path("resourceName").asText()).isEqualTo("p-scheduler");
        assertThat(le.path("resourceNamespace").asText()).isEqualTo("schedulerops-system");
        assertThat(le.path("resourceLock").asText()).isEqualTo("leases");
    }

    @Test
    void verbOrderDoesNotChangeTheOutput() {
        assertThat(render("labelKey: k\nverbs: [Prioritize, Filter]").all())
                .isEqualTo(render("labelKey: k\nverbs: [Filter, Prioritize]").all());
    }

    @Test
    void aPluginChangeChangesOnlyTheSchedulerStage() {
        DesiredState before = render("labelKey: k");
        DesiredState after = render("labelKey: k\nplugins:\n  score:\n    disabled:\n    - name: ImageLocality");
        assertThat(after.extenderStage()).isEqualTo(before.extenderStage());
        assertThat(after.configHash()).isNotEqualTo(before.configHash());
        assertThat(after.schedulerDeployment()
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations())
                .containsEntry(Labels.CONFIG_HASH, after.configHash());
    }

    @Test
    void aLabelKeyChangeRollsTheExtenderAndThenRestartsTheScheduler() {
        DesiredState before = render("labelKey: a");
        DesiredState after = render("labelKey: b");
        assertThat(after.extenderDeployment()).isNotEqualTo(before.extenderDeployment());
        assertThat(after.configHash()).isEqualTo(before.configHash());
        assertThat(annotations(after.schedulerDeployment()).get(Labels.EXTENDER_RULE_HASH))
                .isNotEqualTo(annotations(before.schedulerDeployment()).get(Labels.EXTENDER_RULE_HASH));
    }

    @Test
    void queueKnobsGoToTheConfigOnlyWhenSet() throws Exception {
        JsonNode unset = config(render("labelKey: k"));
        assertThat(unset.has("parallelism")).isFalse();
        assertThat(unset.has("podInitialBackoffSeconds")).isFalse();
        assertThat(unset.has("podMaxBackoffSeconds")).isFalse();

        DesiredState state = render(
                "labelKey: k\nscheduler: {parallelism: 4, podInitialBackoffSeconds: 3, podMaxBackoffSeconds: 60}");
        JsonNode set = config(state);
        assertThat(set.path("parallelism").asInt()).isEqualTo(4);
        assertThat(set.path("podInitialBackoffSeconds").asInt()).isEqualTo(3);
        assertThat(set.path("podMaxBackoffSeconds").asInt()).isEqualTo(60);
        assertThat(state.configHash()).isNotEqualTo(render("labelKey: k").configHash());
    }

    @Test
    void anExtenderPlacementChangeLeavesTheSchedulerStageAlone() {
        DesiredState before = render("labelKey: k");
        DesiredState after = render(
                """
                labelKey: k
                extender:
                  nodeSelector: {pool: infra}
                  tolerations: [{key: infra, operator: Exists}]
                  priorityClassName: high
                  podAnnotations: {sidecar.istio.io/inject: "false"}
                """);
        assertThat(after.schedulerStage()).isEqualTo(before.schedulerStage());
        PodSpec pod = after.extenderDeployment().getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector()).containsExactly(Map.entry("pool", "infra"));
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> assertThat(t.getKey())
                .isEqualTo("infra"));
        assertThat(pod.getPriorityClassName()).isEqualTo("high");
        assertThat(annotations(after.extenderDeployment())).containsEntry("sidecar.istio.io/inject", "false");
    }

    @Test
    void aSchedulerPlacementChangeLeavesTheExtenderStageAlone() {
        DesiredState before = render("labelKey: k");
        DesiredState after = render(
                """
                labelKey: k
                scheduler:
                  priorityClassName: system-cluster-critical
                  imagePullSecrets: [{name: regcred}]
                  podLabels: {team: platform}
                """);
        assertThat(after.extenderStage()).isEqualTo(before.extenderStage());
        assertThat(after.configHash()).isEqualTo(before.configHash());
        var template = after.schedulerDeployment().getSpec().getTemplate();
        assertThat(template.getSpec().getPriorityClassName()).isEqualTo("system-cluster-critical");
        assertThat(template.getSpec().getImagePullSecrets()).singleElement().satisfies(s -> assertThat(s.getName())
                .isEqualTo("regcred"));
        assertThat(template.getMetadata().getLabels())
                .containsEntry("team", "platform")
                .containsAllEntriesOf(Labels.component("p", Labels.COMPONENT_SCHEDULER));
        // The selector is untouched (selectors are immutable; a new pod label must not change it).
        assertThat(after.schedulerDeployment().getSpec().getSelector())
                .isEqualTo(before.schedulerDeployment().getSpec().getSelector());
    }

    @Test
    void userSpreadReplacesTheDefaultAndCountsTheComponentsPodsWhenItNamesNone() {
        DesiredState state = render(
                """
                labelKey: k
                extender:
                  topologySpreadConstraints:
                  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}
                  - maxSkew: 2
                    topologyKey: topology.kubernetes.io/zone
                    whenUnsatisfiable: ScheduleAnyway
                    labelSelector: {matchLabels: {app: other}}
                """);
        var spread =
                state.extenderDeployment().getSpec().getTemplate().getSpec().getTopologySpreadConstraints();
        assertThat(spread).hasSize(2);
        assertThat(spread.get(0).getWhenUnsatisfiable()).isEqualTo("DoNotSchedule");
        assertThat(spread.get(0).getLabelSelector().getMatchLabels())
                .isEqualTo(state.extenderDeployment().getSpec().getSelector().getMatchLabels());
        assertThat(spread.get(1).getLabelSelector().getMatchLabels()).containsExactly(Map.entry("app", "other"));
    }

    private static Map<String, String> annotations(Deployment deployment) {
        return deployment.getSpec().getTemplate().getMetadata().getAnnotations();
    }

    @Test
    void schedulerImageFollowsTheClusterVersionUnlessPinned() {
        assertThat(render("labelKey: k").schedulerImage()).isEqualTo("registry.k8s.io/kube-scheduler:v1.33.13");
        ClusterFacts allowingExample =
                Samples.FACTS.withImages(new ImagePolicy(java.util.Set.of("example.com/my-scheduler")));
        assertThat(((RenderResult.Valid) ProfileRenderer.render(
                                Samples.profile("labelKey: k\nscheduler:\n  image: example.com/my-scheduler:v1"),
                                allowingExample))
                        .state()
                        .schedulerImage())
                .isEqualTo("example.com/my-scheduler:v1");
        var k3s = ClusterFacts.forVersion("v1.31.4+k3s1");
        assertThat(k3s.defaultSchedulerImage()).isEqualTo("registry.k8s.io/kube-scheduler:v1.31.4");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "v1.33.5-eks-1234abc, v1.33.5, 1.33",
        "v1.32.3-gke.1785003, v1.32.3, 1.32",
        "v1.31.4+k3s1, v1.31.4, 1.31",
        "v1.30.2-rc.0, v1.30.2-rc.0, 1.30",
        "1.34, v1.34.0, 1.34"
    })
    void versionsAsVendorsReportThemMapToAnUpstreamImageTagAndACatalogue(
            String reported, String tag, String catalogue) {
        assertThat(ClusterFacts.forVersion(reported).defaultSchedulerImage())
                .isEqualTo("registry.k8s.io/kube-scheduler:" + tag);
        assertThat(dev.schedulerops.operator.validation.KubernetesVersion.parse(reported)
                        .toString())
                .isEqualTo(catalogue);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"1.28.15", "v1.38.0", "2.0.1", "v1.27.3-eks-1234abc"})
    void aClusterVersionWithoutKnownSchedulerRulesIsRefusedNotGuessed(String version) {
        RenderResult result = ProfileRenderer.render(
                Samples.profile("labelKey: example.com/tier\n"),
                new ClusterFacts(version, "ext:1", ClusterFacts.DEFAULT_SCHEDULER_IMAGE_REPOSITORY));

        assertThat(result).isInstanceOfSatisfying(RenderResult.Invalid.class, invalid -> {
            assertThat(invalid.refusal()).isEqualTo(RenderResult.Refusal.UNSUPPORTED_KUBERNETES_VERSION);
            assertThat(invalid.errors())
                    .singleElement()
                    .asString()
                    .contains("knows the kube-scheduler rules of Kubernetes 1.30 to 1.37 only")
                    .contains("nothing was rolled out");
        });
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"v1.30.0", "1.33.5-eks-1234abc", "v1.37.2"})
    void everyVersionWithAFlagCatalogueRenders(String version) {
        assertThat(ProfileRenderer.render(
                        Samples.profile("labelKey: example.com/tier\n"),
                        new ClusterFacts(version, "ext:1", ClusterFacts.DEFAULT_SCHEDULER_IMAGE_REPOSITORY)))
                .isInstanceOf(RenderResult.Valid.class);
    }

    @Test
    void podDisruptionBudgetOnlyAboveOneExtenderReplica() {
        assertThat(render("labelKey: k\nextender:\n  replicas: 1").all())
                .noneMatch(PodDisruptionBudget.class::isInstance);
        assertThat(render("labelKey: k\nextender:\n  replicas: 2").all())
                .filteredOn(PodDisruptionBudget.class::isInstance)
                .hasSize(1);
    }

    @Test
    void aSchedulerWithReplicasGetsItsOwnDisruptionBudgetInTheSchedulerStage() {
        DesiredState single = render("labelKey: k\nextender: {replicas: 1}");
        assertThat(single.all()).noneMatch(PodDisruptionBudget.class::isInstance);
        assertThat(single.schedulerDeployment()
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getTopologySpreadConstraints())
                .isEmpty();

        DesiredState ha = render("labelKey: k\nextender: {replicas: 1}\nscheduler: {replicas: 2}");
        PodDisruptionBudget pdb = ha.schedulerStage().stream()
                .filter(PodDisruptionBudget.class::isInstance)
                .map(PodDisruptionBudget.class::cast)
                .findFirst()
                .orElseThrow();
        assertThat(pdb.getMetadata().getName()).isEqualTo("p-scheduler");
        assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        assertThat(pdb.getSpec().getSelector())
                .isEqualTo(ha.schedulerDeployment().getSpec().getSelector());
        assertThat(ha.extenderStage()).noneMatch(PodDisruptionBudget.class::isInstance);
    }

    /** DoNotSchedule over nodes only with a node more than the replicas; otherwise a drained pod would stay Pending. */
    @Test
    void replicasMustSpreadOverNodesOnlyWhenTheClusterHasANodeToSpare() {
        String spec = "labelKey: k\nextender: {replicas: 3}\nscheduler: {replicas: 3}";
        for (int nodes : new int[] {0, 3, 4, 50}) {
            ClusterFacts facts = Samples.FACTS.withNodes(nodes);
            DesiredState state = ((RenderResult.Valid) ProfileRenderer.render(profile(spec), facts)).state();
            String expected = nodes >= 4 ? "DoNotSchedule" : "ScheduleAnyway";
            for (Deployment deployment : List.of(state.extenderDeployment(), state.schedulerDeployment())) {
                var hostname = deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints().stream()
                        .filter(c -> c.getTopologyKey().equals("kubernetes.io/hostname"))
                        .findFirst()
                        .orElseThrow();
                assertThat(hostname.getWhenUnsatisfiable())
                        .as("%s with %d nodes", deployment.getMetadata().getName(), nodes)
                        .isEqualTo(expected);
                assertThat(hostname.getNodeTaintsPolicy())
                        .as("cordoned nodes left out of a required spread")
                        .isEqualTo(nodes >= 4 ? "Honor" : null);
            }
        }
        assertThat(Samples.FACTS.withNodes(10).spreadsAcrossNodes(1)).isFalse();
    }

    @Test
    void extenderIsBoundOnlyToWhatItsVerbsNeed() {
        assertThat(extenderRoles(render("labelKey: k"))).containsExactly("schedulerops:extender-nodes");
        assertThat(extenderRoles(render("labelKey: k\nverbs: [Filter, Bind]")))
                .containsExactly("schedulerops:extender-nodes", "schedulerops:extender-binder");
        assertThat(extenderRoles(render("labelKey: k\nextender:\n  nodeCacheCapable: false")))
                .isEmpty();
        // Preemption calls carry no node labels: the extender needs its node cache even with full Node objects.
        assertThat(extenderRoles(render("labelKey: k\nverbs: [Filter, Preempt]\nextender:\n  nodeCacheCapable: false")))
                .containsExactly("schedulerops:extender-nodes");
        // The operator renders bindings to roles the install ships, never a role of its own (it holds no power to
        // grant beyond bind on those names).
        assertThat(render("labelKey: k\nverbs: [Filter, Bind]").all())
                .noneMatch(o -> o.getKind().equals("ClusterRole")
                        || o.getKind().equals("Role")
                                && "kube-system".equals(o.getMetadata().getNamespace()));
    }

    @Test
    void schedulerIsBoundToTheSystemRolesItNeedsAndNothingBroader() {
        DesiredState state = render("labelKey: k");
        List<String> clusterRoles = state.all().stream()
                .filter(ClusterRoleBinding.class::isInstance)
                .map(o -> ((ClusterRoleBinding) o).getRoleRef().getName())
                .toList();
        assertThat(clusterRoles)
                .containsExactlyInAnyOrder(
                        "schedulerops:kube-scheduler", "system:volume-scheduler", "schedulerops:extender-nodes");
        assertThat(state.all())
                .filteredOn(RoleBinding.class::isInstance)
                .extracting(o -> o.getMetadata().getNamespace() + "/"
                        + ((RoleBinding) o).getRoleRef().getName())
                .containsExactlyInAnyOrder(
                        "schedulerops-system/p-scheduler", "kube-system/extension-apiserver-authentication-reader");
        // Not system:kube-scheduler: its rules on the default scheduler's lease would let a secondary scheduler stop
        // the default one.
        assertThat(clusterRoles).doesNotContain("system:kube-scheduler", "cluster-admin", "admin", "edit");
    }

    @Test
    void everyObjectCarriesTheProfileLabels() {
        for (HasMetadata object : render("labelKey: k").all()) {
            Map<String, String> labels = object.getMetadata().getLabels();
            assertThat(labels)
                    .as(object.getKind() + " " + object.getMetadata().getName())
                    .containsEntry(Labels.PROFILE, "p")
                    .containsEntry(Labels.MANAGED_BY, "schedulerops-operator")
                    .containsKey(Labels.COMPONENT);
            assertThat(object.getMetadata().getOwnerReferences()).isNullOrEmpty();
            // Namespaced objects go into the workload namespace, whatever namespace the profile file named.
            String namespace = object.getMetadata().getNamespace();
            if (namespace != null && !(object instanceof RoleBinding && namespace.equals("kube-system"))) {
                assertThat(namespace).as(object.getKind()).isEqualTo("schedulerops-system");
            }
        }
    }

    @Test
    void generatedPodsAreScheduledByTheDefaultScheduler() {
        DesiredState state = render("labelKey: k");
        assertThat(podSpec(state.extenderDeployment()).getSchedulerName()).isEqualTo("default-scheduler");
        assertThat(podSpec(state.schedulerDeployment()).getSchedulerName()).isEqualTo("default-scheduler");
    }

    @Test
    void extenderIsConfiguredThroughItsEnvironment() {
        Map<String, String> env =
                extenderEnv(render("labelKey: example.com/tier\nextender:\n  nodeCacheCapable: false"));
        assertThat(env)
                .containsEntry("SCHEDULEROPS_LABEL_KEY", "example.com/tier")
                .containsEntry("SCHEDULEROPS_NODE_CACHE", "false")
                .containsEntry("SCHEDULEROPS_PORT", "8443")
                .containsEntry("SCHEDULEROPS_HEALTH_PORT", "8081")
                .containsEntry("SCHEDULEROPS_TLS_MODE", "mutual")
                .containsEntry("SCHEDULEROPS_TLS_CERT_FILE", "/etc/schedulerops/tls/tls.crt")
                .containsEntry("SCHEDULEROPS_TLS_KEY_FILE", "/etc/schedulerops/tls/tls.key")
                .containsEntry("SCHEDULEROPS_TLS_CLIENT_CA_FILE", "/etc/schedulerops/tls/client-ca.crt")
                .containsEntry("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75");
    }

    @Test
    void jvmSettingsRollOnlyTheExtenderWithTheHeapFirstAndTheOptionsInOrder() {
        DesiredState before = render("labelKey: k");
        DesiredState after =
                render("labelKey: k\nextender:\n  jvm: {maxRAMPercentage: 50, options: [-XX:+UseSerialGC, -Xss512k]}");
        Map<String, String> env = extenderEnv(after);

        assertThat(env).containsEntry("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=50 -XX:+UseSerialGC -Xss512k");
        assertThat(after.schedulerStage()).isEqualTo(before.schedulerStage());
    }

    @Test
    void mutualTlsByDefaultMountsBothSecretsAndConfiguresTheSchedulerForHttps() throws Exception {
        DesiredState state = render("labelKey: k");
        JsonNode extender = config(state).path("extenders").get(0);
        assertThat(extender.path("enableHTTPS").asBoolean()).isTrue();
        assertThat(extender.path("tlsConfig").path("caFile").asText())
                .isEqualTo("/etc/schedulerops/extender-client/ca.crt");
        assertThat(extender.path("tlsConfig").path("certFile").asText())
                .isEqualTo("/etc/schedulerops/extender-client/tls.crt");
        assertThat(extender.path("tlsConfig").path("keyFile").asText())
                .isEqualTo("/etc/schedulerops/extender-client/tls.key");
        assertThat(podSpec(state.extenderDeployment()).getVolumes())
                .filteredOn(v -> v.getSecret() != null)
                .extracting(v -> v.getSecret().getSecretName())
                .containsExactly("p-extender-tls");
        assertThat(podSpec(state.schedulerDeployment()).getVolumes())
                .filteredOn(v -> v.getSecret() != null)
                .extracting(v -> v.getSecret().getSecretName())
                .containsExactly("p-scheduler-extender-client");
        Container c = podSpec(state.extenderDeployment()).getContainers().get(0);
        assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("health");
        assertThat(c.getReadinessProbe().getHttpGet().getScheme()).isEqualTo("HTTP");
        assertThat(c.getPorts())
                .extracting(p -> p.getName() + ":" + p.getContainerPort())
                .containsExactly("http:8443", "health:8081");
    }

    @Test
    void theTlsHashesGoOnThePodTemplatesSoNewMaterialRollsThePods() {
        SchedulerProfile profile = profile("labelKey: k");
        DesiredState a =
                ((RenderResult.Valid) ProfileRenderer.render(profile, Samples.FACTS, new TlsFacts("e1", "s1"))).state();
        DesiredState b =
                ((RenderResult.Valid) ProfileRenderer.render(profile, Samples.FACTS, new TlsFacts("e2", "s2"))).state();
        assertThat(annotations(a.extenderDeployment())).containsEntry("schedulerops.dev/tls-hash", "e1");
        assertThat(annotations(a.schedulerDeployment())).containsEntry("schedulerops.dev/tls-hash", "s1");
        assertThat(annotations(b.extenderDeployment())).containsEntry("schedulerops.dev/tls-hash", "e2");
        assertThat(annotations(b.schedulerDeployment())).containsEntry("schedulerops.dev/tls-hash", "s2");
    }

    @Test
    void serverTlsGivesTheSchedulerOnlyTheCa() throws Exception {
        DesiredState state = render("labelKey: k\nextender:\n  tls:\n    mode: Server");
        JsonNode tls = config(state).path("extenders").get(0).path("tlsConfig");
        assertThat(tls.path("caFile").asText()).isEqualTo("/etc/schedulerops/extender-client/ca.crt");
        assertThat(tls.has("certFile")).isFalse();
        assertThat(tls.has("keyFile")).isFalse();
        Map<String, String> env = extenderEnv(state);
        assertThat(env)
                .containsEntry("SCHEDULEROPS_TLS_MODE", "server")
                .doesNotContainKey("SCHEDULEROPS_TLS_CLIENT_CA_FILE");
    }

    @Test
    void disabledTlsIsPlainHttpOn8080WithoutSecrets() throws Exception {
        DesiredState state = render("labelKey: k\nextender:\n  tls:\n    mode: Disabled");
        JsonNode extender = config(state).path("extenders").get(0);
        assertThat(extender.path("urlPrefix").asText()).isEqualTo("http://p-extender.schedulerops-system.svc:8080");
        assertThat(extender.path("enableHTTPS").asBoolean()).isFalse();
        assertThat(extender.has("tlsConfig")).isFalse();
        assertThat(podSpec(state.extenderDeployment()).getVolumes())
                .allSatisfy(v -> assertThat(v.getSecret()).isNull());
        assertThat(podSpec(state.schedulerDeployment()).getVolumes())
                .allSatisfy(v -> assertThat(v.getSecret()).isNull());
        Map<String, String> env = extenderEnv(state);
        assertThat(env).containsEntry("SCHEDULEROPS_TLS_MODE", "disabled").containsEntry("SCHEDULEROPS_PORT", "8080");
    }

    private static NetworkPolicy networkPolicy(DesiredState state) {
        return state.extenderStage().stream()
                .filter(NetworkPolicy.class::isInstance)
                .map(NetworkPolicy.class::cast)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void theNetworkPolicyAdmitsOnlyTheSchedulerToTheVerbPortAndMetricsFromWhomTheUserSays() {
        NetworkPolicy policy = networkPolicy(render("labelKey: k\nextender:\n  metricsFrom:\n    - namespaceSelector:\n"
                + "        matchLabels: {team: obs}"));
        assertThat(policy.getSpec().getPodSelector().getMatchLabels())
                .containsEntry("app.kubernetes.io/component", "extender")
                .containsEntry("app.kubernetes.io/instance", "p");
        assertThat(policy.getSpec().getIngress()).hasSize(2);
        var verbs = policy.getSpec().getIngress().get(0);
        assertThat(verbs.getPorts()).extracting(p -> p.getPort().getIntVal()).containsExactly(8443);
        assertThat(verbs.getFrom()).singleElement().satisfies(peer -> {
            assertThat(peer.getNamespaceSelector()).isNull();
            assertThat(peer.getPodSelector().getMatchLabels())
                    .containsEntry("app.kubernetes.io/component", "scheduler")
                    .containsEntry("app.kubernetes.io/instance", "p");
        });
        var health = policy.getSpec().getIngress().get(1);
        assertThat(health.getPorts()).extracting(p -> p.getPort().getIntVal()).containsExactly(8081);
        assertThat(health.getFrom()).singleElement().satisfies(peer -> assertThat(
                        peer.getNamespaceSelector().getMatchLabels())
                .containsEntry("team", "obs"));
        for (String unset : List.of("labelKey: k", "labelKey: k\nextender: {metricsFrom: []}")) {
            NetworkPolicy closed = networkPolicy(render(unset));
            assertThat(closed.getSpec().getIngress())
                    .as(
                            "%s: only the verb rule, so no pod reaches the health port (the kubelet comes from the node)",
                            unset)
                    .singleElement()
                    .satisfies(rule -> assertThat(rule.getPorts())
                            .extracting(p -> p.getPort().getIntVal())
                            .containsExactly(8443));
        }
    }

    @Test
    void theExtenderMayReachTheApiServerAndNothingElse() {
        NetworkPolicy policy = networkPolicy(render("labelKey: k"));
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
        assertThat(policy.getSpec().getEgress()).singleElement().satisfies(rule -> {
            assertThat(rule.getTo()).singleElement().satisfies(peer -> {
                assertThat(peer.getIpBlock().getCidr()).isEqualTo("192.0.2.10/32");
                assertThat(peer.getIpBlock().getExcept()).isNullOrEmpty();
                assertThat(peer.getPodSelector()).isNull();
                assertThat(peer.getNamespaceSelector()).isNull();
            });
            assertThat(rule.getPorts()).singleElement().satisfies(port -> {
                assertThat(port.getPort().getIntVal()).isEqualTo(6443);
                assertThat(port.getProtocol()).isEqualTo("TCP");
            });
        });

        ClusterFacts twoApiServers = Samples.FACTS.withApiServer(
                List.of(new ApiServerEndpoint("192.0.2.10", 6443), new ApiServerEndpoint("2001:db8::10", 443)));
        NetworkPolicy both = networkPolicy(
                ((RenderResult.Valid) ProfileRenderer.render(profile("labelKey: k"), twoApiServers)).state());
        assertThat(both.getSpec().getEgress())
                .extracting(r -> r.getTo().get(0).getIpBlock().getCidr() + ":"
                        + r.getPorts().get(0).getPort().getIntVal())
                .containsExactly("192.0.2.10/32:6443", "2001:db8::10/128:443");

        NetworkPolicy unknown = networkPolicy(((RenderResult.Valid)
                        ProfileRenderer.render(profile("labelKey: k"), Samples.FACTS.withApiServer(List.of())))
                .state());
        assertThat(unknown.getSpec().getPolicyTypes())
                .as("where the API server is not known, an extender that needs it keeps its egress")
                .containsExactly("Ingress");

        NetworkPolicy noApi = networkPolicy(render("labelKey: k\nextender: {nodeCacheCapable: false}"));
        assertThat(noApi.getSpec().getPolicyTypes())
                .as("an extender without a node cache or Bind has no token, and no egress at all")
                .containsExactly("Ingress", "Egress");
        assertThat(noApi.getSpec().getEgress()).isNullOrEmpty();
    }

    static Stream<Path> samples() {
        return Samples.files().stream();
    }

    /** The `restricted` Pod Security Standard, checked field by field (the e2e tests prove it against admission). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void everyGeneratedPodPassesTheRestrictedStandard(Path sample) {
        var result = (RenderResult.Valid) ProfileRenderer.render(Samples.load(sample), Samples.FACTS);
        for (HasMetadata object : result.state().all()) {
            if (!(object instanceof Deployment deployment)) {
                continue;
            }
            PodSpec pod = podSpec(deployment);
            String what = deployment.getMetadata().getName();
            assertThat(pod.getHostNetwork()).as(what).isNotEqualTo(Boolean.TRUE);
            assertThat(pod.getHostPID()).as(what).isNotEqualTo(Boolean.TRUE);
            assertThat(pod.getHostIPC()).as(what).isNotEqualTo(Boolean.TRUE);
            assertThat(pod.getVolumes()).as(what).allMatch(v -> v.getHostPath() == null);
            assertThat(pod.getSecurityContext().getRunAsNonRoot()).as(what).isTrue();
            assertThat(pod.getSecurityContext().getRunAsUser()).as(what).isPositive();
            assertThat(pod.getSecurityContext().getSeccompProfile().getType())
                    .as(what)
                    .isEqualTo("RuntimeDefault");
            for (Container c : pod.getContainers()) {
                var sc = c.getSecurityContext();
                assertThat(sc.getAllowPrivilegeEscalation()).as(what).isFalse();
                assertThat(sc.getPrivileged()).as(what).isNotEqualTo(Boolean.TRUE);
                assertThat(sc.getCapabilities().getDrop()).as(what).containsExactly("ALL");
                assertThat(sc.getCapabilities().getAdd()).as(what).isNullOrEmpty();
                assertThat(c.getPorts()).as(what).allMatch(p -> p.getHostPort() == null);
            }
        }
    }

    /** The extender container's environment, by name. */
    private static Map<String, String> extenderEnv(DesiredState state) {
        return podSpec(state.extenderDeployment()).getContainers().get(0).getEnv().stream()
                .collect(Collectors.toMap(e -> e.getName(), e -> e.getValue()));
    }

    private static PodSpec podSpec(Deployment deployment) {
        return deployment.getSpec().getTemplate().getSpec();
    }

    /** The ClusterRoles the extender's ServiceAccount is bound to. */
    private static List<String> extenderRoles(DesiredState state) {
        return state.all().stream()
                .filter(ClusterRoleBinding.class::isInstance)
                .map(ClusterRoleBinding.class::cast)
                .filter(b -> b.getSubjects().stream().anyMatch(s -> s.getName().equals("p-extender")))
                .map(b -> b.getRoleRef().getName())
                .toList();
    }
}
