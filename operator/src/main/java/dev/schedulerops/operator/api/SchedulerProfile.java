package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

@Group(SchedulerProfile.GROUP)
@Version(SchedulerProfile.VERSION)
@Kind(SchedulerProfile.KIND)
@Plural("schedulerprofiles")
@Singular("schedulerprofile")
@ShortNames({"sp", "schedprofile"})
@Categories({"schedulerops"})
@JsonClassDescription(
        "A SchedulerProfile declares a secondary kube-scheduler that consults the bundled schedulerops extender:"
                + " pods that set spec.schedulerName to this profile's schedulerName are placed on nodes carrying"
                + " spec.labelKey, preferring higher label values. Cluster-scoped, like a StorageClass or a"
                + " PriorityClass: a scheduler acts on the whole cluster, so profiles are created by the cluster's"
                + " administrators; its workloads run in the operator's workload namespace.")
@AdditionalPrinterColumn(
        name = "Scheduler",
        jsonPath = ".status.schedulerName",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Label", jsonPath = ".spec.labelKey", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Verbs", jsonPath = ".spec.verbs", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Ready",
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Nodes",
        jsonPath = ".status.labelledNodes",
        type = AdditionalPrinterColumn.Type.INTEGER,
        priority = 1)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class SchedulerProfile extends CustomResource<SchedulerProfileSpec, SchedulerProfileStatus> {
    public static final String GROUP = "schedulerops.dev";
    /**
     * v1beta1: the shape is stable (cluster-scoped since the tenancy review); from this version on the build refuses a
     * breaking schema change against the committed schema (crds/released/), see CrdCompatibilityTest.
     */
    public static final String VERSION = "v1beta1";

    public static final String KIND = "SchedulerProfile";
    public static final String API_VERSION = GROUP + "/" + VERSION;

    /** Required at admission: a profile without a spec has no labelKey, and the operator could only refuse it later. */
    @Override
    @Required
    public SchedulerProfileSpec getSpec() {
        return super.getSpec();
    }

    /**
     * Defaulted by the API server to {@code {observedGeneration: 0, conditions: []}} until the operator writes one, so
     * a profile nobody has reconciled yet reads as not observed: kstatus (Flux's {@code wait: true}) takes a custom
     * resource without a status as Current, and with this default it sees generation 1 against observedGeneration 0
     * (InProgress) instead. The API server applies it on every read, so it never needs to be stored.
     */
    @Override
    @Default("{\"observedGeneration\":0}")
    public SchedulerProfileStatus getStatus() {
        return super.getStatus();
    }

    /** The name pods put in spec.schedulerName: spec.schedulerName, or metadata.name when unset. */
    public String effectiveSchedulerName() {
        String fromSpec = getSpec() == null ? null : getSpec().getSchedulerName();
        return fromSpec == null || fromSpec.isBlank() ? getMetadata().getName() : fromSpec;
    }
}
