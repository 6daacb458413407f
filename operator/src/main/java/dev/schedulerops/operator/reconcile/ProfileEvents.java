package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events on a SchedulerProfile (`kubectl describe` shows them). Best effort: a failure is only logged. A
 * profile is cluster-scoped, and the API server accepts core/v1 events about a cluster-scoped object only in the
 * {@code default} namespace ({@link #NAMESPACE}), so the operator creates events there, and only there.
 */
public final class ProfileEvents {
    private static final String COMPONENT = "schedulerops-operator";
    private static final String NORMAL = "Normal";
    private static final String WARNING = "Warning";

    private static final Logger LOG = LoggerFactory.getLogger(ProfileEvents.class);

    /** Where events about cluster-scoped objects live (the API server's validation of core/v1 events). */
    public static final String NAMESPACE = "default";

    private final KubernetesClient client;
    private final String instance;

    public ProfileEvents(KubernetesClient client, String instance) {
        this.client = client;
        this.instance = instance;
    }

    /** The reporting instance of the events (the operator pod's name). */
    String instance() {
        return instance;
    }

    public void normal(SchedulerProfile profile, String reason, String message) {
        record(profile, NORMAL, reason, message);
    }

    public void warning(SchedulerProfile profile, String reason, String message) {
        record(profile, WARNING, reason, message);
    }

    private void record(SchedulerProfile profile, String type, String reason, String message) {
        String namespace = NAMESPACE;
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        Event event = new EventBuilder()
                .withNewMetadata()
                // Created (not applied), so the API server makes the name unique.
                .withGenerateName(profile.getMetadata().getName() + ".")
                .withNamespace(namespace)
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(SchedulerProfile.API_VERSION)
                .withKind(SchedulerProfile.KIND)
                .withName(profile.getMetadata().getName())
                .withUid(profile.getMetadata().getUid())
                .withResourceVersion(profile.getMetadata().getResourceVersion())
                .endInvolvedObject()
                .withType(type)
                .withReason(reason)
                .withMessage(truncate(message))
                .withNewSource()
                .withComponent(COMPONENT)
                .endSource()
                .withReportingComponent(COMPONENT)
                .withReportingInstance(instance)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .build();
        LOG.info("event {} {} on {}: {}", type, reason, profile.getMetadata().getName(), message);
        try {
            client.v1().events().inNamespace(namespace).resource(event).create();
        } catch (RuntimeException e) {
            LOG.warn(
                    "could not record event {} on {} in {}",
                    reason,
                    profile.getMetadata().getName(),
                    namespace,
                    e);
        }
    }

    private static String truncate(String message) {
        // The API server rejects event messages longer than 1 KiB.
        return message.length() <= 1024 ? message : message.substring(0, 1021) + "...";
    }
}
