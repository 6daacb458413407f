package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.Verb;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.render.DesiredState;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what a sandbox runs, before anything starts: the proposal is rendered and validated exactly as the operator
 * would roll it out (the same renderer, validator, image policy and cluster version), so a proposal the operator would
 * refuse is refused here with the same messages, and starts nothing. Pure.
 */
public final class PreviewPlanner {
    /** The refusal reason of a profile that calls extenders of its own: the sandbox would call them with its data. */
    public static final String EXTERNAL_EXTENDERS = "ExternalExtenders";

    public sealed interface Outcome {}

    public record Planned(SandboxPlan plan) implements Outcome {}

    /**
     * @param reason a reason code, as a status condition's ({@code InvalidConfig}, {@code ImageNotAllowed}, ...)
     * @param messages what is wrong, each a sentence a person can act on
     */
    public record Refused(String reason, List<String> messages) implements Outcome {
        public Refused {
            messages = List.copyOf(messages);
        }
    }

    private PreviewPlanner() {}

    /**
     * @param proposal the SchedulerProfile as proposed (new, or a change of a live one of the same name)
     * @param live the live profile of that name, if any
     * @param samplePods pods the user gives; empty: the profile's current pods
     */
    public static Outcome preview(
            SchedulerProfile proposal,
            Optional<SchedulerProfile> live,
            List<JsonNode> samplePods,
            ClusterFacts facts,
            SandboxPlan.Limits limits) {
        List<String> notes = new ArrayList<>();
        Rendered rendered = render(proposal, facts);
        if (rendered.refused() != null) {
            return rendered.refused();
        }
        SandboxPlan.Run proposed = run(SandboxPlan.PROPOSAL, proposal, rendered.state());
        List<SandboxPlan.Run> runs = new ArrayList<>();
        String schedulerName = proposal.effectiveSchedulerName();
        if (live.isPresent()) {
            schedulerName = live.get().effectiveSchedulerName();
            Rendered current = render(live.get(), facts);
            if (current.refused() == null) {
                runs.add(run(SandboxPlan.CURRENT, live.get(), current.state()));
            } else {
                notes.add("The live profile " + live.get().getMetadata().getName() + " is refused by the operator ("
                        + String.join("; ", current.refused().messages())
                        + "), so nothing runs it today: only the proposal is placed.");
            }
            if (!schedulerName.equals(proposal.effectiveSchedulerName())) {
                notes.add("The proposal changes the schedulerName from " + schedulerName + " to "
                        + proposal.effectiveSchedulerName() + ": the pods considered are those naming " + schedulerName
                        + ".");
            }
        } else {
            notes.add("No SchedulerProfile " + proposal.getMetadata().getName()
                    + " runs today: a new profile, only the proposal is placed.");
        }
        runs.add(proposed);
        PodSelection selection =
                samplePods.isEmpty() ? PodSelection.profilePods(schedulerName) : PodSelection.samplePods(samplePods);
        return new Planned(new SandboxPlan(SandboxPlan.Mode.PREVIEW, selection, runs, limits, notes));
    }

    /** A receipt for one live pod of the profile: one run, the profile as it runs. */
    public static Outcome explain(
            SchedulerProfile live, String namespace, String name, ClusterFacts facts, SandboxPlan.Limits limits) {
        Rendered rendered = render(live, facts);
        if (rendered.refused() != null) {
            return rendered.refused();
        }
        SandboxPlan.Run current = run(SandboxPlan.CURRENT, live, rendered.state());
        return new Planned(new SandboxPlan(
                SandboxPlan.Mode.EXPLAIN,
                PodSelection.onePod(namespace, name, live.effectiveSchedulerName()),
                List.of(current),
                limits,
                List.of()));
    }

    /** A profile's desired state, or why it cannot be previewed: one of the two is null. */
    private record Rendered(DesiredState state, Refused refused) {}

    private static Rendered render(SchedulerProfile profile, ClusterFacts facts) {
        RenderResult result = ProfileRenderer.render(profile, facts);
        if (result instanceof RenderResult.Invalid invalid) {
            return new Rendered(null, new Refused(invalid.refusal().reason(), invalid.errors()));
        }
        ResolvedProfile resolved = ResolvedProfile.of(profile, facts.workloadNamespace());
        if (!resolved.externalExtenders().isEmpty()) {
            return new Rendered(
                    null,
                    new Refused(
                            EXTERNAL_EXTENDERS,
                            List.of("SchedulerProfile " + profile.getMetadata().getName()
                                    + " calls extenders of its own"
                                    + " (spec.extenders): a preview cannot run them, and would call the live ones with"
                                    + " sandbox data")));
        }
        return new Rendered(((RenderResult.Valid) result).state(), null);
    }

    static SandboxPlan.Run run(String name, SchedulerProfile profile, DesiredState state) {
        ResolvedProfile resolved = ResolvedProfile.of(profile);
        Container scheduler = state.schedulerDeployment()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0);
        List<String> command = scheduler.getCommand();
        List<String> flags = SandboxSchedulerConfig.keptFlags(command.subList(1, command.size()));
        SandboxPlan.Extender extender = null;
        if (state.bundledExtender()) {
            Map<String, String> env = new LinkedHashMap<>();
            for (EnvVar var : state.extenderDeployment()
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0)
                    .getEnv()) {
                if (var.getValue() != null) {
                    env.put(var.getName(), var.getValue());
                }
            }
            extender = new SandboxPlan.Extender(
                    state.extenderImage(), env, resolved.has(Verb.PRIORITIZE) ? resolved.weight() : 0);
        }
        return new SandboxPlan.Run(
                name,
                profile.getMetadata().getName(),
                resolved.schedulerName(),
                state.schedulerImage(),
                flags,
                state.schedulerConfigYaml(),
                extender);
    }
}
