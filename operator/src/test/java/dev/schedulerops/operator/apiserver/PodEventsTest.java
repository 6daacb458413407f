package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerSpec;
import dev.schedulerops.operator.cli.ExplainCommand;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import dev.schedulerops.operator.runtime.OperatorConfig;
import dev.schedulerops.operator.runtime.OperatorRuntime;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Pods no scheduler will take are told why, on a real API server, by the operator running as its ServiceAccount under
 * deploy/rbac plus deploy/pod-events (nothing more): one pod for each cause (a profile not Ready, refused, deleted, a
 * misspelled schedulerName) gets exactly one Warning event, in its namespace, that names the profile and what to do;
 * pods of a Ready profile and of the default scheduler get none.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodEventsTest {
    private static final String TEAM = "team-a";
    private static final String GRACE_SECONDS = "2";

    private ShippedRbac rbac;
    private KubernetesClient admin;
    private OperatorRuntime operator;
    private Tier tier;

    @BeforeAll
    void startTheOperatorWithPodEvents() throws IOException {
        rbac = ShippedRbac.start(
                "apiserver-pod-events",
                List.of(TEAM),
                Stream.concat(ShippedRbac.BASE.stream(), Stream.of("pod-events/cluster-role.yaml"))
                        .toList());
        admin = rbac.admin();
        // The ServiceAccount admission plugin refuses pods without it; kube-controller-manager would create it.
        admin.resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("default")
                        .withNamespace(TEAM)
                        .endMetadata()
                        .build())
                .create();
        operator = rbac.startOperator(Map.of(
                OperatorConfig.ENV_POD_EVENTS, "true", OperatorConfig.ENV_POD_EVENTS_GRACE_SECONDS, GRACE_SECONDS));
        tier = rbac.tier("pe");
    }

    @AfterAll
    void stop() {
        if (rbac != null) {
            rbac.close();
        }
    }

    @Test
    void eachCauseIsToldOnceOnThePodAndOthersAreLeftAlone() throws Exception {
        tier.rollOut("ready", "labelKey: example.com/rank");
        tier.createProfile("waiting", "labelKey: example.com/rank");
        // Refused from the start: nothing runs for it.
        tier.createProfile(
                "refused",
                "labelKey: example.com/rank\nscheduler:\n  image: attacker.example.com/kube-scheduler:v1.33.0");
        // Refused later: the scheduler of its last good spec keeps running, and its pods are not told anything.
        tier.rollOut("changed", "labelKey: example.com/rank");
        tier.editSpec("changed", spec -> {
            spec.setScheduler(new SchedulerSpec());
            spec.getScheduler().setImage("attacker.example.com/kube-scheduler:v1.33.0");
        });
        for (String refused : List.of("refused", "changed")) {
            Eventually.until(
                    refused + " is refused",
                    () -> tier.hasCondition(refused, ProfileStatuses.CONFIG_VALID, "False", "ImageNotAllowed"),
                    () -> tier.conditions(refused));
        }
        tier.rollOut("gone", "labelKey: example.com/rank");
        tier.profile("gone").delete();
        Eventually.until("gone is gone", () -> tier.profile("gone").get() == null);

        createPod("of-ready", tier.name("ready"));
        createPod("of-waiting", tier.name("waiting"));
        createPod("of-refused", tier.name("refused"));
        createPod("of-gone", tier.name("gone"));
        createPod("misspelled", tier.name("ready") + "x");
        createPod("of-default", "default-scheduler");
        createPod("of-changed", tier.name("changed"));

        Eventually.until(
                "the four pods no scheduler will take have their event",
                () -> Stream.of("of-waiting", "of-refused", "of-gone", "misspelled")
                        .allMatch(pod -> !eventsOn(pod).isEmpty()),
                () -> admin.v1().events().inNamespace(TEAM).list().getItems().stream()
                        .map(e -> e.getInvolvedObject().getName() + ": " + e.getReason())
                        .toList());

        assertEvent(
                "of-waiting",
                "SchedulerProfileNotReady",
                "SchedulerProfile " + tier.name("waiting") + " ",
                "is not Ready (reason WaitingForExtender)");
        assertEvent(
                "of-refused",
                "SchedulerProfileRefused",
                "SchedulerProfile " + tier.name("refused") + " ",
                "(reason ImageNotAllowed)");
        assertEvent("of-gone", "SchedulerProfileDeleted", "SchedulerProfile " + tier.name("gone") + ",", "was deleted");
        assertEvent(
                "misspelled",
                "NoSchedulerForPod",
                "No SchedulerProfile has schedulerName \"" + tier.name("ready") + "x\"",
                "Did you mean \"" + tier.name("ready") + "\"?");

        // Several more looks (one a second): still one event each, never repeated, and none for the others. A pod
        // created now is told only after the grace, two looks or more later; the one thread that looks records
        // events in order, so once its event is there, every look before it has recorded whatever it was going to.
        createPod("late", tier.name("ready") + "y");
        Eventually.until("the late pod has its event", () -> !eventsOn("late").isEmpty());
        for (String pod : List.of("of-waiting", "of-refused", "of-gone", "misspelled")) {
            List<Event> events = eventsOn(pod);
            assertThat(events).as("events on %s", pod).hasSize(1);
            assertThat(events.get(0).getCount())
                    .as("count of the event on %s", pod)
                    .isEqualTo(1);
        }
        assertThat(eventsOn("of-ready")).as("a pod of a Ready profile").isEmpty();
        assertThat(eventsOn("of-default")).as("a pod of the default scheduler").isEmpty();
        assertThat(eventsOn("of-changed"))
                .as("a pod of a profile whose refused change left its scheduler running")
                .isEmpty();

        // explain prints the same verdicts, read from the real API server, with the whole condition.
        String waiting = explain(TEAM + "/of-waiting");
        System.out.println("[pod-events] schedulerops-operator explain pod " + TEAM + "/of-waiting:\n" + waiting);
        assertThat(waiting)
                .contains("verdict: SchedulerProfileNotReady")
                .contains("Ready: False (WaitingForExtender): Waiting for the extender Deployment")
                .contains("Warning SchedulerProfileNotReady (schedulerops-operator");
        assertThat(explain(TEAM + "/of-refused"))
                .contains("verdict: SchedulerProfileRefused")
                .contains("ConfigValid: False (ImageNotAllowed): ")
                .contains("attacker.example.com/kube-scheduler:v1.33.0");
        assertThat(explain(TEAM + "/of-gone"))
                .contains("SchedulerProfile: none has schedulerName \"" + tier.name("gone") + "\"")
                .contains("Warning SchedulerProfileDeleted");
        assertThat(explain(TEAM + "/misspelled"))
                .contains("verdict: NoSchedulerForPod")
                .contains("Did you mean \"" + tier.name("ready") + "\"?");
        assertThat(explain(TEAM + "/of-ready"))
                .contains("Ready: True (Available)")
                .contains("verdict: its scheduler runs")
                .contains("Nodes labelled example.com/rank (0 of 0)");
        assertThat(run("explain", "pod", TEAM + "/nobody-has-this-pod")).isEqualTo(1);
        assertThat(run("explain", "pod", "no-slash")).isEqualTo(2);
        assertThat(run("explain", "node", TEAM + "/of-ready")).isEqualTo(2);

        String metrics = scrape();
        assertThat(metrics)
                .contains("schedulerops_unscheduled_pods{cause=\"profile_not_ready\"} 1.0")
                .contains("schedulerops_unscheduled_pods{cause=\"profile_refused\"} 1.0")
                .contains("schedulerops_unscheduled_pods{cause=\"profile_deleted\"} 1.0")
                .contains("schedulerops_unscheduled_pods{cause=\"no_scheduler\"} 2.0")
                .contains("schedulerops_pod_warnings_total{cause=\"no_scheduler\"} 2.0");

        // The profile becomes Ready: its pod is no longer counted, and the event stays as history.
        tier.extenderAvailable("waiting", true);
        tier.schedulerAvailable("waiting", true);
        Eventually.until("waiting is Ready and no longer counted", () -> scrape().contains(
                        "schedulerops_unscheduled_pods{cause=\"profile_not_ready\"} 0.0"));

        assertThat(rbac.forbiddenInLog())
                .as("log lines with an RBAC refusal: deploy/pod-events grants what the watch needs")
                .isEmpty();
    }

    /** What deploy/pod-events adds is read-only on pods and create-only on events. */
    @Test
    void theAddedAccessIsListWatchOnPodsAndCreateOnEventsOnly() {
        String sa = ShippedRbac.SERVICE_ACCOUNT;
        assertThat(rbac.allowed(sa, "list", "", "pods", TEAM)).isTrue();
        assertThat(rbac.allowed(sa, "watch", "", "pods", "")).isTrue();
        assertThat(rbac.allowed(sa, "create", "", "events", TEAM)).isTrue();
        for (String[] check : new String[][] {
            {"get", "pods"},
            {"update", "pods"},
            {"patch", "pods/status"},
            {"delete", "pods"},
            {"create", "pods/binding"},
            {"update", "events"},
            {"patch", "events"},
            {"delete", "events"},
            {"list", "secrets"},
        }) {
            assertThat(rbac.allowed(sa, check[0], "", check[1], TEAM))
                    .as("the operator may %s %s in %s", check[0], check[1], TEAM)
                    .isFalse();
        }
    }

    private String explain(String pod) {
        java.io.StringWriter out = new java.io.StringWriter();
        int code = command(out).execute("pod", pod);
        assertThat(code).as("explain pod %s exits", pod).isZero();
        return out.toString();
    }

    private int run(String... args) {
        return command(new java.io.StringWriter()).execute(java.util.Arrays.copyOfRange(args, 1, args.length));
    }

    private picocli.CommandLine command(java.io.StringWriter out) {
        picocli.CommandLine cli = new picocli.CommandLine(new ExplainCommand(() -> new KubernetesClientBuilder()
                .withConfig(admin.getConfiguration())
                .build()));
        cli.setOut(new java.io.PrintWriter(out));
        cli.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
        return cli;
    }

    private void assertEvent(String pod, String reason, String... phrases) {
        Event event = eventsOn(pod).get(0);
        assertThat(event.getType()).isEqualTo("Warning");
        assertThat(event.getReason()).as("reason of the event on %s", pod).isEqualTo(reason);
        assertThat(event.getMessage()).as("message of the event on %s", pod).contains(phrases);
        assertThat(event.getSource().getComponent()).isEqualTo("schedulerops-operator");
    }

    private List<Event> eventsOn(String pod) {
        return admin.v1().events().inNamespace(TEAM).list().getItems().stream()
                .filter(e -> pod.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    private Pod createPod(String name, String schedulerName) {
        return admin.resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(TEAM)
                        .endMetadata()
                        .withNewSpec()
                        .withSchedulerName(schedulerName)
                        .addNewContainer()
                        .withName("app")
                        .withImage("registry.example.com/app:1")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
    }

    private String scrape() {
        try {
            return HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + operator.httpPort() + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
