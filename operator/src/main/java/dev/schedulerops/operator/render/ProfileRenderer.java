package dev.schedulerops.operator.render;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.ResolvedProfile;
import dev.schedulerops.operator.model.TlsFacts;
import dev.schedulerops.operator.validation.ProfileValidator;
import dev.schedulerops.operator.validation.SupportedVersions;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The pure function at the heart of the operator: a profile (and a few cluster facts) to its desired objects. */
public final class ProfileRenderer {
    private ProfileRenderer() {}

    /** Renders without TLS material (`render` offline): no TLS hash annotations on the pod templates. */
    public static RenderResult render(SchedulerProfile profile, ClusterFacts facts) {
        return render(profile, facts, TlsFacts.NONE);
    }

    /**
     * @param tls hashes of the TLS material the reconciler wrote into the profile's Secrets (the renderer never sees
     *     keys), stamped on the pod templates so that new material rolls the pods in order
     */
    public static RenderResult render(SchedulerProfile profile, ClusterFacts facts, TlsFacts tls) {
        Optional<String> unsupported = SupportedVersions.refusal(facts.kubernetesVersion());
        if (unsupported.isPresent()) {
            return new RenderResult.Invalid(
                    List.of(unsupported.get()), RenderResult.Refusal.UNSUPPORTED_KUBERNETES_VERSION);
        }
        List<String> fieldErrors = ProfileValidator.validateFields(profile);
        if (!fieldErrors.isEmpty()) {
            return new RenderResult.Invalid(fieldErrors);
        }
        // the one resolution of this profile
        ResolvedProfile resolved = ResolvedProfile.of(profile, facts.workloadNamespace());
        List<String> pluginErrors = ProfileValidator.validate(resolved, facts);
        if (!pluginErrors.isEmpty()) {
            return new RenderResult.Invalid(pluginErrors);
        }
        List<String> imageRefusals = facts.images().refusals(resolved);
        if (!imageRefusals.isEmpty()) {
            return new RenderResult.Invalid(imageRefusals, RenderResult.Refusal.IMAGE_NOT_ALLOWED);
        }
        return new RenderResult.Valid(desiredState(resolved, facts, tls));
    }

    static DesiredState desiredState(ResolvedProfile p, ClusterFacts facts, TlsFacts tls) {
        String configYaml = SchedulerConfigRenderer.render(p);
        String configHash = Yaml.hash(configYaml);

        List<HasMetadata> extenderStage = new ArrayList<>();
        extenderStage.add(SchedulerRenderer.serviceAccount(p));
        extenderStage.addAll(RbacRenderer.scheduler(p));
        if (p.bundledExtender()) {
            extenderStage.addAll(RbacRenderer.extender(p));
            extenderStage.addAll(ExtenderRenderer.render(p, facts, tls));
        }

        List<HasMetadata> schedulerStage = new ArrayList<>(List.of(
                SchedulerRenderer.configMap(p, configYaml), SchedulerRenderer.deployment(p, facts, configHash, tls)));
        if (p.scheduler().replicas() > 1) {
            schedulerStage.add(SchedulerRenderer.podDisruptionBudget(p));
        }

        extenderStage.forEach(ProfileRenderer::stampTemplateHash);
        schedulerStage.forEach(ProfileRenderer::stampTemplateHash);
        return new DesiredState(
                p.names(),
                extenderStage,
                schedulerStage,
                configYaml,
                configHash,
                p.schedulerImage(facts),
                p.bundledExtender() ? p.extenderImage(facts) : null,
                p.tls(),
                p.bundledExtender(),
                p.bundledExtender() ? p.labelKey() : null);
    }

    /** Puts {@link Labels#TEMPLATE_HASH} on a Deployment; other objects are left as they are. */
    private static void stampTemplateHash(HasMetadata object) {
        if (object instanceof Deployment deployment) {
            Map<String, String> annotations = new LinkedHashMap<>();
            if (deployment.getMetadata().getAnnotations() != null) {
                annotations.putAll(deployment.getMetadata().getAnnotations());
            }
            annotations.put(Labels.TEMPLATE_HASH, templateHash(deployment));
            deployment.getMetadata().setAnnotations(annotations);
        }
    }

    /** The hash of a rendered Deployment's pod template. */
    public static String templateHash(Deployment deployment) {
        return Yaml.hash(Yaml.write(deployment.getSpec().getTemplate()));
    }
}
