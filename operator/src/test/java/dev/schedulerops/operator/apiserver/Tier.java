package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileSpec;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProfileEvents;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What one test of the apiserver tier works with: a client (a {@code system:masters} user), the fake Deployment
 * controller and garbage collector, the operator's workload namespace, and an id of its own; and the few reads every
 * test needs. Profiles are cluster-scoped and every test shares the API server, so a test names its profiles briefly
 * ("p") and this tier makes the names unique ({@code p-<id>}): every method here takes the brief name.
 *
 * @param namespace the workload namespace, where every profile's objects go
 * @param id this test's suffix for its profiles' names
 * @param reconciles what the shared operator's reconciler did; null for an operator of the test's own
 */
record Tier(
        KubernetesClient client,
        FakeDeploymentController deployments,
        FakeGarbageCollector garbageCollector,
        String namespace,
        String id,
        ReconcileLog reconciles) {

    /** The cluster-wide name of this test's profile {@code profile}. */
    String name(String profile) {
        return profile + "-" + id;
    }

    /**
     * Creates this test's profile {@code name} (as {@link #name}); {@code specYaml} is the spec. A spec without a
     * schedulerName gets the profile's own name, as the operator defaults it.
     */
    SchedulerProfile createProfile(String name, String specYaml) {
        return createProfile(name, specYaml, java.util.Map.of());
    }

    SchedulerProfile createProfile(String name, String specYaml, java.util.Map<String, String> labels) {
        String spec = specYaml.stripIndent();
        StringBuilder yaml = new StringBuilder("apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\n"
                + "metadata:\n  name: " + name(name) + "\n");
        if (!labels.isEmpty()) {
            yaml.append("  labels:\n");
            labels.forEach((k, v) ->
                    yaml.append("    ").append(k).append(": \"").append(v).append("\"\n"));
        }
        yaml.append("spec:\n");
        spec.lines().forEach(l -> yaml.append("  ").append(l).append('\n'));
        try {
            return client.resource(ProfileYaml.readOne(yaml.toString())).create();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Names names(String profile) {
        return new Names(name(profile), namespace);
    }

    Resource<SchedulerProfile> profile(String name) {
        return client.resources(SchedulerProfile.class).withName(name(name));
    }

    /**
     * Changes a profile's spec as {@code kubectl patch --type merge} does: without a resource version, so an operator
     * writing the profile's status meanwhile is no conflict (fabric8's edit sends the version it read, and failed with
     * a 409 in CI when the status was written between its read and its patch). Only sets fields.
     */
    void editSpec(String name, Consumer<SchedulerProfileSpec> change) {
        SchedulerProfileSpec spec = profile(name).get().getSpec();
        change.accept(spec);
        profile(name).patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(Map.of("spec", spec)));
    }

    Optional<Condition> condition(String profile, String type) {
        SchedulerProfile current = profile(profile).get();
        if (current == null || current.getStatus() == null) {
            return Optional.empty();
        }
        return ProfileStatuses.find(current.getStatus().getConditions(), type);
    }

    /** Whether the profile's condition {@code type} has {@code status} and {@code reason}. */
    boolean hasCondition(String profile, String type, String status, String reason) {
        return condition(profile, type)
                .filter(c -> status.equals(c.getStatus()) && reason.equals(c.getReason()))
                .isPresent();
    }

    List<Condition> conditions(String profile) {
        SchedulerProfile current = profile(profile).get();
        return current == null || current.getStatus() == null
                ? List.of()
                : current.getStatus().getConditions();
    }

    Deployment deployment(String name) {
        return client.apps().deployments().inNamespace(namespace).withName(name).get();
    }

    ConfigMap configMap(String name) {
        return client.configMaps().inNamespace(namespace).withName(name).get();
    }

    /** Events the operator recorded on the profile. */
    List<Event> events(String profile) {
        return client.v1().events().inNamespace(ProfileEvents.NAMESPACE).list().getItems().stream()
                .filter(e -> name(profile).equals(e.getInvolvedObject().getName()))
                .toList();
    }

    boolean hasEvent(String profile, String type, String reason) {
        return events(profile).stream().anyMatch(e -> type.equals(e.getType()) && reason.equals(e.getReason()));
    }

    /** Marks the extender (or scheduler) Deployment of {@code profile} Available or not, as the controller would. */
    void extenderAvailable(String profile, boolean available) {
        deployments.setAvailable(namespace, names(profile).extender(), available);
    }

    void schedulerAvailable(String profile, boolean available) {
        deployments.setAvailable(namespace, names(profile).scheduler(), available);
    }

    /**
     * Waits until the operator has reconciled {@code profile} on what the API server holds now, so that whatever that
     * state leads it to do is done (and what it did not do, it will not do without a new event). The fake controller's
     * status of each Deployment at its generation comes first; then the test touches the extender Deployment (an
     * label the operator neither owns nor writes back, so the touch changes nothing it decides on; not an annotation, which
     * would make a new generation of the Deployment) and waits for
     * a reconcile that started with the touch in the operator's cache, and so with everything the Deployment informer
     * delivered before it, to finish. The profile's own changes are in the operator's cache by then: they started the
     * reconciles that wrote what the test waited for before calling this.
     */
    void reconciledAsOfNow(String profile) {
        if (reconciles == null) {
            throw new IllegalStateException("only the shared operator keeps a reconcile log");
        }
        Names names = names(profile);
        String touch;
        // The operator may write a Deployment between the read of its generation and the touch (a reconcile still
        // under way, such as a CA rotation's new bundle hash): then the touch did not land on a settled state, so wait
        // for the new generation's status and touch again, with a new value (the same one would change nothing).
        for (int attempt = 1; ; attempt++) {
            awaitStatusAtGeneration(names);
            touch = java.util.UUID.randomUUID().toString();
            long generation = deployment(names.extender()).getMetadata().getGeneration();
            Deployment touched = client.apps()
                    .deployments()
                    .inNamespace(namespace)
                    .withName(names.extender())
                    .patch(
                            PatchContext.of(PatchType.JSON_MERGE),
                            "{\"metadata\":{\"labels\":{\"" + ReconcileLog.TOUCH + "\":\"" + touch + "\"}}}");
            if (touched.getMetadata().getGeneration() == generation) {
                break;
            }
            if (attempt == 5) {
                throw new IllegalStateException(names.extender() + "'s spec kept changing under the touch");
            }
        }
        String landed = touch;
        Eventually.until(
                "a reconcile of " + name(profile) + " that saw touch " + landed + " finished",
                () -> reconciles.finishedWith(name(profile), landed));
    }

    private void awaitStatusAtGeneration(Names names) {
        for (String deployment : List.of(names.extender(), names.scheduler())) {
            Eventually.until(
                    deployment + "'s status is written at its generation",
                    () -> {
                        Deployment d = deployment(deployment);
                        return d == null
                                || d.getStatus() != null
                                        && d.getMetadata()
                                                .getGeneration()
                                                .equals(d.getStatus().getObservedGeneration());
                    },
                    () -> deployment(deployment));
        }
    }

    /** Creates the profile and waits until it is Ready, its two Deployments marked Available. */
    void rollOut(String profile, String specYaml) {
        extenderAvailable(profile, true);
        schedulerAvailable(profile, true);
        createProfile(profile, specYaml);
        Eventually.until(
                profile + " is Ready",
                () -> hasCondition(profile, ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                () -> conditions(profile));
    }
}
