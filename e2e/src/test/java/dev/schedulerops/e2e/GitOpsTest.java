package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.schedulerops.e2e.support.ArgoCdControllers;
import dev.schedulerops.e2e.support.ArgoCdHealth;
import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.FluxControllers;
import dev.schedulerops.e2e.support.GitServer;
import dev.schedulerops.e2e.support.GitWorkTree;
import dev.schedulerops.e2e.support.ThirdPartyTools;
import dev.schedulerops.e2e.support.Timeline;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Profiles managed through Git by a real Flux (source-controller and kustomize-controller v1.9.6 as processes, with
 * the e2e cluster's admin credentials) from our Git server on 127.0.0.1, with this class's operator in-process. Two
 * Kustomizations apply the same commits: {@value #PLAIN} with {@code wait: true} alone (kstatus' own rules) onto
 * {@value #PROFILE}, and {@value #CEL} with the healthCheckExprs of deploy/README.md onto {@value #CEL_PROFILE}; both
 * are built from the Kustomization deploy/README.md shows. Every step holds for both. Argo CD's application controller
 * and repo server v3.1.16 (processes, with Redis) sync a third copy, {@value #ARGO_PROFILE}, through the Application
 * and argocd-cm deploy/README.md shows, on the same commits; without argocd or redis-server that part is skipped,
 * visibly (and fails under ./test). At the end Argo CD's own health code judges every state the profile went through.
 *
 * <p>Order matters: each step starts from the state the previous one left. {@code [gitops]} lines narrate it
 * ({@code ./demo --gitops} shows them).
 */
@AwaitsBackgroundBuild(BackgroundBuild.ARGOCD)
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GitOpsTest {
    static final String PROFILE = "label-priority";
    static final String CEL_PROFILE = "label-priority-cel";
    static final String PLAIN = "profiles";
    static final String CEL = "profiles-cel";
    static final String PLAIN_FILE = "samples/label-priority.yaml";
    static final String CEL_FILE = "samples-cel/label-priority-cel.yaml";
    /** Argo CD's copy, applied by Application {@value #APPLICATION}. */
    static final String ARGO_PROFILE = "label-priority-argo";

    static final String ARGO_FILE = "samples-argo/label-priority-argo.yaml";
    static final String APPLICATION = "profiles";
    /** The Kustomizations' interval: how soon Flux puts a hand edit back. */
    static final Duration INTERVAL = Duration.ofSeconds(15);

    static final String KUSTOMIZATION_API = "kustomize.toolkit.fluxcd.io/v1";
    static final String GIT_REPOSITORY_API = "source.toolkit.fluxcd.io/v1";
    static final String PROFILE_API = SchedulerProfile.API_VERSION;
    static final String INADMISSIBLE =
            "spec.weight: Invalid value: 0: spec.weight in body should be greater than or equal to 1";

    /** Kinds a profile becomes, watched in the workload namespace (and RoleBindings in kube-system). */
    static final List<Map.Entry<String, String>> OWNED_KINDS = List.of(
            Map.entry("v1", "ServiceAccount"),
            Map.entry("v1", "ConfigMap"),
            Map.entry("v1", "Secret"),
            Map.entry("v1", "Service"),
            Map.entry("apps/v1", "Deployment"),
            Map.entry("networking.k8s.io/v1", "NetworkPolicy"),
            Map.entry("policy/v1", "PodDisruptionBudget"),
            Map.entry("rbac.authorization.k8s.io/v1", "Role"),
            Map.entry("rbac.authorization.k8s.io/v1", "RoleBinding"));

    Cluster cluster;
    KubernetesClient client;
    /** The operator's workload namespace, also the value of this run's profile label. */
    String namespace;

    String fluxNamespace;
    FluxControllers flux;
    GitWorkTree git;
    Timeline timeline;
    OperatorRuntime operator;
    String sourceName;
    /** Argo CD's application controller, or null when it cannot run here (then {@link #argoLeftOut} says why). */
    ArgoCdControllers argo;

    String argoLeftOut;

    String argoNamespace;

    @BeforeAll
    void startFlux(Cluster cluster) throws IOException {
        String me = getClass().getSimpleName();
        Path fluxDir = ThirdPartyTools.flux(me);
        Path gitserver = ThirdPartyTools.gitserver(me);
        this.cluster = cluster;
        client = cluster.client();
        OperatorTests.installCrd(client);
        // KWOK nodes for the extender's and the scheduler's pods (shared with other classes, kept).
        cluster.ensureNodes(2, Map.of("type", "kwok"));
        namespace = OperatorTests.createRestrictedNamespace(cluster, "gitops-e2e");
        fluxNamespace = cluster.createNamespace("flux").getMetadata().getName();

        GitServer server = GitServer.start(cluster, gitserver);
        git = GitWorkTree.init(cluster.workDir("git-work"), server.url("platform.git"));
        String empty = git.commit(
                "An empty platform repository",
                Map.of(
                        "samples/README.md", "Profiles for Kustomization " + PLAIN + ".\n",
                        "samples-cel/README.md", "Profiles for Kustomization " + CEL + ".\n",
                        "samples-argo/README.md", "Profiles for Argo CD Application " + APPLICATION + ".\n"));

        flux = FluxControllers.start(cluster, fluxDir, fluxNamespace);
        timeline = new Timeline(client)
                .watch(PROFILE_API, SchedulerProfile.KIND, null, OperatorTests.RUN_LABEL, namespace)
                .watch(KUSTOMIZATION_API, "Kustomization", fluxNamespace, null, null)
                .watch("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", null, Labels.PROFILE, null)
                .watch("rbac.authorization.k8s.io/v1", "RoleBinding", "kube-system", Labels.PROFILE, null);
        for (Map.Entry<String, String> kind : OWNED_KINDS) {
            timeline.watch(kind.getKey(), kind.getValue(), namespace, Labels.PROFILE, null);
        }

        ObjectNode plain = kustomizationFromReadme(PLAIN, "./samples");
        ObjectNode cel = kustomizationFromReadme(CEL, "./samples-cel");
        ((ObjectNode) cel.get("spec")).set("healthCheckExprs", GitOpsReadme.fluxHealthCheckExprs());
        sourceName = plain.at("/spec/sourceRef/name").asText();
        create(Commands.json(
                """
                {"apiVersion": "%s", "kind": "GitRepository",
                 "metadata": {"name": "%s", "namespace": "%s"},
                 "spec": {"url": "%s", "ref": {"branch": "main"}, "interval": "5s"}}"""
                        .formatted(GIT_REPOSITORY_API, sourceName, fluxNamespace, server.url("platform.git"))));
        create(plain);
        create(cel);
        Await.until(
                Duration.ofSeconds(90),
                "both Kustomizations are Ready at the first commit",
                () -> readyAt(PLAIN, empty) && readyAt(CEL, empty));
        say("Setup: Flux (source-controller, kustomize-controller v1.9.6) follows " + server.url("platform.git")
                + ": Kustomization " + PLAIN + " (wait: true) applies ./samples, " + CEL
                + " (wait: true + the README's healthCheckExprs) ./samples-cel; both Ready at " + shortRevision(empty));
        startArgoCd(me, server.url("platform.git"), empty);
    }

    /** Argo CD's application controller with the README's argocd-cm and Application, when argocd and Redis are here. */
    void startArgoCd(String me, String repoUrl, String empty) {
        String what = "Argo CD's application controller";
        Optional<Path> argocd = ThirdPartyTools.argocdIfPresent(me, what);
        if (argocd.isEmpty()) {
            argoLeftOut = "argocd is not built (e2e/tools/build argocd)";
            return;
        }
        if (!Commands.onPath("redis-server")) {
            String reason = "redis-server is not installed (apt-get install -y redis-server; .ci/run installs it)";
            if (ThirdPartyTools.required()) {
                throw new IllegalStateException(reason);
            }
            System.out.println("SKIPPED " + me + " (" + what + "): " + reason);
            argoLeftOut = reason;
            return;
        }
        argoNamespace = cluster.createNamespace("argocd").getMetadata().getName();
        argo = ArgoCdControllers.start(cluster, argocd.get(), argoNamespace, GitOpsReadme.argocdCm());
        timeline.watch(ArgoCdControllers.APPLICATION_API, "Application", argoNamespace, null, null);
        ObjectNode app = GitOpsReadme.argoApplication();
        ((ObjectNode) app.get("metadata")).put("name", APPLICATION).put("namespace", argoNamespace);
        ((ObjectNode) app.at("/spec/source")).put("repoURL", repoUrl).put("path", "samples-argo");
        assertThat(app.at("/spec/syncPolicy/automated/prune").asBoolean()).isTrue();
        assertThat(app.at("/spec/syncPolicy/automated/selfHeal").asBoolean()).isTrue();
        create(app);
        Await.until(
                Duration.ofSeconds(90),
                "the Application is Synced at the first commit",
                () -> applicationAt(empty, "Healthy"));
        say("Setup: Argo CD (application controller, repo server v3.1.16) syncs Application " + APPLICATION
                + " (automated, prune, self-heal) from ./samples-argo; Synced and Healthy at " + shortRevision(empty));
    }

    @AfterAll
    void stopFlux() {
        if (timeline != null) {
            timeline.close();
        }
        // The Application carries no finalizer: deleting it leaves its profile, which self-heal no longer restores.
        if (argo != null) {
            client.genericKubernetesResources(ArgoCdControllers.APPLICATION_API, "Application")
                    .inNamespace(argoNamespace)
                    .delete();
        }
        // Flux first, so that nothing applies a profile again; deleting a Kustomization prunes what it applied.
        if (flux != null) {
            for (String kind : List.of("Kustomization", "GitRepository")) {
                var resources = client.genericKubernetesResources(
                                kind.equals("Kustomization") ? KUSTOMIZATION_API : GIT_REPOSITORY_API, kind)
                        .inNamespace(fluxNamespace);
                resources.delete();
                try {
                    Await.until(
                            Duration.ofSeconds(60),
                            kind + "s deleted by Flux",
                            () -> resources.list().getItems().isEmpty());
                } catch (AssertionError e) {
                    resources.list().getItems().forEach(r -> resources
                            .withName(r.getMetadata().getName())
                            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}"));
                }
            }
        }
        if (client != null && namespace != null) {
            OperatorTests.deleteProfiles(client, namespace);
        }
        if (operator != null) {
            operator.close();
        }
    }

    @Test
    @Order(1)
    void aCommittedProfileIsAppliedAndTheKustomizationWaitsUntilItIsReady() throws IOException {
        String sample = Files.readString(cluster.repoRoot().resolve("samples/label-priority.yaml"));
        String r1 = commit("Add the label-priority profile", sample);
        say("Step 1: Commit " + shortRevision(r1) + " adds " + PLAIN_FILE + " (and its copy " + CEL_FILE
                + "); the operator is not running yet");

        Await.until(
                Duration.ofSeconds(60),
                "Flux applies both profiles",
                () -> profileJson(PROFILE).isPresent()
                        && profileJson(CEL_PROFILE).isPresent());
        JsonNode fresh = profileJson(PROFILE).orElseThrow();
        assertThat(fresh.path("status"))
                .as("the CRD's status default, as the API server returns a profile nobody reconciled")
                .isEqualTo(Commands.json("{\"observedGeneration\":0,\"conditions\":[]}"));
        assertThat(Commands.labels(fresh))
                .containsEntry(OperatorTests.RUN_LABEL, namespace)
                .containsEntry("kustomize.toolkit.fluxcd.io/name", PLAIN)
                .containsEntry("kustomize.toolkit.fluxcd.io/namespace", fluxNamespace);
        // Nothing but observedGeneration 0 against generation 1 keeps kstatus from reading the profile as Current
        // here (no conditions yet): without the default, Flux was Ready about a second after applying it.
        Await.holdsFor(
                Duration.ofSeconds(12),
                "both Kustomizations keep running their health checks on the unobserved profiles",
                () -> healthCheckRunning(PLAIN, r1) && healthCheckRunning(CEL, r1));
        say(
                "Step 1: 12 s later both Kustomizations still wait: the profile reads status {observedGeneration: 0} (the CRD's"
                        + " default) against generation 1, and kstatus calls that InProgress");
        awaitApplication(r1, "Progressing");
        if (argo != null) {
            assertThat(Commands.labels(profileJson(ARGO_PROFILE).orElseThrow()))
                    .containsEntry(OperatorTests.RUN_LABEL, namespace);
            say("Step 1: Argo CD synced " + ARGO_PROFILE + " too: Synced, Progressing (the health check on status"
                    + " {observedGeneration: 0})");
        }

        operator = OperatorRuntime.start(OperatorTests.operatorConfig(Map.of(), namespace), client);
        Await.until(
                Duration.ofSeconds(120),
                "both Kustomizations are Ready at " + r1,
                () -> readyAt(PLAIN, r1) && readyAt(CEL, r1));

        for (Map.Entry<String, String> pair :
                Map.of(PLAIN, PROFILE, CEL, CEL_PROFILE).entrySet()) {
            String profile = pair.getValue();
            long kustomizationReady = firstReady(pair.getKey(), r1);
            long profileReady = first(profileChange(profile).and(e -> readyAtGeneration(e, 1)));
            long extenderAvailable = first(deploymentAvailable(profile + "-extender"));
            long schedulerAvailable = first(deploymentAvailable(profile + "-scheduler"));
            long reconciling = first(
                    profileChange(profile).and(e -> observed(e) == 1 && "True".equals(e.condition("Reconciling"))));
            // resourceVersions are etcd's global revisions: the order in which the API server wrote these.
            assertThat(List.of(extenderAvailable, schedulerAvailable, profileReady, kustomizationReady))
                    .as(
                            "extender Available, scheduler Available, %s Ready, Kustomization %s Ready",
                            profile, pair.getKey())
                    .isSorted();
            assertThat(reconciling)
                    .as("%s was observed with Reconciling=True before the Kustomization turned Ready", profile)
                    .isLessThan(kustomizationReady);
            assertThat(OperatorTests.isCurrent(profile(profile))).isTrue();
        }
        if (argo != null) {
            awaitApplication(r1, "Healthy");
            long healthy = first(applicationChange()
                    .and(e -> health(e).equals("Healthy")
                            && e.object().at("/status/sync/revision").asText().equals(r1)));
            long profileReady = first(profileChange(ARGO_PROFILE).and(e -> readyAtGeneration(e, 1)));
            assertThat(profileReady)
                    .as("%s Ready before the Application turned Healthy", ARGO_PROFILE)
                    .isLessThan(healthy);
        }
        say(
                "Step 1: Operator started: the extender, then the scheduler became Available, the profile Ready (Reconciling=True"
                        + " until then), and only then the Kustomizations turned Ready at " + shortRevision(r1)
                        + " (in the API server's write order)");
    }

    @Test
    @Order(2)
    void aWeightChangeRestartsTheSchedulerAndTheKustomizationWaitsForIt() {
        long mark = timeline.mark();
        Deployment schedulerBefore = deployment(PROFILE + "-scheduler").orElseThrow();
        long extenderGeneration =
                deployment(PROFILE + "-extender").orElseThrow().getMetadata().getGeneration();
        String hashBefore = profile(PROFILE).getStatus().getConfigHash();

        String r2 = commit("label-priority: weight 30", git.read(PLAIN_FILE).replace("weight: 20", "weight: 30"));
        Await.until(
                Duration.ofSeconds(120),
                "both Kustomizations are Ready at " + r2,
                () -> readyAt(PLAIN, r2) && readyAt(CEL, r2));

        SchedulerProfile changed = profile(PROFILE);
        assertThat(changed.getSpec().getWeight()).isEqualTo(30);
        assertThat(changed.getMetadata().getGeneration()).isEqualTo(2);
        assertThat(OperatorTests.isCurrent(changed)).isTrue();
        assertThat(changed.getStatus().getConfigHash()).isNotEqualTo(hashBefore);
        assertThat(deployment(PROFILE + "-scheduler")
                        .orElseThrow()
                        .getMetadata()
                        .getGeneration())
                .as("the scheduler restarted")
                .isGreaterThan(schedulerBefore.getMetadata().getGeneration());
        assertThat(deployment(PROFILE + "-extender").orElseThrow().getMetadata().getGeneration())
                .as("the extender is left alone")
                .isEqualTo(extenderGeneration);
        for (Map.Entry<String, String> pair :
                Map.of(PLAIN, PROFILE, CEL, CEL_PROFILE).entrySet()) {
            long progressing =
                    first(after(mark, kustomizationChange(pair.getKey()).and(e -> conditionOf(e.object(), "Reconciling")
                            .path("message")
                            .asText()
                            .startsWith("Running health checks for revision " + revision(r2)))));
            long rollingOut = first(after(
                    mark,
                    profileChange(pair.getValue())
                            .and(e -> observed(e) == 2 && "True".equals(e.condition("Reconciling")))));
            long profileReady = first(profileChange(pair.getValue()).and(e -> readyAtGeneration(e, 2)));
            long ready = firstReady(pair.getKey(), r2);
            assertThat(List.of(rollingOut, profileReady, ready))
                    .as(
                            "%s rolling out, %s Ready, Kustomization %s Ready",
                            pair.getValue(), pair.getValue(), pair.getKey())
                    .isSorted();
            assertThat(progressing)
                    .as("Kustomization %s ran its health checks on %s before it was Ready", pair.getKey(), r2)
                    .isLessThan(ready);
        }
        awaitApplication(r2, "Healthy");
        if (argo != null) {
            assertThat(profile(ARGO_PROFILE).getSpec().getWeight()).isEqualTo(30);
            assertThat(OperatorTests.isCurrent(profile(ARGO_PROFILE))).isTrue();
        }
        say("Step 2: Commit " + shortRevision(r2) + " sets weight 30: the scheduler restarted with the new config; both"
                + " Kustomizations went Reconciling, waited for the rollout, and are Ready at " + shortRevision(r2));
    }

    @Test
    @Order(3)
    void aProfileTheCrdRefusesFailsTheKustomizationWithTheAdmissionMessage() {
        String r3 = commit("label-priority: weight 0", git.read(PLAIN_FILE).replace("weight: 30", "weight: 0"));
        Await.until(
                Duration.ofSeconds(60),
                "both Kustomizations fail at " + r3,
                () -> failedAt(PLAIN, r3) && failedAt(CEL, r3));
        for (String name : List.of(PLAIN, CEL)) {
            JsonNode k = kustomizationJson(name);
            assertThat(readyCondition(k).path("message").asText()).as(name).contains(INADMISSIBLE);
            assertThat(k.at("/status/lastAppliedRevision").asText()).as(name).isNotEqualTo(revision(r3));
        }
        if (argo != null) {
            Await.until(Duration.ofSeconds(60), "Argo CD's sync of " + r3 + " fails", () -> {
                JsonNode app = applicationJson();
                return "OutOfSync".equals(app.at("/status/sync/status").asText())
                        && r3.equals(app.at("/status/sync/revision").asText())
                        && app.at("/status/operationState/message").asText().contains(INADMISSIBLE);
            });
            assertThat(profile(ARGO_PROFILE).getSpec().getWeight()).isEqualTo(30);
            say("Step 3: Argo CD: OutOfSync, the sync failed: \""
                    + firstLine(applicationJson()
                            .at("/status/operationState/message")
                            .asText()) + "\"");
        }
        SchedulerProfile untouched = profile(PROFILE);
        assertThat(untouched.getSpec().getWeight()).isEqualTo(30);
        assertThat(untouched.getMetadata().getGeneration()).isEqualTo(2);
        assertThat(OperatorTests.isCurrent(untouched)).isTrue();
        say("Step 3: Commit " + shortRevision(r3)
                + " sets weight 0: Flux's dry run is refused, both Kustomizations say \"" + INADMISSIBLE
                + "\"; the profile keeps weight 30");

        String r4 = revertLast();
        Await.until(
                Duration.ofSeconds(60),
                "both Kustomizations are Ready at " + r4,
                () -> readyAt(PLAIN, r4) && readyAt(CEL, r4));
        assertThat(profile(PROFILE).getMetadata().getGeneration()).isEqualTo(2);
        awaitApplication(r4, "Healthy");
        say("Step 3: Revert " + shortRevision(r4) + ": Ready again, the profile was never changed");
    }

    @Test
    @Order(4)
    void aProfileTheOperatorRefusesIsStalledAndTheKustomizationFailsEarly() {
        long schedulerGeneration =
                deployment(PROFILE + "-scheduler").orElseThrow().getMetadata().getGeneration();
        long extenderGeneration =
                deployment(PROFILE + "-extender").orElseThrow().getMetadata().getGeneration();
        String configVersion = configMapVersion(PROFILE);

        String refused = git.read(PLAIN_FILE)
                + """
                plugins:
                  score:
                    enabled:
                      - name: NoSuchPlugin
                        weight: 1
                """
                        .indent(2);
        String r5 = commit("label-priority: score with a plugin kube-scheduler does not have", refused);
        Await.until(
                Duration.ofSeconds(90),
                "both Kustomizations fail at " + r5,
                () -> failedAt(PLAIN, r5) && failedAt(CEL, r5));

        for (Map.Entry<String, String> pair :
                Map.of(PLAIN, PROFILE, CEL, CEL_PROFILE).entrySet()) {
            SchedulerProfile stalled = profile(pair.getValue());
            assertThat(stalled.getStatus().getObservedGeneration())
                    .isEqualTo(stalled.getMetadata().getGeneration());
            assertThat(OperatorTests.condition(stalled, "Stalled").orElseThrow().getStatus())
                    .isEqualTo("True");
            String why =
                    OperatorTests.condition(stalled, "Stalled").orElseThrow().getMessage();
            assertThat(why).contains("NoSuchPlugin");
            assertThat(OperatorTests.condition(stalled, "ConfigValid")
                            .orElseThrow()
                            .getReason())
                    .isEqualTo("InvalidConfig");
            String message = readyCondition(kustomizationJson(pair.getKey()))
                    .path("message")
                    .asText();
            assertThat(message)
                    .as("kustomize-controller reports kstatus' verdict on the profile")
                    .contains("failed early due to stalled resources")
                    .contains("SchedulerProfile/" + pair.getValue() + " status: 'Failed'");
            assertThat(OperatorTests.warnings(client, pair.getValue())).contains("InvalidConfig");
            if (pair.getKey().equals(PLAIN)) {
                say("Step 4: Commit " + shortRevision(r5)
                        + " adds score plugin NoSuchPlugin: the CRD admits it, the operator"
                        + " refuses it (Stalled=True: \"" + firstLine(why) + "\"); Flux fails at once: \"" + message
                        + "\"");
            }
        }
        if (argo != null) {
            awaitApplication(r5, "Degraded");
            assertThat(OperatorTests.condition(profile(ARGO_PROFILE), "Stalled")
                            .orElseThrow()
                            .getStatus())
                    .isEqualTo("True");
            say("Step 4: Argo CD: Synced at " + shortRevision(r5) + ", Degraded (the health check's verdict)");
        }
        Await.holdsFor(
                Duration.ofSeconds(5),
                "nothing of the refused spec is rolled out",
                () -> deployment(PROFILE + "-scheduler")
                                        .orElseThrow()
                                        .getMetadata()
                                        .getGeneration()
                                == schedulerGeneration
                        && deployment(PROFILE + "-extender")
                                        .orElseThrow()
                                        .getMetadata()
                                        .getGeneration()
                                == extenderGeneration
                        && configMapVersion(PROFILE).equals(configVersion));

        String r6 = revertLast();
        Await.until(
                Duration.ofSeconds(90),
                "both Kustomizations are Ready at " + r6,
                () -> readyAt(PLAIN, r6) && readyAt(CEL, r6));
        assertThat(OperatorTests.isCurrent(profile(PROFILE))).isTrue();
        assertThat(deployment(PROFILE + "-scheduler")
                        .orElseThrow()
                        .getMetadata()
                        .getGeneration())
                .as("back to the config it ran: no restart")
                .isEqualTo(schedulerGeneration);
        awaitApplication(r6, "Healthy");
        say("Step 4: Revert " + shortRevision(r6) + ": the profile is Ready again and both Kustomizations with it; the"
                + " scheduler never restarted");
    }

    @Test
    @Order(5)
    void aHandEditIsPutBackByFluxAndTheOperatorAndFluxNeverWriteInALoop() {
        String applied =
                kustomizationJson(PLAIN).at("/status/lastAppliedRevision").asText();
        long generation = profile(PROFILE).getMetadata().getGeneration();
        long mark = timeline.mark();
        long auditAtEdit = auditLog().map(GitOpsTest::size).orElse(0L);
        Instant edited = Instant.now();
        editWeightTo45(PROFILE);
        assertThat(profile(PROFILE).getSpec().getWeight())
                .as("kubectl edit changed it")
                .isEqualTo(45);
        cluster.kubectl("-n", namespace, "scale", "deployment/" + PROFILE + "-extender", "--replicas=5")
                .requireSuccess("kubectl scale");
        say("Step 5: kubectl edit sets the profile's weight to 45, and kubectl scale the extender to 5 replicas");
        long argoGeneration =
                argo == null ? 0 : profile(ARGO_PROFILE).getMetadata().getGeneration();
        Instant argoEdited = Instant.now();
        if (argo != null) {
            editWeightTo45(ARGO_PROFILE);
        }

        Await.until(
                INTERVAL.plus(Duration.ofSeconds(45)), "Flux puts the weight back, the operator the replicas", () -> {
                    SchedulerProfile p = profile(PROFILE);
                    return p.getSpec().getWeight() == 30
                            && deployment(PROFILE + "-extender")
                                            .orElseThrow()
                                            .getSpec()
                                            .getReplicas()
                                    == 2
                            && OperatorTests.isCurrent(p);
                });
        Instant reverted = timeline.since(mark).stream()
                .filter(e -> e.is(SchedulerProfile.KIND, PROFILE) && e.generation() == generation + 2)
                .map(Timeline.Entry::at)
                .findFirst()
                .orElseThrow();
        assertThat(Duration.between(edited, reverted))
                .as("Flux put the edit back at its next interval")
                .isLessThan(INTERVAL.plus(Duration.ofSeconds(10)));
        assertThat(kustomizationJson(PLAIN).at("/status/lastAppliedRevision").asText())
                .as("no new commit")
                .isEqualTo(applied);
        JsonNode weightOwner = profileJson(PROFILE).orElseThrow().at("/metadata/managedFields");
        assertThat(managerOf(weightOwner, "f:weight")).containsExactly("kustomize-controller");
        say("Step 5: Flux put weight 30 back "
                + Duration.between(edited, reverted).toSeconds() + " s after the edit (interval " + INTERVAL.toSeconds()
                + " s), the operator the 2 replicas");
        if (argo != null) {
            Await.until(Duration.ofSeconds(60), "Argo CD puts the weight back", () -> {
                SchedulerProfile p = profile(ARGO_PROFILE);
                return p.getSpec().getWeight() == 30 && OperatorTests.isCurrent(p);
            });
            Instant argoReverted = timeline.since(mark).stream()
                    .filter(e -> e.is(SchedulerProfile.KIND, ARGO_PROFILE) && e.generation() == argoGeneration + 2)
                    .map(Timeline.Entry::at)
                    .findFirst()
                    .orElseThrow();
            assertThat(generationsSeen(timeline.since(mark), SchedulerProfile.KIND, ARGO_PROFILE))
                    .as("spec writes to %s: the edit and Argo CD's self-heal", ARGO_PROFILE)
                    .containsExactly(argoGeneration + 1, argoGeneration + 2);
            awaitApplication(applicationJson().at("/status/sync/revision").asText(), "Healthy");
            say("Step 5: Argo CD's self-heal put weight 30 back on " + ARGO_PROFILE + " "
                    + Duration.between(argoEdited, argoReverted).toMillis() + " ms after the edit");
        }

        awaitQuiet(Duration.ofSeconds(5));
        Map<String, Long> repair = writesByObject(timeline.since(mark));
        auditLog()
                .ifPresent(
                        log -> say("Step 5: Audit log from the edits until all was repaired, write requests by client: "
                                + writeRequests(log, auditAtEdit)));
        assertThat(generationsSeen(timeline.since(mark), SchedulerProfile.KIND, PROFILE))
                .as("spec writes to the profile: the edit and Flux's revert")
                .containsExactly(generation + 1, generation + 2);

        long quiet = timeline.mark();
        long fluxRuns = reconciliations(PLAIN);
        Optional<Path> auditLog = auditLog();
        long auditMark = auditLog.map(GitOpsTest::size).orElse(0L);
        Duration window = INTERVAL.multipliedBy(2).plus(Duration.ofSeconds(5));
        Await.sleep(window.toMillis());
        long fluxRunsInWindow = reconciliations(PLAIN) - fluxRuns;
        Map<String, Long> writes = writesByObject(timeline.since(quiet));
        if (auditLog.isPresent()) {
            // With an audit log (e2e/cluster up with SCHEDULEROPS_AUDIT_POLICY) also the writes that changed nothing,
            // which no watch sees: every write request to the profiles and the workload namespace, by client.
            Map<String, Long> requests = writeRequests(auditLog.get(), auditMark);
            say("Step 5: Audit log of those " + window.toSeconds() + " s, write requests by client: " + requests);
            assertThat(requests.keySet())
                    .as("write requests at rest other than Flux's dry runs")
                    .allMatch(k -> k.endsWith("(dry run)"));
        }
        assertThat(timeline.failures()).isEmpty();
        assertThat(fluxRunsInWindow)
                .as("Flux reconciled %s during the window", PLAIN)
                .isGreaterThanOrEqualTo(2);
        assertThat(writes)
                .as("writes to the profiles and what they became, at rest (Flux, Argo CD and the operator)")
                .isEmpty();
        say("Step 5: Writes from the edits until all was repaired: " + repair);
        say("Step 5: Then " + window.toSeconds() + " s at rest: Flux applied " + PLAIN + " " + fluxRunsInWindow
                + " times, the API server recorded " + writes.size()
                + " writes to the profiles or anything they became");
    }

    /** {@code kubectl edit} of a profile as a person does it, with an editor that sets its weight from 30 to 45. */
    private void editWeightTo45(String profile) {
        Commands.run(
                        List.of(
                                Commands.kubectl(),
                                "--kubeconfig",
                                cluster.kubeconfig().toString(),
                                "edit",
                                "schedulerprofile/" + profile),
                        null,
                        Map.of("EDITOR", "sed -i -e 's/^  weight: 30$/  weight: 45/'"),
                        Duration.ofSeconds(60))
                .requireSuccess("kubectl edit");
    }

    @Test
    @Order(6)
    void removingTheFilePrunesTheProfileAndTeardownCompletesInOrder() {
        long mark = timeline.mark();
        Map<String, String> removal = new LinkedHashMap<>();
        removal.put(PLAIN_FILE, null);
        removal.put(CEL_FILE, null);
        removal.put(ARGO_FILE, null);
        String r7 = git.commit("Remove the label-priority profile", removal);
        refreshArgo();
        Await.until(
                Duration.ofSeconds(120),
                "both profiles are gone and both Kustomizations Ready at " + r7,
                () -> profileJson(PROFILE).isEmpty()
                        && profileJson(CEL_PROFILE).isEmpty()
                        && profileJson(ARGO_PROFILE).isEmpty()
                        && readyAt(PLAIN, r7)
                        && readyAt(CEL, r7));
        awaitApplication(r7, "Healthy");
        for (String profile :
                argo == null ? List.of(PROFILE, CEL_PROFILE) : List.of(PROFILE, CEL_PROFILE, ARGO_PROFILE)) {
            assertThat(OperatorTests.leftovers(client, namespace, profile))
                    .as(profile)
                    .isEmpty();
            List<Timeline.Entry> after = timeline.since(mark);
            long schedulerGone = rv(
                    after,
                    e -> e.is("Deployment", profile + "-scheduler")
                            && e.action().equals("DELETED"));
            long extenderDeleting = rv(after, e -> e.is("Deployment", profile + "-extender") && e.deleting());
            long extenderGone = rv(
                    after,
                    e -> e.is("Deployment", profile + "-extender") && e.action().equals("DELETED"));
            long bindingsDeleting = rv(
                    after,
                    e -> e.kind().equals("ClusterRoleBinding")
                            && profile.equals(Commands.labels(e.object()).get(Labels.PROFILE))
                            && (e.deleting() || e.action().equals("DELETED")));
            long profileGone = rv(
                    after,
                    e -> e.is(SchedulerProfile.KIND, profile) && e.action().equals("DELETED"));
            assertThat(List.of(schedulerGone, extenderDeleting, extenderGone, bindingsDeleting, profileGone))
                    .as(
                            "%s: scheduler gone, extender deleted, extender gone, cluster bindings deleted, profile gone",
                            profile)
                    .isSorted();
        }
        for (String name : List.of(PLAIN, CEL)) {
            assertThat(kustomizationJson(name).at("/status/inventory/entries"))
                    .as("%s's inventory", name)
                    .isEmpty();
        }
        say("Step 6: Commit " + shortRevision(r7)
                + " removes the file: Flux pruned both profiles, the operator removed the"
                + " scheduler, then the extender, then the cluster bindings, then let the profile go; both"
                + " Kustomizations are Ready with nothing in their inventory"
                + (argo == null ? "" : "; Argo CD pruned its copy and is Synced and Healthy"));
    }

    @Test
    @Order(7)
    void argoCdGivesEveryStateTheProfilePassedThroughTheVerdictOfTheHealthCheck() {
        Path argocd = ThirdPartyTools.argocd(getClass().getSimpleName());
        ArgoCdHealth argo = new ArgoCdHealth(argocd, GitOpsReadme.argocdCm(), cluster.workDir("argocd"));
        Map<String, JsonNode> states = new LinkedHashMap<>();
        for (Timeline.Entry e : timeline.matching(profileChange(PROFILE))) {
            states.putIfAbsent(healthInputs(e.object()), e.object());
        }
        Map<String, Long> verdicts = new TreeMap<>();
        boolean lua = Commands.onPath("lua5.1");
        for (JsonNode state : states.values()) {
            ArgoCdHealth.Health health = argo.of(state);
            ArgoCdHealth.Health expected = expectedHealth(state);
            assertThat(health.status()).as("Argo CD on %s", healthInputs(state)).isEqualTo(expected.status());
            assertThat(health.message())
                    .as("Argo CD on %s", healthInputs(state))
                    .startsWith(expected.message());
            if (lua) {
                Map.Entry<String, String> standalone = ArgoHealthCheckTest.evaluate("lua5.1", state);
                if (deleting(state)) {
                    // Argo CD answers "Pending deletion" itself, before any health Lua: only the status agrees.
                    assertThat(standalone.getKey())
                            .as("lua5.1 on %s", healthInputs(state))
                            .isEqualTo(health.status());
                } else {
                    assertThat(new ArgoCdHealth.Health(standalone.getKey(), standalone.getValue()))
                            .as("lua5.1 and Argo CD on %s", healthInputs(state))
                            .isEqualTo(health);
                }
            }
            verdicts.merge(health.status() + (deleting(state) ? " (pending deletion)" : ""), 1L, Long::sum);
        }
        assertThat(verdicts.keySet()).contains("Progressing", "Healthy", "Degraded");
        if (argo != null) {
            // The application controller's own verdicts on its copy, in the order it wrote them.
            List<String> healths = new ArrayList<>();
            for (Timeline.Entry e : timeline.matching(applicationChange())) {
                String h = health(e);
                if (!h.isEmpty()
                        && (healths.isEmpty()
                                || !healths.get(healths.size() - 1).equals(h))) {
                    healths.add(h);
                }
            }
            assertThat(healths)
                    .as("the Application's health over the steps")
                    .containsSubsequence("Healthy", "Progressing", "Healthy", "Degraded", "Healthy");
            say("Step 7: the application controller's health of Application " + APPLICATION + " over the steps: "
                    + String.join(" -> ", healths));
        }
        say("Step 7: Argo CD v3.1.16's own health code on the " + states.size() + " states " + PROFILE
                + " went through: "
                + verdicts
                + (lua ? "; lua5.1 gives the same (while deleting, Argo CD says \"Pending deletion\" itself)" : ""));
    }

    // --- what Argo CD should say --------------------------------------------------------------------------------

    /** The rules of deploy/README.md's Argo CD section: status and the start of the message. */
    static ArgoCdHealth.Health expectedHealth(JsonNode profile) {
        if (deleting(profile)) {
            // Argo CD's own rule for any object with a deletionTimestamp; the health Lua does not run.
            return new ArgoCdHealth.Health("Progressing", "Pending deletion");
        }
        long generation = profile.at("/metadata/generation").asLong();
        JsonNode observed = profile.at("/status/observedGeneration");
        if (observed.isMissingNode() || observed.asLong() < generation) {
            return new ArgoCdHealth.Health(
                    "Progressing",
                    "Waiting for the operator to observe generation " + generation + " (observed "
                            + (observed.isMissingNode() ? "none" : observed.asText()) + ")");
        }
        JsonNode configValid = conditionOf(profile, "ConfigValid");
        if ("False".equals(configValid.path("status").asText())) {
            return new ArgoCdHealth.Health(
                    "Degraded", configValid.path("reason").asText() + ": ");
        }
        JsonNode ready = conditionOf(profile, "Ready");
        if (ready.isMissingNode()) {
            return new ArgoCdHealth.Health("Progressing", "Waiting for the Ready condition");
        }
        String reason = ready.path("reason").asText();
        return switch (ready.path("status").asText()) {
            case "True" -> new ArgoCdHealth.Health("Healthy", reason);
            case "Unknown" -> new ArgoCdHealth.Health("Progressing", reason);
            default -> List.of("WaitingForExtender", "RollingOutScheduler", "WaitingForRolloutSlot")
                            .contains(reason)
                    ? new ArgoCdHealth.Health("Progressing", reason)
                    : new ArgoCdHealth.Health("Degraded", reason);
        };
    }

    static boolean deleting(JsonNode object) {
        return !object.at("/metadata/deletionTimestamp").asText().isEmpty();
    }

    /** What the health check reads: generation, observedGeneration and each condition's type, status and reason. */
    static String healthInputs(JsonNode profile) {
        StringBuilder key = new StringBuilder((deleting(profile) ? "deleting, " : "")
                + "generation " + profile.at("/metadata/generation").asText() + ", observed "
                + profile.at("/status/observedGeneration").asText("none"));
        for (JsonNode c : profile.at("/status/conditions")) {
            key.append(", ")
                    .append(c.path("type").asText())
                    .append('=')
                    .append(c.path("status").asText());
            if (!c.path("reason").asText().isEmpty()) {
                key.append('/').append(c.path("reason").asText());
            }
        }
        return key.toString();
    }

    // --- helpers -------------------------------------------------------------------------------------------------

    /**
     * Steps 1 to 6 check Argo CD's copy too when its application controller runs here. Without argocd or redis-server
     * that half is left out, and this test is skipped with the reason, so that the report shows it (under ./test,
     * which promises the tools, their absence fails the class instead).
     */
    @Test
    @Order(8)
    void argoCdsApplicationControllerTookPartInEveryStep() {
        assumeTrue(argo != null, () -> "Argo CD's half of steps 1 to 6 was left out: " + argoLeftOut);
        assertThat(argo.controller().isAlive())
                .as(
                        "Argo CD's application controller ran through the steps: %s",
                        argo.controller().tail())
                .isTrue();
    }

    static void say(String line) {
        System.out.println("[gitops] " + line);
    }

    ObjectNode kustomizationFromReadme(String name, String path) {
        ObjectNode k = GitOpsReadme.fluxKustomization();
        assertThat(k.at("/spec/wait").asBoolean())
                .as("the README's Kustomization waits")
                .isTrue();
        assertThat(k.at("/spec/prune").asBoolean())
                .as("the README's Kustomization prunes")
                .isTrue();
        ObjectNode metadata = (ObjectNode) k.get("metadata");
        metadata.put("name", name);
        metadata.put("namespace", fluxNamespace);
        ObjectNode spec = (ObjectNode) k.get("spec");
        spec.put("path", path);
        spec.put("interval", INTERVAL.toSeconds() + "s");
        spec.putObject("commonMetadata").putObject("labels").put(OperatorTests.RUN_LABEL, namespace);
        return k;
    }

    void create(JsonNode object) {
        client.resource(Serialization.unmarshal(object.toString(), GenericKubernetesResource.class))
                .create();
    }

    /**
     * The files of a commit: the profile for Kustomization {@value #PLAIN}, its copies for {@value #CEL} and for Argo
     * CD under other names; Argo CD's copy carries the operator's selector label itself (Flux adds it through the
     * Kustomization's commonMetadata).
     */
    Map<String, String> files(String profileYaml) {
        return Map.of(
                PLAIN_FILE,
                profileYaml,
                CEL_FILE,
                profileYaml.replace("name: " + PROFILE + "\n", "name: " + CEL_PROFILE + "\n"),
                ARGO_FILE,
                profileYaml.replace(
                        "name: " + PROFILE + "\n",
                        "name: " + ARGO_PROFILE + "\n  labels:\n    " + OperatorTests.RUN_LABEL + ": " + namespace
                                + "\n"));
    }

    /** Commits {@code profileYaml} (and its copies), pushes, and asks Argo CD to look at once, as a webhook would. */
    String commit(String message, String profileYaml) {
        String sha = git.commit(message, files(profileYaml));
        refreshArgo();
        return sha;
    }

    String revertLast() {
        String sha = git.revertLast();
        refreshArgo();
        return sha;
    }

    void refreshArgo() {
        if (argo != null) {
            client.genericKubernetesResources(ArgoCdControllers.APPLICATION_API, "Application")
                    .inNamespace(argoNamespace)
                    .withName(APPLICATION)
                    .patch(
                            PatchContext.of(PatchType.JSON_MERGE),
                            "{\"metadata\":{\"annotations\":{\"argocd.argoproj.io/refresh\":\"normal\"}}}");
        }
    }

    JsonNode applicationJson() {
        GenericKubernetesResource app = client.genericKubernetesResources(
                        ArgoCdControllers.APPLICATION_API, "Application")
                .inNamespace(argoNamespace)
                .withName(APPLICATION)
                .get();
        return app == null ? Commands.json("{}") : Commands.json(Serialization.asJson(app));
    }

    /** Synced at {@code sha} and of health {@code health}. */
    boolean applicationAt(String sha, String health) {
        JsonNode app = applicationJson();
        return "Synced".equals(app.at("/status/sync/status").asText())
                && sha.equals(app.at("/status/sync/revision").asText())
                && health.equals(app.at("/status/health/status").asText());
    }

    /** Waits, when Argo CD runs, until the Application is Synced at {@code sha} with {@code health}. */
    void awaitApplication(String sha, String health) {
        if (argo != null) {
            Await.until(
                    Duration.ofSeconds(120),
                    "Application " + APPLICATION + " Synced at " + sha + " and " + health,
                    () -> applicationAt(sha, health));
        }
    }

    static String revision(String sha) {
        return "main@sha1:" + sha;
    }

    static String shortRevision(String sha) {
        return sha.substring(0, 7);
    }

    JsonNode kustomizationJson(String name) {
        GenericKubernetesResource k = client.genericKubernetesResources(KUSTOMIZATION_API, "Kustomization")
                .inNamespace(fluxNamespace)
                .withName(name)
                .get();
        return k == null ? Commands.json("{}") : Commands.json(Serialization.asJson(k));
    }

    static JsonNode readyCondition(JsonNode object) {
        return conditionOf(object, "Ready");
    }

    static JsonNode conditionOf(JsonNode object, String type) {
        for (JsonNode c : object.at("/status/conditions")) {
            if (type.equals(c.path("type").asText())) {
                return c;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    /** Ready at {@code sha}: applied, healthy, and the status is about the current spec. */
    boolean readyAt(String name, String sha) {
        JsonNode k = kustomizationJson(name);
        return "True".equals(readyCondition(k).path("status").asText())
                && revision(sha).equals(k.at("/status/lastAppliedRevision").asText())
                && k.at("/status/observedGeneration").asLong()
                        == k.at("/metadata/generation").asLong();
    }

    boolean failedAt(String name, String sha) {
        JsonNode k = kustomizationJson(name);
        return "False".equals(readyCondition(k).path("status").asText())
                && revision(sha).equals(k.at("/status/lastAttemptedRevision").asText());
    }

    /** Applied {@code sha} and still waiting for its health checks: Reconciling=True, not Ready. */
    boolean healthCheckRunning(String name, String sha) {
        JsonNode k = kustomizationJson(name);
        return !"True".equals(readyCondition(k).path("status").asText())
                && "True".equals(conditionOf(k, "Reconciling").path("status").asText())
                && conditionOf(k, "Reconciling")
                        .path("message")
                        .asText()
                        .startsWith("Running health checks for revision " + revision(sha));
    }

    long firstReady(String name, String sha) {
        return first(kustomizationChange(name)
                .and(e -> "True".equals(e.condition("Ready"))
                        && e.object().at("/status/lastAppliedRevision").asText().equals(revision(sha))));
    }

    static Predicate<Timeline.Entry> applicationChange() {
        return e -> e.is("Application", APPLICATION);
    }

    static String health(Timeline.Entry e) {
        return e.object().at("/status/health/status").asText();
    }

    static Predicate<Timeline.Entry> kustomizationChange(String name) {
        return e -> e.is("Kustomization", name);
    }

    static Predicate<Timeline.Entry> profileChange(String name) {
        return e -> e.is(SchedulerProfile.KIND, name);
    }

    static Predicate<Timeline.Entry> after(long mark, Predicate<Timeline.Entry> filter) {
        return filter.and(e -> e.seq() > mark);
    }

    static Predicate<Timeline.Entry> deploymentAvailable(String name) {
        return e -> e.is("Deployment", name) && "True".equals(e.condition("Available"));
    }

    static long observed(Timeline.Entry e) {
        return e.object().at("/status/observedGeneration").asLong(-1);
    }

    static boolean readyAtGeneration(Timeline.Entry e, long generation) {
        return e.generation() == generation && observed(e) == generation && "True".equals(e.condition("Ready"));
    }

    /** The resourceVersion of the first entry that matches. */
    long first(Predicate<Timeline.Entry> filter) {
        return timeline.matching(filter).stream()
                .mapToLong(Timeline.Entry::resourceVersion)
                .min()
                .orElseThrow(() -> new AssertionError("no such change was seen; the timeline: " + timeline.entries()));
    }

    static long rv(List<Timeline.Entry> entries, Predicate<Timeline.Entry> filter) {
        return entries.stream()
                .filter(filter)
                .mapToLong(Timeline.Entry::resourceVersion)
                .min()
                .orElseThrow(() -> new AssertionError("no such change was seen in " + entries));
    }

    /** Waits until no watched object has changed for {@code quiet}. */
    void awaitQuiet(Duration quiet) {
        Await.until(Duration.ofSeconds(60), "nothing but the Kustomizations changes for " + quiet, () -> {
            long mark = timeline.mark();
            Await.sleep(quiet.toMillis());
            return writesByObject(timeline.since(mark)).isEmpty();
        });
    }

    /** Writes to our profiles and what they became ("Kind/name" to count), not to the Kustomizations. */
    Map<String, Long> writesByObject(List<Timeline.Entry> entries) {
        return entries.stream()
                .filter(e -> !e.kind().equals("Kustomization") && !e.kind().equals("Application"))
                .collect(Collectors.groupingBy(e -> e.kind() + "/" + e.name(), TreeMap::new, Collectors.counting()));
    }

    static List<Long> generationsSeen(List<Timeline.Entry> entries, String kind, String name) {
        List<Long> generations = new ArrayList<>();
        for (Timeline.Entry e : entries) {
            if (e.is(kind, name)
                    && (generations.isEmpty() || generations.get(generations.size() - 1) != e.generation())) {
                generations.add(e.generation());
            }
        }
        return generations;
    }

    /** The managers of the field {@code field} (e.g. "f:weight") of spec, as managedFields has them. */
    static List<String> managerOf(JsonNode managedFields, String field) {
        List<String> managers = new ArrayList<>();
        for (JsonNode entry : managedFields) {
            if (entry.at("/fieldsV1/f:spec").has(field)) {
                managers.add(entry.path("manager").asText());
            }
        }
        return managers;
    }

    /** The API server's audit log, when the cluster was started with one (SCHEDULEROPS_AUDIT_POLICY). */
    Optional<Path> auditLog() {
        Path log = cluster.kubeconfig().getParent().resolve("logs/audit.log");
        return Files.isRegularFile(log) ? Optional.of(log) : Optional.empty();
    }

    static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Write requests (create, update, patch, delete) after byte {@code from} of the audit log to SchedulerProfiles or
     * anything in the workload namespace, counted by "client verb resource", the client being the user agent's
     * program (kustomize-controller, the operator's fabric8 client, ...).
     */
    Map<String, Long> writeRequests(Path auditLog, long from) {
        try (var in = Files.newInputStream(auditLog)) {
            in.skipNBytes(from);
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                    .lines()
                    .map(Commands::json)
                    .filter(e -> e.path("stage").asText().equals("ResponseComplete"))
                    .filter(e -> List.of("create", "update", "patch", "delete")
                            .contains(e.path("verb").asText()))
                    .filter(e -> e.at("/objectRef/resource").asText().equals("schedulerprofiles")
                            || e.at("/objectRef/namespace").asText().equals(namespace))
                    .collect(Collectors.groupingBy(
                            e -> e.path("userAgent").asText().split("[/ ]")[0] + " "
                                    + e.path("verb").asText() + " "
                                    + e.at("/objectRef/resource").asText()
                                    + (e.at("/objectRef/subresource").asText().isEmpty()
                                            ? ""
                                            : "/"
                                                    + e.at("/objectRef/subresource")
                                                            .asText())
                                    + (e.path("requestURI").asText().contains("dryRun=") ? " (dry run)" : ""),
                            TreeMap::new,
                            Collectors.counting()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** How many reconciliations of Kustomization {@code name} kustomize-controller has logged as finished. */
    long reconciliations(String name) {
        return flux.kustomizeController()
                .log()
                .lines()
                .filter(line -> line.contains("Reconciliation finished") && line.contains("\"name\": \"" + name + "\""))
                .count();
    }

    Optional<JsonNode> profileJson(String name) {
        GenericKubernetesResource p = client.genericKubernetesResources(PROFILE_API, SchedulerProfile.KIND)
                .withName(name)
                .get();
        return Optional.ofNullable(p).map(r -> Commands.json(Serialization.asJson(r)));
    }

    SchedulerProfile profile(String name) {
        return client.resources(SchedulerProfile.class).withName(name).get();
    }

    Optional<Deployment> deployment(String name) {
        return Optional.ofNullable(client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(name)
                .get());
    }

    String configMapVersion(String profile) {
        return client.configMaps().inNamespace(namespace).withLabel(Labels.PROFILE, profile).list().getItems().stream()
                .map(cm -> cm.getMetadata().getName() + "@" + cm.getMetadata().getResourceVersion())
                .sorted()
                .collect(Collectors.joining(","));
    }

    static String firstLine(String text) {
        return text.lines().findFirst().orElse("");
    }
}
