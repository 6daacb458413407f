package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProtectedNamespaces;
import dev.schedulerops.operator.reconcile.RolloutSlots;
import dev.schedulerops.operator.runtime.OperatorConfig;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

/**
 * The operator under the namespaced RBAC of deploy/overlays/namespaced (the very files, applied by an admin), on a
 * kube-apiserver that authorizes with RBAC: it runs as its ServiceAccount (impersonated), with
 * watchNamespaces=team-a,team-b and leader election on. A profile in team-a becomes all its objects (the kube-system
 * RoleBinding and the cluster-scoped RBAC included) and goes away completely; a profile in the unwatched team-c is
 * ignored; nothing in the log says forbidden. Its own API server: the shared tier's operator watches every namespace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NamespacedRbacTest {
    private static final Path DEPLOY = Path.of("..", "deploy");
    private static final String OPERATOR_NAMESPACE = "schedulerops-system";
    private static final String SERVICE_ACCOUNT =
            "system:serviceaccount:" + OPERATOR_NAMESPACE + ":schedulerops-operator";

    private BareApiServer apiServer;
    private KubernetesClient admin;
    private KubernetesClient asOperator;
    private FakeDeploymentController deployments;
    private FakeGarbageCollector garbageCollector;
    private OperatorRuntime operator;
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    @BeforeAll
    void startTheOperatorAsItsServiceAccount() throws IOException {
        apiServer = BareApiServer.start(
                ControlPlaneBinaries.locate(),
                Path.of(
                                "target",
                                "apiserver-rbac",
                                String.valueOf(ProcessHandle.current().pid()))
                        .toAbsolutePath());
        admin = apiServer.client();
        for (String namespace : List.of(OPERATOR_NAMESPACE, "team-a", "team-b", "team-c")) {
            admin.resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(namespace)
                            .endMetadata()
                            .build())
                    .create();
        }
        apply(DEPLOY.resolve("crds/schedulerprofiles.schedulerops.dev-v1.yml"));
        admin.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("schedulerprofiles.schedulerops.dev")
                .waitUntilCondition(
                        c -> c != null
                                && c.getStatus() != null
                                && c.getStatus().getConditions() != null
                                && c.getStatus().getConditions().stream()
                                        .anyMatch(cond -> "Established".equals(cond.getType())
                                                && "True".equals(cond.getStatus())),
                        30,
                        TimeUnit.SECONDS);
        // What `kubectl kustomize deploy/overlays/namespaced` renders for RBAC: the base's ServiceAccount, binding and
        // leader-election Role, the overlay's ClusterRole (its patch is a whole ClusterRole) and Roles.
        for (String file : List.of(
                "rbac/service-account.yaml",
                "rbac/cluster-role-binding.yaml",
                "rbac/leader-election-role.yaml",
                "overlays/namespaced/cluster-role-patch.yaml",
                "overlays/namespaced/kube-system-role.yaml",
                "overlays/namespaced/team-a-role.yaml",
                "overlays/namespaced/team-b-role.yaml")) {
            apply(DEPLOY.resolve(file));
        }

        Config adminConfig = admin.getConfiguration();
        asOperator = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(adminConfig)
                        .withImpersonateUsername(SERVICE_ACCOUNT)
                        .withImpersonateGroups(
                                "system:serviceaccounts",
                                "system:serviceaccounts:" + OPERATOR_NAMESPACE,
                                "system:authenticated")
                        .build())
                .build();
        assertThatThrownBy(() -> asOperator.configMaps().inNamespace("team-c").list())
                .as("sanity: the impersonated identity is not an admin")
                .isInstanceOf(KubernetesClientException.class);

        deployments = new FakeDeploymentController(admin);
        garbageCollector = new FakeGarbageCollector(admin);
        ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        log.start();
        root.addAppender(log);
        operator = OperatorRuntime.start(
                new OperatorConfig(
                        Set.of("team-a", "team-b"),
                        true,
                        OPERATOR_NAMESPACE,
                        OperatorConfig.LEASE_NAME,
                        "example.com/extender:test",
                        "registry.k8s.io/kube-scheduler",
                        "text",
                        0,
                        "127.0.0.1",
                        ProtectedNamespaces.DEFAULT,
                        RolloutSlots.DEFAULT_MAX,
                        300,
                        OperatorConfig.DEFAULT_API_QPS,
                        OperatorConfig.DEFAULT_API_BURST,
                        OperatorConfig.DEFAULT_RECONCILE_THREADS),
                asOperator);
    }

    @AfterAll
    void stop() {
        ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAppender(log);
        try {
            if (operator != null) {
                operator.close();
            }
        } finally {
            if (deployments != null) {
                deployments.close();
            }
            if (garbageCollector != null) {
                garbageCollector.close();
            }
            if (asOperator != null) {
                asOperator.close();
            }
            if (admin != null) {
                admin.close();
            }
            apiServer.close();
        }
    }

    @Test
    void aWatchedProfileRollsOutAndGoesAndAnUnwatchedOneIsIgnored() {
        Tier teamA = new Tier(admin, deployments, garbageCollector, "team-a");
        Tier teamC = new Tier(admin, deployments, garbageCollector, "team-c");
        teamC.createProfile("ignored", "labelKey: example.com/rank");
        teamA.rollOut("watched", "labelKey: example.com/rank\nverbs: [Filter, Prioritize, Bind]");

        Names names = teamA.names("watched");
        assertThat(teamA.configMap(names.schedulerConfig())).isNotNull();
        assertThat(admin.rbac()
                        .roleBindings()
                        .inNamespace(Names.KUBE_SYSTEM)
                        .withName(names.authReaderBinding())
                        .get())
                .as("the RoleBinding in kube-system, through the kube-system Role")
                .isNotNull();
        assertThat(admin.rbac()
                        .roles()
                        .inNamespace("team-a")
                        .withName(names.schedulerLease())
                        .get())
                .as("the scheduler's lease Role, through the escalation check under the team-a Role")
                .isNotNull();
        assertThat(admin.rbac()
                        .clusterRoles()
                        .withName(names.extenderClusterRole())
                        .get())
                .as("the extender's ClusterRole with pods/binding, through the small ClusterRole")
                .isNotNull();
        Lease lease = admin.leases()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(OperatorConfig.LEASE_NAME)
                .get();
        assertThat(lease)
                .as("the operator's own lease, through the leader-election Role")
                .isNotNull();

        // The unwatched profile: no finalizer, no status, nothing created.
        SchedulerProfile ignored = teamC.profile("ignored").get();
        assertThat(ignored.getStatus()).isNull();
        assertThat(ignored.getMetadata().getFinalizers()).isNullOrEmpty();
        assertThat(objectsOf("ignored", "team-c")).isEmpty();

        teamA.profile("watched").delete();
        Eventually.until(
                "the watched profile and everything it became are gone",
                () -> teamA.profile("watched").get() == null
                        && objectsOf("watched", "team-a").isEmpty(),
                () -> objectsOf("watched", "team-a"));

        List<String> forbidden = log.list.stream()
                .filter(e -> mentionsForbidden(e.getFormattedMessage()) || mentionsForbidden(e.getThrowableProxy()))
                .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
                .toList();
        assertThat(forbidden).as("log lines that mention forbidden").isEmpty();
    }

    private List<HasMetadata> objectsOf(String profile, String namespace) {
        List<HasMetadata> found = new ArrayList<>();
        for (Class<? extends HasMetadata> type : List.of(
                io.fabric8.kubernetes.api.model.apps.Deployment.class,
                io.fabric8.kubernetes.api.model.ServiceAccount.class,
                io.fabric8.kubernetes.api.model.ConfigMap.class,
                io.fabric8.kubernetes.api.model.Service.class,
                io.fabric8.kubernetes.api.model.rbac.Role.class,
                RoleBinding.class)) {
            found.addAll(admin.resources(type)
                    .inAnyNamespace()
                    .withLabel(Labels.PROFILE, profile)
                    .withLabel(Labels.PROFILE_NAMESPACE, namespace)
                    .list()
                    .getItems());
        }
        found.addAll(admin.rbac()
                .clusterRoles()
                .withLabel(Labels.PROFILE, profile)
                .withLabel(Labels.PROFILE_NAMESPACE, namespace)
                .list()
                .getItems());
        found.addAll(admin.rbac()
                .clusterRoleBindings()
                .withLabel(Labels.PROFILE, profile)
                .withLabel(Labels.PROFILE_NAMESPACE, namespace)
                .list()
                .getItems());
        return found;
    }

    /**
     * An RBAC refusal of this operator's identity ("... is forbidden: User \"system:serviceaccount:...\" cannot ...").
     * Other apiserver-tier classes' operator may log other "forbidden" errors (a quota) in the same JVM; it runs as an
     * admin, so it never logs this identity.
     */
    private static boolean mentionsForbidden(String text) {
        return text != null && text.toLowerCase(Locale.ROOT).contains("forbidden") && text.contains(SERVICE_ACCOUNT);
    }

    private static boolean mentionsForbidden(IThrowableProxy throwable) {
        for (IThrowableProxy t = throwable; t != null; t = t.getCause()) {
            if (mentionsForbidden(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    private void apply(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            for (HasMetadata object : admin.load(in).items()) {
                admin.resource(object).serverSideApply();
            }
        }
    }
}
