package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ClusterFacts;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PreviewPlannerTest {
    static final ClusterFacts FACTS =
            ClusterFacts.forVersion("1.33.13").withExtenderImage("ghcr.io/schedulerops/schedulerops-extender:t");
    static final SandboxPlan.Limits LIMITS = SandboxPlan.Limits.DEFAULT;

    static SchedulerProfile profile(String spec) throws Exception {
        return ProfileYaml.readOne(
                "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata: {name: lp}\nspec:\n"
                        + spec.indent(2));
    }

    @Test
    void aProposalTheOperatorWouldRefuseIsRefusedWithItsMessages() throws Exception {
        SchedulerProfile bad = profile("labelKey: k\nplugins:\n  score:\n    enabled: [{name: NoSuchPlugin}]");
        PreviewPlanner.Outcome outcome = PreviewPlanner.preview(bad, Optional.empty(), List.of(), FACTS, LIMITS);
        assertThat(outcome).isInstanceOf(PreviewPlanner.Refused.class);
        PreviewPlanner.Refused refused = (PreviewPlanner.Refused) outcome;
        assertThat(refused.reason()).isEqualTo("InvalidConfig");
        assertThat(refused.messages()).anyMatch(m -> m.contains("NoSuchPlugin"));
    }

    @Test
    void anImageOutsideTheAllowedRepositoriesIsRefused() throws Exception {
        SchedulerProfile foreign = profile("labelKey: k\nextender: {image: evil.example.com/x:1}");
        PreviewPlanner.Outcome outcome = PreviewPlanner.preview(foreign, Optional.empty(), List.of(), FACTS, LIMITS);
        assertThat(((PreviewPlanner.Refused) outcome).reason()).isEqualTo("ImageNotAllowed");
    }

    @Test
    void externalExtendersAreNotPreviewed() throws Exception {
        SchedulerProfile external =
                profile("labelKey: k\nextenders:\n- urlPrefix: https://gpu.example.com\n  filterVerb: filter");
        PreviewPlanner.Outcome outcome = PreviewPlanner.preview(external, Optional.empty(), List.of(), FACTS, LIMITS);
        assertThat(((PreviewPlanner.Refused) outcome).reason()).isEqualTo(PreviewPlanner.EXTERNAL_EXTENDERS);
    }

    @Test
    void aChangeRunsTheLiveProfileThenTheProposalOnTheLiveProfilesPods() throws Exception {
        SchedulerProfile live = profile("labelKey: k\nweight: 20");
        SchedulerProfile proposal = profile("labelKey: k\nweight: 1\nverbs: [FilterOnlyOne]");
        SandboxPlan plan = ((PreviewPlanner.Planned)
                        PreviewPlanner.preview(proposal, Optional.of(live), List.of(), FACTS, LIMITS))
                .plan();
        assertThat(plan.mode()).isEqualTo(SandboxPlan.Mode.PREVIEW);
        assertThat(plan.runs()).extracting(SandboxPlan.Run::name).containsExactly("current", "proposal");
        assertThat(plan.selection()).isEqualTo(PodSelection.profilePods("lp"));
        SandboxPlan.Run current = plan.runs().get(0);
        assertThat(current.schedulerImage()).isEqualTo("registry.k8s.io/kube-scheduler:v1.33.13");
        assertThat(current.extender().image()).isEqualTo("ghcr.io/schedulerops/schedulerops-extender:t");
        assertThat(current.extender().weight()).isEqualTo(20);
        assertThat(current.extender().env()).containsEntry("SCHEDULEROPS_LABEL_KEY", "k");
        assertThat(current.schedulerConfig()).contains("prioritizeVerb").contains("weight: 20");
        assertThat(plan.runs().get(1).schedulerConfig())
                .contains("filter_onlyone")
                .doesNotContain("prioritizeVerb");
        assertThat(plan.runs().get(1).extender().weight()).isZero();
        assertThat(plan.notes()).isEmpty();
    }

    @Test
    void theProposalSharesTheCurrentExtenderWhenItRunsTheSameOne() throws Exception {
        SchedulerProfile live = profile("labelKey: k\nweight: 20");
        SandboxPlan weight = ((PreviewPlanner.Planned) PreviewPlanner.preview(
                        profile("labelKey: k\nweight: 1"), Optional.of(live), List.of(), FACTS, LIMITS))
                .plan();
        assertThat(weight.extenderServing(weight.runs().get(1))).isEqualTo("current");
        assertThat(weight.startsExtender(weight.runs().get(1))).isFalse();
        SandboxPlan verbs = ((PreviewPlanner.Planned) PreviewPlanner.preview(
                        profile("labelKey: k\nverbs: [FilterOnlyOne]"), Optional.of(live), List.of(), FACTS, LIMITS))
                .plan();
        assertThat(verbs.extenderServing(verbs.runs().get(1))).isEqualTo("proposal");
        SandboxPlan label = ((PreviewPlanner.Planned)
                        PreviewPlanner.preview(profile("labelKey: other"), Optional.of(live), List.of(), FACTS, LIMITS))
                .plan();
        assertThat(label.startsExtender(label.runs().get(1))).isTrue();
        SchedulerProfile binding = profile("labelKey: k\nverbs: [Filter, Prioritize, Bind]");
        SandboxPlan binds = ((PreviewPlanner.Planned) PreviewPlanner.preview(
                        profile("labelKey: k\nverbs: [Filter, Prioritize, Bind]\nweight: 3"),
                        Optional.of(binding),
                        List.of(),
                        FACTS,
                        LIMITS))
                .plan();
        assertThat(binds.startsExtender(binds.runs().get(1)))
                .as("a bind names its scheduler")
                .isTrue();
    }

    @Test
    void aNewProfileRunsTheProposalOnlyOnSamplePods() throws Exception {
        JsonNode pod = Json.tree(
                "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}");
        SandboxPlan plan = ((PreviewPlanner.Planned)
                        PreviewPlanner.preview(profile("labelKey: k"), Optional.empty(), List.of(pod), FACTS, LIMITS))
                .plan();
        assertThat(plan.runs()).extracting(SandboxPlan.Run::name).containsExactly("proposal");
        assertThat(plan.selection().kind()).isEqualTo(PodSelection.Kind.SAMPLE_PODS);
        assertThat(plan.notes()).anyMatch(n -> n.contains("a new profile"));
    }

    @Test
    void aPlanTravelsAsJson() throws Exception {
        SandboxPlan plan = ((PreviewPlanner.Planned)
                        PreviewPlanner.explain(profile("labelKey: k"), "a", "p", FACTS, LIMITS))
                .plan();
        assertThat(plan.mode()).isEqualTo(SandboxPlan.Mode.EXPLAIN);
        assertThat(Json.read(Json.write(plan), SandboxPlan.class)).isEqualTo(plan);
    }
}
