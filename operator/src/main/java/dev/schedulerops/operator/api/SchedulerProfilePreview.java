package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

@Group(SchedulerProfile.GROUP)
@Version(SchedulerProfilePreview.VERSION)
@Kind(SchedulerProfilePreview.KIND)
@Plural("schedulerprofilepreviews")
@Singular("schedulerprofilepreview")
@ShortNames({"spp"})
@Categories({"schedulerops"})
@JsonClassDescription("A request to preview a SchedulerProfile change, or to explain where a pod is: the operator"
        + " (with previews turned on) replays the cluster's pods in a sandbox with the real kube-scheduler and"
        + " extender, writes nothing to the cluster, and answers in the status. Made and deleted by the kubectl"
        + " plugin (kubectl schedulerops preview / explain); cluster-scoped, because it reads the whole cluster.")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Verdict", jsonPath = ".status.verdict", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(
        value = "self.metadata.name.size() <= 55",
        message = "a preview's name is at most 55 characters: its sandbox pod and label are named after it",
        reason = "FieldValueInvalid")
public class SchedulerProfilePreview extends CustomResource<PreviewSpec, PreviewStatus> {
    /** A new kind, not yet declared stable: v1alpha1 (SchedulerProfile is v1beta1). */
    public static final String VERSION = "v1alpha1";

    public static final String KIND = "SchedulerProfilePreview";
    public static final String API_VERSION = SchedulerProfile.GROUP + "/" + VERSION;

    @Override
    @Required
    public PreviewSpec getSpec() {
        return super.getSpec();
    }
}
