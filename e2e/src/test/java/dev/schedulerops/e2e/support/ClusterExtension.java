package dev.schedulerops.e2e.support;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test class a {@link Cluster}: the run's one cluster (started with {@code e2e/cluster up} when absent,
 * reused when present). Fails, rather than skips, when the binaries are missing. When a test fails, the
 * component logs, the child-process logs and the test namespaces' pods and events are copied to
 * {@code e2e/target/cluster-logs/<TestClass>/<test>/}.
 */
public final class ClusterExtension
        implements BeforeAllCallback, AfterAllCallback, AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ClusterExtension.class);
    private static final String CLUSTER = "cluster";

    @Override
    public void beforeAll(ExtensionContext context) {
        // @Nested classes share their enclosing class's Cluster: the store lookup falls back to the parent.
        if (context.getStore(NAMESPACE).get(CLUSTER, Cluster.class) == null) {
            context.getStore(NAMESPACE)
                    .put(CLUSTER, Cluster.open(context.getRequiredTestClass().getSimpleName()));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (failed(context)) {
            cluster(context).captureFailureLogs(testName(context));
        }
    }

    /** Failed, not skipped: a failed assumption is no failure and leaves no failure logs. */
    private static boolean failed(ExtensionContext context) {
        return context.getExecutionException()
                .filter(e -> !(e instanceof org.opentest4j.TestAbortedException))
                .isPresent();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Cluster cluster = context.getStore(NAMESPACE).remove(CLUSTER, Cluster.class);
        if (cluster == null) {
            return; // owned by an enclosing class
        }
        if (failed(context)) {
            cluster.captureFailureLogs("class");
        }
        cluster.close();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Cluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return cluster(context);
    }

    private static String testName(ExtensionContext context) {
        String method = context.getRequiredTestMethod().getName();
        String display = context.getDisplayName();
        return display.startsWith(method + "(") ? method : method + "-" + display;
    }

    private static Cluster cluster(ExtensionContext context) {
        Cluster cluster = context.getStore(NAMESPACE).get(CLUSTER, Cluster.class);
        if (cluster == null) {
            throw new IllegalStateException("ClusterExtension has not opened a cluster for " + context.getUniqueId());
        }
        return cluster;
    }
}
