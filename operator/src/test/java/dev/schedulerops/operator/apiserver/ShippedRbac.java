package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * An API server of a test's own that authorizes with RBAC, with the CRD and the files of deploy/ a test names applied by
 * an admin, and a client that acts as the operator's ServiceAccount (impersonated): what the operator may do there is
 * exactly what those files grant.
 */
final class ShippedRbac implements AutoCloseable {
    static final Path DEPLOY = Path.of("..", "deploy");
    static final String OPERATOR_NAMESPACE = "schedulerops-system";
    static final String SERVICE_ACCOUNT = "system:serviceaccount:" + OPERATOR_NAMESPACE + ":schedulerops-operator";

    /** What {@code kubectl kustomize deploy/} renders for RBAC and admission (deploy/rbac/kustomization.yaml). */
    static final List<String> BASE = List.of(
            "rbac/service-account.yaml",
            "rbac/cluster-role.yaml",
            "rbac/cluster-role-binding.yaml",
            "rbac/workload-role.yaml",
            "rbac/kube-system-role.yaml",
            "rbac/profile-roles.yaml",
            "admission/operator-labels-policy.yaml",
            "admission/operator-rbac-policy.yaml",
            "admission/scheduler-leases-policy.yaml");

    private final BareApiServer apiServer;
    private final KubernetesClient admin;
    private final KubernetesClient asOperator;
    private final ch.qos.logback.core.read.ListAppender<ILoggingEvent> log =
            new ch.qos.logback.core.read.ListAppender<>();
    private FakeDeploymentController deployments;
    private FakeGarbageCollector garbageCollector;
    private dev.schedulerops.operator.runtime.OperatorRuntime operator;

    private ShippedRbac(BareApiServer apiServer, KubernetesClient admin, KubernetesClient asOperator) {
        this.apiServer = apiServer;
        this.admin = admin;
        this.asOperator = asOperator;
    }

    /**
     * @param name a directory name of this API server's own under target/
     * @param namespaces created besides the operator's
     * @param files under deploy/, applied after the CRD
     */
    static ShippedRbac start(String name, List<String> namespaces, List<String> files) {
        BareApiServer apiServer = BareApiServer.start(
                ControlPlaneBinaries.locate(),
                Path.of("target", name, String.valueOf(ProcessHandle.current().pid()))
                        .toAbsolutePath());
        KubernetesClient admin = apiServer.client();
        for (String namespace : concat(OPERATOR_NAMESPACE, namespaces)) {
            admin.resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(namespace)
                            .endMetadata()
                            .build())
                    .create();
        }
        apply(admin, DEPLOY.resolve("crds/schedulerprofiles.schedulerops.dev-v1.yml"));
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
        for (String file : files) {
            apply(admin, DEPLOY.resolve(file));
        }
        KubernetesClient asOperator = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(admin.getConfiguration())
                        .withImpersonateUsername(SERVICE_ACCOUNT)
                        .withImpersonateGroups(
                                "system:serviceaccounts",
                                "system:serviceaccounts:" + OPERATOR_NAMESPACE,
                                "system:authenticated")
                        .build())
                .build();
        assertThatThrownBy(
                        () -> asOperator.configMaps().inNamespace("kube-system").list())
                .as("sanity: the impersonated identity is not an admin")
                .isInstanceOf(KubernetesClientException.class);
        return new ShippedRbac(apiServer, admin, asOperator);
    }

    KubernetesClient admin() {
        return admin;
    }

    /**
     * Starts the operator as its ServiceAccount, with leader election on, loopback HTTP, the workload namespace
     * {@link #OPERATOR_NAMESPACE} and {@code settings} on top, beside the fake Deployment controller and garbage
     * collector; its log (and the rest of this JVM's) is kept for {@link #forbiddenInLog()}.
     */
    dev.schedulerops.operator.runtime.OperatorRuntime startOperator(java.util.Map<String, String> settings)
            throws IOException {
        deployments = new FakeDeploymentController(admin);
        garbageCollector = new FakeGarbageCollector(admin);
        log.start();
        rootLogger().addAppender(log);
        java.util.Map<String, String> env = new java.util.HashMap<>(java.util.Map.of(
                dev.schedulerops.operator.runtime.OperatorConfig.ENV_WORKLOAD_NAMESPACE, OPERATOR_NAMESPACE,
                dev.schedulerops.operator.runtime.OperatorConfig.ENV_LEADER_ELECTION, "true",
                dev.schedulerops.operator.runtime.OperatorConfig.ENV_HTTP_PORT, "0",
                dev.schedulerops.operator.runtime.OperatorConfig.ENV_HTTP_BIND_ADDRESS, "127.0.0.1"));
        env.putAll(settings);
        operator = dev.schedulerops.operator.runtime.OperatorRuntime.start(
                dev.schedulerops.operator.runtime.OperatorConfig.fromEnvironment(env, java.util.Optional::empty),
                asOperator);
        return operator;
    }

    /** A test's view of this API server, its profiles named {@code <name>-<id>}. */
    Tier tier(String id) {
        return new Tier(admin, deployments, garbageCollector, OPERATOR_NAMESPACE, id, null);
    }

    /** Log lines since {@link #startOperator} that report an RBAC refusal of the operator's identity. */
    List<String> forbiddenInLog() {
        return forbidden(log.list);
    }

    private static ch.qos.logback.classic.Logger rootLogger() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    KubernetesClient asOperator() {
        return asOperator;
    }

    /** Whether {@code user} may {@code verb} the {@code resource} (with "/subresource") of {@code group}. */
    boolean allowed(String user, String verb, String group, String resource, String namespace) {
        String[] parts = resource.split("/", 2);
        var review = new io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder()
                .withNewSpec()
                .withUser(user)
                .withGroups("system:serviceaccounts", "system:authenticated")
                .withNewResourceAttributes()
                .withVerb(verb)
                .withGroup(group)
                .withResource(parts[0])
                .withSubresource(parts.length > 1 ? parts[1] : null)
                .withNamespace(namespace.isEmpty() ? null : namespace)
                .endResourceAttributes()
                .endSpec()
                .build();
        return admin.authorization()
                .v1()
                .subjectAccessReview()
                .create(review)
                .getStatus()
                .getAllowed();
    }

    /**
     * Log lines that report an RBAC refusal of the operator's identity ("... is forbidden: User
     * \"system:serviceaccount:...\" cannot ..."). Other apiserver-tier classes' operator may log other "forbidden"
     * errors (a quota) in the same JVM; it runs as an admin, so it never logs this identity.
     */
    private static List<String> forbidden(List<ILoggingEvent> log) {
        return log.stream()
                .filter(e -> mentionsForbidden(e.getFormattedMessage()) || mentionsForbidden(e.getThrowableProxy()))
                .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
                .toList();
    }

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

    private static List<String> concat(String first, List<String> rest) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(first), rest.stream())
                .toList();
    }

    private static void apply(KubernetesClient admin, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            for (HasMetadata object : admin.load(in).items()) {
                admin.resource(object).serverSideApply();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        rootLogger().detachAppender(log);
        try {
            if (operator != null) {
                operator.close();
            }
        } finally {
            try {
                if (deployments != null) {
                    deployments.close();
                }
                if (garbageCollector != null) {
                    garbageCollector.close();
                }
                asOperator.close();
                admin.close();
            } finally {
                apiServer.close();
            }
        }
    }
}
