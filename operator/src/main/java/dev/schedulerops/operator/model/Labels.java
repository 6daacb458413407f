package dev.schedulerops.operator.model;

import java.util.LinkedHashMap;
import java.util.Map;

/** Label and annotation keys the operator puts on what it creates, and the label sets, in one place. */
public final class Labels {
    public static final String NAME = "app.kubernetes.io/name";
    public static final String INSTANCE = "app.kubernetes.io/instance";
    public static final String COMPONENT = "app.kubernetes.io/component";
    public static final String PART_OF = "app.kubernetes.io/part-of";
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

    /**
     * The owning profile's name, on every object: the informers map an event to its profile by it, and teardown finds a
     * profile's objects by it. Profiles are cluster-scoped, so the name alone identifies one. The operator's
     * ValidatingAdmissionPolicy (deploy/admission) refuses this label, and {@link #MANAGED_BY}, from anyone else.
     */
    public static final String PROFILE = "schedulerops.dev/profile";

    /** The prefix of the operator's own label and annotation keys; only the operator may set them. */
    public static final String PREFIX = "schedulerops.dev/";

    /** Pod-template annotation: hash of the rendered KubeSchedulerConfiguration, so a change rolls the pods. */
    public static final String CONFIG_HASH = "schedulerops.dev/config-hash";

    /**
     * Pod-template annotation: hash of the extender's placement rule (its label key). A new rule restarts the scheduler
     * after the extender, so that pods the old rule rejected are retried at once instead of waiting in kube-scheduler's
     * unschedulable queue.
     */
    public static final String EXTENDER_RULE_HASH = "schedulerops.dev/extender-rule-hash";

    /**
     * Pod-template annotation: hash of the TLS material the pod mounts (its Secret's data). New certificates change
     * it, so the ordered rollout restarts the extender first and the scheduler after it.
     */
    public static final String TLS_HASH = "schedulerops.dev/tls-hash";

    /**
     * Deployment annotation (not on the pod template): hash of the pod template as rendered. The reconciler compares it
     * with the running Deployment's to know, without a dry run, whether an apply would restart pods (a rollout, which
     * waits for a rollout slot).
     */
    public static final String TEMPLATE_HASH = "schedulerops.dev/template-hash";

    /**
     * On every object the operator applies: the hash of what it applied last. An object whose hash and fields are
     * still those it would apply is not sent again; a field the operator stops setting changes the hash, so the next
     * apply removes it (server-side apply drops what its manager no longer sends).
     */
    public static final String APPLIED_HASH = "schedulerops.dev/applied-hash";

    /** CA Secret annotation: the value of spec.extender.tls.rotate the operator has last acted on. */
    public static final String ROTATED_FOR = "schedulerops.dev/rotated-for";

    /**
     * On a scheduler's Lease: who gave it back last and for which holder ("operator for &lt;holder&gt;", "release-lease
     * for &lt;holder&gt;"). kube-scheduler's own release leaves it as it was.
     */
    public static final String LEASE_RELEASED_BY = "schedulerops.dev/lease-released-by";

    public static final String PART_OF_VALUE = "schedulerops";
    public static final String MANAGED_BY_VALUE = "schedulerops-operator";
    public static final String COMPONENT_SCHEDULER = "scheduler";
    public static final String COMPONENT_EXTENDER = "extender";
    /** A preview's sandbox pod (SchedulerProfilePreview). */
    public static final String COMPONENT_PREVIEW_SANDBOX = "preview-sandbox";

    /** On a preview's sandbox pod: the SchedulerProfilePreview's name. */
    public static final String PREVIEW = "schedulerops.dev/preview";

    private Labels() {}

    /** Labels of every object rendered for a profile. */
    public static Map<String, String> common(String profileName) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(PART_OF, PART_OF_VALUE);
        labels.put(MANAGED_BY, MANAGED_BY_VALUE);
        labels.put(INSTANCE, profileName);
        labels.put(PROFILE, profileName);
        return labels;
    }

    /** Labels of a component's objects (scheduler or extender). */
    public static Map<String, String> component(String profileName, String component) {
        Map<String, String> labels = common(profileName);
        labels.put(NAME, component.equals(COMPONENT_SCHEDULER) ? "kube-scheduler" : "schedulerops-extender");
        labels.put(COMPONENT, component);
        return labels;
    }

    /** The stable subset used in Deployment selectors (selectors are immutable, so never add to them). */
    public static Map<String, String> selector(String profileName, String component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(INSTANCE, profileName);
        labels.put(COMPONENT, component);
        labels.put(PART_OF, PART_OF_VALUE);
        return labels;
    }
}
