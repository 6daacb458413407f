package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProfileEvents;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/**
 * What one test of the apiserver tier works with: a client (a {@code system:masters} user), the fake Deployment
 * controller and garbage collector, the operator's workload namespace, and an id of its own; and the few reads every
 * test needs. Profiles are cluster-scoped and every test shares the API server, so a test names its profiles briefly
 * ("p") and this tier makes the names unique ({@code p-<id>}): every method here takes the brief name.
 *
 * @param namespace the workload namespace, where every profile's objects go
 * @param id this test's suffix for its profiles' names
 */
record Tier(
        KubernetesClient client,
        FakeDeploymentController deployments,
        FakeGarbageCollector garbageCollector,
        String namespace,
        String id) {

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
