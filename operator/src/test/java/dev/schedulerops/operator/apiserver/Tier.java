package dev.schedulerops.operator.apiserver;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
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
 * controller and garbage collector, and a namespace of its own; and the few reads every test needs.
 */
record Tier(
        KubernetesClient client,
        FakeDeploymentController deployments,
        FakeGarbageCollector garbageCollector,
        String namespace) {

    /**
     * Creates a profile in this test's namespace; {@code specYaml} is the spec. schedulerNames are unique
     * cluster-wide and every test shares the API server, so a spec without one gets {@code <name>-<namespace>}.
     */
    SchedulerProfile createProfile(String name, String specYaml) {
        String spec = specYaml.stripIndent();
        if (spec.lines().noneMatch(l -> l.startsWith("schedulerName:"))) {
            spec = spec + (spec.endsWith("\n") ? "" : "\n") + "schedulerName: " + name + "-" + namespace + "\n";
        }
        String yaml = "apiVersion: schedulerops.dev/v1alpha1\nkind: SchedulerProfile\nmetadata:\n  name: " + name
                + "\n  namespace: " + namespace + "\nspec:\n"
                + spec.lines().map(l -> "  " + l + "\n").reduce("", String::concat);
        try {
            return client.resource(ProfileYaml.readOne(yaml)).create();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Names names(String profile) {
        return new Names(profile, namespace);
    }

    Resource<SchedulerProfile> profile(String name) {
        return client.resources(SchedulerProfile.class).inNamespace(namespace).withName(name);
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
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> profile.equals(e.getInvolvedObject().getName()))
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
