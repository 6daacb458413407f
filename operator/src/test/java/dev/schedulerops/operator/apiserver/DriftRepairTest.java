package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.Service;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Objects edited or deleted by hand are put back, at once (the owned informers reconcile the profile). */
@ExtendWith(ApiServerTier.class)
class DriftRepairTest {

    @Test
    void aDeletedServiceIsRecreated(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        Service before = tier.client()
                .services()
                .inNamespace(tier.namespace())
                .withName(names.extender())
                .get();

        tier.client().resource(before).delete();

        Eventually.until("the Service is back", () -> {
            Service now = tier.client()
                    .services()
                    .inNamespace(tier.namespace())
                    .withName(names.extender())
                    .get();
            return now != null
                    && !now.getMetadata().getUid().equals(before.getMetadata().getUid());
        });
    }

    @Test
    void aHandEditedConfigMapIsPutBack(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank");
        String rendered = tier.configMap(names.schedulerConfig()).getData().get(Names.CONFIG_FILE);

        tier.client()
                .configMaps()
                .inNamespace(tier.namespace())
                .withName(names.schedulerConfig())
                .edit(cm -> {
                    cm.getData().put(Names.CONFIG_FILE, "edited: by hand\n");
                    return cm;
                });

        Eventually.until(
                "the rendered config is back",
                () -> rendered.equals(
                        tier.configMap(names.schedulerConfig()).getData().get(Names.CONFIG_FILE)),
                () -> tier.configMap(names.schedulerConfig()).getData());
    }

    @Test
    void aHandScaledExtenderIsScaledBack(Tier tier) {
        Names names = tier.names("p");
        tier.rollOut("p", "labelKey: example.com/rank\nextender:\n  replicas: 2");

        tier.client()
                .apps()
                .deployments()
                .inNamespace(tier.namespace())
                .withName(names.extender())
                .edit(d -> {
                    d.getSpec().setReplicas(5);
                    return d;
                });

        Eventually.until(
                "replicas back at 2",
                () -> tier.deployment(names.extender()).getSpec().getReplicas() == 2,
                () -> tier.deployment(names.extender()).getSpec().getReplicas());
        assertThat(tier.deployment(names.extender()).getSpec().getReplicas()).isEqualTo(2);
    }
}
