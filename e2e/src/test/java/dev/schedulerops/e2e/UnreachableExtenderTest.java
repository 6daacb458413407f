package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.Await;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.RestrictedPods;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An extender the scheduler cannot reach: its Service's packets are dropped on the real node (a blackhole, not a
 * refusal; {@link RealNode#blackhole}) while the extender pod itself stays up and Ready. The product is installed from
 * deploy/ and runs three profiles with the same label key and one labelled KWOK node: {@code strict} ({@code
 * ignorable: false}) and {@code lenient} ({@code ignorable: true}), both with {@code httpTimeout: 2s} and both
 * blackholed, and {@code bystander}, which is not.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnreachableExtenderTest {
    static final String WORKLOAD = InClusterTest.OPERATOR_NAMESPACE;
    static final String LABEL = "blackhole.example.com/rank";
    static final String STRICT = "blackhole-strict";
    static final String LENIENT = "blackhole-lenient";
    static final String BYSTANDER = "blackhole-bystander";
    static final Duration HTTP_TIMEOUT = Duration.ofSeconds(2);
    static final Duration ROLLOUT = Duration.ofMinutes(3);
    static final Duration BIND = Duration.ofMinutes(2);
    /** 12.5 bytes a second: past the throttle's first frame, each call's remaining kilobytes take minutes. */
    static final int THROTTLE_BITS_PER_SECOND = 100;

    private Cluster cluster;
    private KubernetesClient client;
    private String kwokNode;
    private String namespace;

    static void say(String line) {
        System.out.println("[unreachable] " + line);
        System.out.flush();
    }

    @BeforeAll
    void installTheProductAndThreeProfiles(Cluster cluster) {
        this.cluster = cluster;
        client = cluster.client();
        kwokNode = OperatorTests.installTheProductOnTheRealNode(cluster, "unreachable", LABEL, ROLLOUT);
        for (String profile : List.of(STRICT, LENIENT, BYSTANDER)) {
            String timeout = profile.equals(BYSTANDER) ? "" : "\n  httpTimeout: " + HTTP_TIMEOUT.toSeconds() + "s";
            String yaml = "labelKey: %s\nextender:\n  replicas: 1\n  ignorable: %s%s\n"
                    .formatted(LABEL, profile.equals(LENIENT), timeout);
            client.resource(OperatorTests.profile("unreachable", profile, yaml)).create();
        }
        for (String profile : List.of(STRICT, LENIENT, BYSTANDER)) {
            OperatorTests.awaitCurrent(client, profile, ROLLOUT);
        }
        namespace = OperatorTests.createRestrictedNamespace(cluster, "unreachable");
        say("Profiles " + STRICT + " (ignorable: false), " + LENIENT + " (ignorable: true), both httpTimeout "
                + HTTP_TIMEOUT.toSeconds() + " s, and " + BYSTANDER + " run; only " + kwokNode + " has " + LABEL + ".");
    }

    @AfterAll
    void removeTheProduct() {
        if (client != null) {
            OperatorTests.removeTheProductFromTheRealNode(
                    cluster, namespace, LABEL, java.util.Arrays.asList(kwokNode), ROLLOUT, STRICT, LENIENT, BYSTANDER);
        }
    }

    @Test
    void aBlackholedExtenderHoldsStrictPodsLetsLenientOnesGoAfterTheTimeoutAndStallsNoOtherProfile() {
        Pod strict;
        Instant restored;
        try (RealNode.Blackhole strictHole = blackholeTheExtenderService(STRICT);
                RealNode.Blackhole lenientHole = blackholeTheExtenderService(LENIENT)) {
            strict = create(STRICT, "strict");
            Instant created = Instant.now();
            Pod lenient = create(LENIENT, "lenient");
            Pod bystander = create(BYSTANDER, "bystander");

            assertThat(awaitBound(bystander)).as("the bystander profile's pod").isEqualTo(kwokNode);
            Duration bystanderBound = Duration.between(created, Instant.now());
            assertThat(bystanderBound)
                    .as("the bystander's pod waited for nobody's timeout")
                    .isLessThan(HTTP_TIMEOUT);

            String lenientNode = awaitBound(lenient);
            Duration lenientBound = Duration.between(created, Instant.now());
            assertThat(lenientBound)
                    .as("the lenient pod was bound only after its scheduler gave up on the extender")
                    .isGreaterThanOrEqualTo(HTTP_TIMEOUT);
            assertThat(lenientHole.droppedPackets())
                    .as("packets to the lenient extender were dropped")
                    .isPositive();

            Event failed = awaitTheStrictPodWaitingOnItsExtender(strict);
            assertThat(strictHole.droppedPackets())
                    .as("packets to the strict extender were dropped")
                    .isPositive();
            say("Blackholed the " + STRICT + " and " + LENIENT + " extender Services (their pods stay Ready): the "
                    + BYSTANDER + " pod was bound to " + kwokNode + " in " + bystanderBound.toMillis()
                    + " ms; the lenient pod was scheduled without its extender, to " + lenientNode + ", in "
                    + lenientBound.toMillis() + " ms (httpTimeout " + HTTP_TIMEOUT.toMillis() + " ms, "
                    + lenientHole.droppedPackets() + " packets dropped); the strict pod waits: \""
                    + failed.getMessage() + "\"");
            restored = Instant.now();
        }
        // Nothing nudges the pod: kube-scheduler retries a pod whose scheduling failed with an error after its
        // backoff (at most 10 s by default).
        assertThat(awaitBound(strict))
                .as("the strict pod, once the network is back")
                .isEqualTo(kwokNode);
        say("The network is back: the strict pod was bound to " + kwokNode + " "
                + Duration.between(restored, Instant.now()).toMillis() + " ms later, with no update to it.");
    }

    @Test
    void aSlowExtenderHoldsStrictPodsAndLetsLenientOnesGoAfterTheTimeout() {
        Pod strict;
        Instant restored;
        try (RealNode.Throttle strictSlow = throttleTheExtender(STRICT);
                RealNode.Throttle lenientSlow = throttleTheExtender(LENIENT)) {
            strict = createLarge(STRICT, "strict-slow");
            Instant created = Instant.now();
            Pod lenient = createLarge(LENIENT, "lenient-slow");

            String lenientNode = awaitBound(lenient);
            Duration lenientBound = Duration.between(created, Instant.now());
            assertThat(lenientBound)
                    .as("the lenient pod was bound only after its scheduler gave up on the slow extender")
                    .isGreaterThanOrEqualTo(HTTP_TIMEOUT);

            Event failed = awaitTheStrictPodWaitingOnItsExtender(strict);
            assertThat(strictSlow.throttledBytes())
                    .as("the strict scheduler's calls went through the throttle")
                    .isPositive();
            assertThat(lenientSlow.throttledBytes())
                    .as("the lenient scheduler's calls went through the throttle")
                    .isPositive();
            say("Slowed the " + STRICT + " and " + LENIENT + " extenders' port to " + THROTTLE_BITS_PER_SECOND
                    + " bit/s on their veths (probes unaffected): the lenient pod was scheduled without its extender,"
                    + " to " + lenientNode + ", in " + lenientBound.toMillis() + " ms; the strict pod waits: \""
                    + failed.getMessage() + "\"");
            restored = Instant.now();
        }
        assertThat(awaitBound(strict))
                .as("the strict pod, once the extender is fast again")
                .isEqualTo(kwokNode);
        say("The throttle is gone: the strict pod was bound to " + kwokNode + " "
                + Duration.between(restored, Instant.now()).toMillis() + " ms later, with no update to it.");
    }

    /**
     * Throttles the traffic to the profile's extender pod's serving port: {@value #THROTTLE_BITS_PER_SECOND} bit/s
     * makes each call (a TLS handshake with a client certificate, then a request of a few kB) take many seconds.
     */
    private RealNode.Throttle throttleTheExtender(String profile) {
        Pod pod = OperatorTests.livePods(client, WORKLOAD, Labels.selector(profile, Labels.COMPONENT_EXTENDER))
                .get(0);
        Service service = client.services()
                .inNamespace(WORKLOAD)
                .withName(profile + Names.EXTENDER_SUFFIX)
                .get();
        IntOrString target = service.getSpec().getPorts().stream()
                .filter(p -> "http".equals(p.getName()))
                .findFirst()
                .orElseThrow()
                .getTargetPort();
        int port = target.getIntVal() != null
                ? target.getIntVal()
                : pod.getSpec().getContainers().stream()
                        .flatMap(c -> c.getPorts().stream())
                        .filter(p -> target.getStrVal().equals(p.getName()))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no container port " + target.getStrVal()))
                        .getContainerPort();
        return RealNode.throttle(
                pod.getStatus().getContainerStatuses().get(0).getContainerID(), port, THROTTLE_BITS_PER_SECOND);
    }

    /**
     * The strict pod's FailedScheduling event names its extender and a timeout, and the pod has no node: kube-scheduler
     * gave up on the extender and, with {@code ignorable: false}, on the pod.
     */
    private Event awaitTheStrictPodWaitingOnItsExtender(Pod strict) {
        Event failed = awaitEvent(strict, "FailedScheduling");
        assertThat(failed.getMessage()).contains(STRICT + Names.EXTENDER_SUFFIX);
        assertThat(failed.getMessage().toLowerCase()).containsAnyOf("timeout", "deadline exceeded");
        assertThat(pod(strict).getSpec().getNodeName())
                .as("the strict pod waits")
                .isNull();
        return failed;
    }

    private RealNode.Blackhole blackholeTheExtenderService(String profile) {
        return OperatorTests.blackholeTheExtenderService(client, profile);
    }

    /**
     * A pod whose every extender call is larger than what a throttle lets through at once (the call carries the whole
     * pod): an annotation of twice that size.
     */
    private Pod createLarge(String profile, String name) {
        Pod pod = new PodBuilder(RestrictedPods.forScheduler(namespace, name, profile))
                .editMetadata()
                .addToAnnotations("e2e.schedulerops.dev/padding", "x".repeat(2 * RealNode.THROTTLE_BURST_BYTES))
                .endMetadata()
                .build();
        return client.resource(pod).create();
    }

    private Pod create(String profile, String name) {
        return client.resource(RestrictedPods.forScheduler(namespace, name, profile))
                .create();
    }

    private Pod pod(Pod pod) {
        return client.pods()
                .inNamespace(namespace)
                .withName(pod.getMetadata().getName())
                .get();
    }

    private String awaitBound(Pod pod) {
        return OperatorTests.awaitBound(client, pod, BIND);
    }

    private Event awaitEvent(Pod pod, String reason) {
        Event[] found = new Event[1];
        Await.until(BIND, "a " + reason + " event for pod " + pod.getMetadata().getName(), () -> {
            Optional<Event> event = client.v1().events().inNamespace(namespace).list().getItems().stream()
                    .filter(e -> pod.getMetadata()
                            .getName()
                            .equals(e.getInvolvedObject().getName()))
                    .filter(e -> reason.equals(e.getReason()))
                    .findFirst();
            found[0] = event.orElse(null);
            return event.isPresent();
        });
        return found[0];
    }
}
