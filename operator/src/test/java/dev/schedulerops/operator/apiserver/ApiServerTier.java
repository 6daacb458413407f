package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.reconcile.ProfileEvents;
import dev.schedulerops.operator.reconcile.SchedulerProfileReconciler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The apiserver test tier: the real {@link SchedulerProfileReconciler}, in this JVM, against a {@link BareApiServer}
 * with the committed CRD, a {@link FakeDeploymentController} and a {@link FakeGarbageCollector}. One control plane and
 * one operator (workload namespace {@link #WORKLOAD_NAMESPACE}) serve the whole test run (they are stopped when it
 * ends, failed or not); each test gets an id of its own that makes its profiles' names unique, so tests are
 * independent and may run in any order. A test method takes a {@link Tier} parameter. A test that needs an operator
 * of its own labels its profiles {@link #OWN_OPERATOR}: the shared operator leaves those alone.
 */
public final class ApiServerTier implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(ApiServerTier.class);
    static final String WORKLOAD_NAMESPACE = "schedulerops-system";
    /** The label of profiles that a test's own operator reconciles (its value selects them). */
    static final String OWN_OPERATOR = "tier.schedulerops.dev/operator";

    @Override
    public void beforeAll(ExtensionContext context) {
        shared(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        String method = context.getRequiredTestMethod().getName().toLowerCase(Locale.ROOT);
        String id = method.substring(0, Math.min(24, method.length())) + "-"
                + UUID.randomUUID().toString().substring(0, 5);
        Shared shared = shared(context);
        context.getStore(STORE)
                .put(
                        "tier",
                        new Tier(
                                shared.client,
                                shared.deployments,
                                shared.garbageCollector,
                                WORKLOAD_NAMESPACE,
                                id,
                                shared.reconciles));
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Tier.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getStore(STORE).get("tier", Tier.class);
    }

    private static Shared shared(ExtensionContext context) {
        return context.getRoot().getStore(STORE).getOrComputeIfAbsent("shared", key -> Shared.start(), Shared.class);
    }

    /** The control plane, the fake controller and the operator; closed by JUnit when the whole run ends. */
    /** Where this JVM's API server and etcd keep their data and logs. */
    static Path workDir() {
        return Path.of(
                        "target",
                        "apiserver-tier",
                        String.valueOf(ProcessHandle.current().pid()))
                .toAbsolutePath();
    }

    /** The API server's audit log (see {@link BareApiServer#auditLog()}). */
    static Path auditLog() {
        return workDir().resolve("audit.log");
    }

    static final class Shared implements ExtensionContext.Store.CloseableResource {
        final BareApiServer apiServer;
        final KubernetesClient client;
        final FakeDeploymentController deployments;
        final FakeGarbageCollector garbageCollector;
        final Operator operator;
        final ReconcileLog reconciles;

        private Shared(
                BareApiServer apiServer,
                KubernetesClient client,
                FakeDeploymentController deployments,
                FakeGarbageCollector garbageCollector,
                Operator operator,
                ReconcileLog reconciles) {
            this.apiServer = apiServer;
            this.client = client;
            this.deployments = deployments;
            this.garbageCollector = garbageCollector;
            this.operator = operator;
            this.reconciles = reconciles;
        }

        static Shared start() {
            BareApiServer apiServer = BareApiServer.start(ControlPlaneBinaries.locate(), workDir());
            KubernetesClient client = null;
            FakeDeploymentController deployments = null;
            FakeGarbageCollector garbageCollector = null;
            try {
                client = apiServer.client();
                installCrd(client);
                client.resource(new NamespaceBuilder()
                                .withNewMetadata()
                                .withName(WORKLOAD_NAMESPACE)
                                .endMetadata()
                                .build())
                        .create();
                deployments = new FakeDeploymentController(client);
                garbageCollector = new FakeGarbageCollector(client);
                String version = client.getKubernetesVersion().getGitVersion();
                // The operator is a user of its own, so the audit log tells its requests apart (SteadyStateTest).
                KubernetesClient operatorClient = apiServer.operatorClient();
                SchedulerProfileReconciler reconciler = new SchedulerProfileReconciler(
                        ClusterFacts.forVersion(version.replaceAll("[+].*$", ""))
                                .withWorkloadNamespace(WORKLOAD_NAMESPACE),
                        new ProfileEvents(operatorClient, "apiserver-tier"));
                ReconcileLog reconciles = new ReconcileLog(WORKLOAD_NAMESPACE);
                Operator operator = new Operator(o -> o.withKubernetesClient(operatorClient)
                        .withCloseClientOnStop(true)
                        .withStopOnInformerErrorDuringStartup(true)
                        .withMetrics(reconciles));
                operator.register(reconciler, o -> o.withLabelSelector("!" + OWN_OPERATOR));
                operator.start();
                return new Shared(apiServer, client, deployments, garbageCollector, operator, reconciles);
            } catch (RuntimeException e) {
                if (deployments != null) {
                    deployments.close();
                }
                if (garbageCollector != null) {
                    garbageCollector.close();
                }
                if (client != null) {
                    client.close();
                }
                apiServer.close();
                throw e;
            }
        }

        /** The CRD the build generated into crds/ (at process-classes, before the tests), established. */
        private static void installCrd(KubernetesClient client) {
            Path file = Path.of("..", "crds", "schedulerprofiles.schedulerops.dev-v1.yml");
            HasMetadata crd;
            try (InputStream in = Files.newInputStream(file)) {
                crd = client.load(in).items().get(0);
            } catch (IOException e) {
                throw new UncheckedIOException("could not read the generated CRD " + file.toAbsolutePath(), e);
            }
            client.resource(crd).serverSideApply();
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(crd.getMetadata().getName())
                    .waitUntilCondition(
                            c -> c != null
                                    && c.getStatus() != null
                                    && c.getStatus().getConditions() != null
                                    && c.getStatus().getConditions().stream()
                                            .anyMatch(cond -> "Established".equals(cond.getType())
                                                    && "True".equals(cond.getStatus())),
                            30,
                            TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            try {
                operator.stop();
            } finally {
                try {
                    deployments.close();
                    garbageCollector.close();
                    client.close();
                } finally {
                    apiServer.close();
                }
            }
        }
    }
}
