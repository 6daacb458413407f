package dev.schedulerops.e2e.support;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The SchedulerProfile CRD as the build generated it into crds/, installed the one way every e2e test needs it. */
public final class Crds {
    public static final String NAME = "schedulerprofiles.schedulerops.dev";
    public static final String FILE = NAME + "-v1.yml";

    private Crds() {}

    public static Path file() {
        return E2eSettings.repoRoot().resolve("crds").resolve(FILE);
    }

    /**
     * Server-side applies crds/'s CRD and waits until it is Established. A CRD of another scope (left by a cluster
     * that ran an older build; the scope is immutable) is deleted first.
     */
    public static CustomResourceDefinition install(KubernetesClient client) {
        CustomResourceDefinition crd;
        try (InputStream in = Files.newInputStream(file())) {
            crd = client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + file() + ": build the operator module first", e);
        }
        CustomResourceDefinition existing = client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(NAME)
                .get();
        if (existing != null
                && !existing.getSpec().getScope().equals(crd.getSpec().getScope())) {
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(NAME)
                    .delete();
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(NAME)
                    .waitUntilCondition(java.util.Objects::isNull, 120, TimeUnit.SECONDS);
        }
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .resource(crd)
                .fieldManager("schedulerops-e2e")
                .forceConflicts()
                .serverSideApply();
        return client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(NAME)
                .waitUntilCondition(Crds::isEstablished, 60, TimeUnit.SECONDS);
    }

    /**
     * Installs crds/'s CRD as users do, {@code kubectl apply --server-side}, and waits until it is Established. For
     * the real-node classes: they share a cluster with InClusterTest's {@code kubectl apply -k deploy/}, and with one
     * field manager (kubectl's) neither apply conflicts with the other, whichever class runs first.
     */
    public static CustomResourceDefinition installWithKubectl(Cluster cluster) {
        cluster.kubectl("apply", "--server-side", "-f", file().toString())
                .requireSuccess("kubectl apply --server-side -f " + file());
        return cluster.client()
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(NAME)
                .waitUntilCondition(Crds::isEstablished, 60, TimeUnit.SECONDS);
    }

    /**
     * Waits until each named CRD is Established. Through the client rather than {@code kubectl wait}, which fails at
     * once while a CRD just created has no status.conditions yet (".status.conditions accessor error: <nil>"; it
     * failed GitOpsTest's start in a CI run).
     */
    public static void awaitEstablished(Cluster cluster, String... names) {
        for (String name : names) {
            cluster.client()
                    .apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(name)
                    .waitUntilCondition(Crds::isEstablished, 60, TimeUnit.SECONDS);
        }
    }

    public static boolean isEstablished(CustomResourceDefinition crd) {
        return crd != null
                && crd.getStatus() != null
                && crd.getStatus().getConditions() != null
                && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
