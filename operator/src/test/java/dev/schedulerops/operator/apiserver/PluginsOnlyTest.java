package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A profile without labelKey is a pure kube-scheduler profile: no bundled extender, no wait for one, and the extender's
 * objects of a profile that drops its labelKey are deleted once the scheduler without it is available.
 */
@ExtendWith(ApiServerTier.class)
class PluginsOnlyTest {

    @Test
    void aProfileWithoutLabelKeyRunsOnlyTheScheduler(Tier tier) {
        Names names = tier.names("plain");
        tier.schedulerAvailable("plain", true);
        tier.createProfile("plain", "plugins: {score: {disabled: [{name: ImageLocality}]}}");

        Eventually.until(
                "plain is Ready without an extender",
                () -> tier.hasCondition("plain", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                () -> tier.conditions("plain"));
        assertThat(tier.condition("plain", ProfileStatuses.EXTENDER_AVAILABLE))
                .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo(ProfileStatuses.REASON_NOT_USED));
        assertThat(tier.condition("plain", "ExtenderOpen")).isEmpty();
        assertThat(tier.deployment(names.extender())).isNull();
        assertThat(tier.configMap(names.schedulerConfig()).getData().get(Names.CONFIG_FILE))
                .doesNotContain("extenders")
                .contains("ImageLocality");
        assertThat(tier.client().secrets().inNamespace(tier.namespace()).list().getItems())
                .noneMatch(s -> s.getMetadata().getName().startsWith("plain-"));
    }

    @Test
    void droppingLabelKeyDeletesTheExtenderOnceTheSchedulerRunsWithoutIt(Tier tier) {
        Names names = tier.names("was");
        tier.rollOut("was", "labelKey: example.com/rank\nextender: {replicas: 2}");
        assertThat(tier.deployment(names.extender())).isNotNull();
        assertThat(get(tier, Secret.class, names.caSecret())).isNotNull();

        tier.profile("was").edit(p -> {
            p.getSpec().setLabelKey(null);
            p.getSpec().setExtender(null);
            p.getSpec().setVerbs(null);
            return p;
        });

        Eventually.until("the scheduler config has no extender", () -> !tier.configMap(names.schedulerConfig())
                .getData()
                .get(Names.CONFIG_FILE)
                .contains("extenders"));
        Eventually.until(
                "the extender's objects and the TLS Secrets are deleted",
                () -> extenderLeftovers(tier, names).isEmpty(),
                () -> extenderLeftovers(tier, names));
        assertThat(tier.deployment(names.scheduler())).isNotNull();
        assertThat(tier.events("was")).anySatisfy(e -> assertThat(e.getMessage())
                .isEqualTo("Deleted Deployment " + tier.namespace() + "/" + names.extender()
                        + ": the profile no longer renders it"));
        Eventually.until(
                "was is Ready again",
                () -> tier.hasCondition("was", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                () -> tier.conditions("was"));
    }

    private static List<String> extenderLeftovers(Tier tier, Names names) {
        Map<Class<? extends HasMetadata>, List<String>> byKind = Map.of(
                Deployment.class, List.of(names.extender()),
                Service.class, List.of(names.extender()),
                NetworkPolicy.class, List.of(names.extenderNetworkPolicy()),
                ServiceAccount.class, List.of(names.extender()),
                Secret.class, List.of(names.caSecret(), names.extenderTlsSecret(), names.schedulerClientSecret()));
        List<String> left = new java.util.ArrayList<>();
        byKind.forEach((kind, list) -> list.forEach(name -> {
            if (get(tier, kind, name) != null) {
                left.add(kind.getSimpleName() + "/" + name);
            }
        }));
        if (tier.client()
                        .resources(ClusterRoleBinding.class)
                        .withName(names.extenderNodesBinding())
                        .get()
                != null) {
            left.add("ClusterRoleBinding/" + names.extenderNodesBinding());
        }
        return left;
    }

    private static <T extends HasMetadata> T get(Tier tier, Class<T> kind, String name) {
        return tier.client()
                .resources(kind)
                .inNamespace(tier.namespace())
                .withName(name)
                .get();
    }
}
