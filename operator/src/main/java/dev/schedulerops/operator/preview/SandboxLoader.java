package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Fills the sandbox API server with the copied objects before any scheduler starts, so that each scheduler's first
 * list holds the whole snapshot: namespaces and PriorityClasses, then Nodes, Services and controllers, then the bound
 * pods (created with their nodeName, as kubelets' pods are). Each group goes in parallel.
 */
public final class SandboxLoader {
    /** Requests in flight at once: the sandbox API server, not this client, is the limit. */
    static final int PARALLEL = 8;

    private SandboxLoader() {}

    public static void load(KubernetesClient sandbox, SandboxContents contents) {
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL, r -> {
            Thread t = new Thread(r, "sandbox-load");
            t.setDaemon(true);
            return t;
        });
        try {
            createAll(sandbox, pool, concat(contents.namespaces(), contents.priorityClasses()));
            createAll(sandbox, pool, concat(contents.nodes(), contents.services(), contents.controllers()));
            createAll(sandbox, pool, contents.boundPods());
        } finally {
            pool.shutdownNow();
        }
    }

    @SafeVarargs
    private static List<ObjectNode> concat(List<ObjectNode>... lists) {
        List<ObjectNode> all = new ArrayList<>();
        for (List<ObjectNode> list : lists) {
            all.addAll(list);
        }
        return all;
    }

    static void createAll(KubernetesClient sandbox, ExecutorService pool, List<ObjectNode> objects) {
        List<Future<?>> futures = new ArrayList<>();
        for (ObjectNode object : objects) {
            futures.add(pool.submit(() -> SandboxApi.create(sandbox, object)));
        }
        for (Future<?> future : futures) {
            try {
                future.get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new SandboxException(e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxException("interrupted while loading the sandbox", e);
            }
        }
    }
}
