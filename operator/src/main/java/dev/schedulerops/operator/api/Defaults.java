package dev.schedulerops.operator.api;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import java.util.List;

/**
 * Default values of the SchedulerProfile API, in one place. The CRD schema carries the scalar ones (the API server fills
 * them in); the renderer applies all of them too, because `render` reads files that never went through admission.
 */
public final class Defaults {
    public static final List<Verb> VERBS = List.of(Verb.FILTER, Verb.PRIORITIZE);
    public static final int WEIGHT = 1;
    public static final int EXTENDER_REPLICAS = 2;
    public static final boolean NODE_CACHE_CAPABLE = true;
    public static final boolean IGNORABLE = false;
    public static final String HTTP_TIMEOUT = "5s";
    public static final TlsMode TLS_MODE = TlsMode.MUTUAL;
    /** TLS_MODE as the CRD schema writes it (annotations need a constant). */
    public static final String TLS_MODE_NAME = "Mutual";

    public static final int SCHEDULER_REPLICAS = 1;
    public static final int LOG_VERBOSITY = 2;
    public static final boolean LEADER_ELECT = true;
    public static final String LEASE_DURATION = "15s";
    public static final String RENEW_DEADLINE = "10s";
    /**
     * kube-scheduler's own default is 2s. A standby tries for the lease every retryPeriod, plus up to 1.2 times it of
     * jitter, so after a leader gives its lease back on a drain the profile is without a scheduler for up to 2.2 x
     * retryPeriod: 4.4 s with 2s, 1.1 s with 500ms. With 1s (this default until issue 44) the standby's wait alone could
     * take 2.2 s of the 3 s a drain's hand-over may take. The price is the leader renewing twice a second (two small
     * Lease writes a second per profile, about what 20 nodes' heartbeats cost) and each standby reading the lease about
     * 1.25 times a second; docs/profiles.md says when to raise it.
     */
    public static final String RETRY_PERIOD = "500ms";

    /** Bounds of the numeric fields: the CRD schema's @Min/@Max and ProfileValidator's range checks. */
    public static final int MIN_WEIGHT = 1;

    public static final int MIN_EXTENDER_REPLICAS = 1;
    public static final int MAX_EXTENDER_REPLICAS = 10;
    public static final int MIN_SCHEDULER_REPLICAS = 1;
    public static final int MAX_SCHEDULER_REPLICAS = 5;
    public static final int MIN_PERCENTAGE_OF_NODES_TO_SCORE = 0;
    public static final int MAX_PERCENTAGE_OF_NODES_TO_SCORE = 100;
    public static final int MIN_LOG_VERBOSITY = 0;
    public static final int MAX_LOG_VERBOSITY = 10;
    /** kube-scheduler's own defaults of the queue's backoff (KubeSchedulerConfiguration v1). */
    public static final int POD_INITIAL_BACKOFF_SECONDS = 1;

    public static final int POD_MAX_BACKOFF_SECONDS = 10;
    /** Upper bounds the schema sets so that CEL can compare the fields (and nobody waits a day for a retry). */
    public static final int MAX_BACKOFF_SECONDS = 3600;

    public static final int MAX_EXTERNAL_EXTENDERS = 8;
    public static final int MAX_MANAGED_RESOURCES = 32;
    public static final int MAX_CA_DATA_LENGTH = 65536;
    /** A verb is the path after an extender's urlPrefix: URL path characters, no leading slash. */
    public static final String EXTENDER_VERB_PATTERN = "^[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$";

    public static final int MAX_FEATURE_GATES = 64;
    public static final int MAX_EXTRA_ARGS = 32;
    public static final int MAX_VALUE_LENGTH = 1024;
    public static final int MAX_PARALLELISM = 1024;
    /** Most entries of a component's nodeSelector, tolerations, podLabels and podAnnotations. */
    public static final int MAX_PLACEMENT_ENTRIES = 32;

    /** The extender's heap as a percentage of its memory limit, and the bounds of spec.extender.jvm. */
    public static final int MAX_RAM_PERCENTAGE = 75;

    public static final int MIN_MAX_RAM_PERCENTAGE = 10;
    public static final int MAX_MAX_RAM_PERCENTAGE = 90;
    public static final int MAX_JVM_OPTIONS = 16;
    public static final int MAX_JVM_OPTION_LENGTH = 256;

    /** A scheduler name: a lowercase DNS subdomain (the length limit of 253 is checked apart). */
    /** The cluster's main scheduler: no profile may take its name; the operator's own pods use it. */
    public static final String DEFAULT_SCHEDULER = "default-scheduler";

    public static final String SCHEDULER_NAME_PATTERN = "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$";

    /** Go's time.ParseDuration syntax, as kube-scheduler decodes metav1.Duration. */
    public static final String DURATION_PATTERN = "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$";

    /** A qualified label key: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
    public static final String LABEL_KEY_PATTERN =
            "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                    + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

    private Defaults() {}

    /** Requests of 100m CPU and 256Mi memory, a 512Mi memory limit; a new object each call (it is mutable). */
    public static ResourceRequirements extenderResources() {
        return resources("100m", "256Mi", "512Mi");
    }

    /** Requests of 100m CPU and 128Mi memory; a new object each call (it is mutable). */
    public static ResourceRequirements schedulerResources() {
        return resources("100m", "128Mi", null);
    }

    /**
     * Requests of {@code cpu} and {@code memory}, and a memory limit unless {@code memoryLimit} is null (no CPU limit:
     * it would only throttle); a new object each call, as fabric8's models are mutable.
     */
    public static ResourceRequirements resources(String cpu, String memory, String memoryLimit) {
        ResourceRequirementsBuilder resources = new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity(cpu))
                .addToRequests("memory", new Quantity(memory));
        if (memoryLimit != null) {
            resources.addToLimits("memory", new Quantity(memoryLimit));
        }
        return resources.build();
    }
}
