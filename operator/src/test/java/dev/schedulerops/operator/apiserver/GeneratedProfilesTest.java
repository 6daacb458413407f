package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.fuzz.GeneratedProfiles;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The profile fuzzer through the real API server (CRD schema and CEL rules at admission) and the operator: every
 * generated profile ({@link GeneratedProfiles#documents()}, valid and hostile) is either refused at admission with
 * a message, or gets a {@code ConfigValid} condition from the operator: True with its first stage (the extender Deployment) applied,
 * or False with a message. Never an operator that stays silent or throws. {@code -Dfuzz.apiserver.profiles=N}
 * (default 25) sets how many.
 */
@ExtendWith(ApiServerTier.class)
class GeneratedProfilesTest {

    @Test
    void everyGeneratedProfileIsRefusedAtAdmissionOrJudgedByTheOperator(Tier tier) {
        int wanted = Integer.getInteger("fuzz.apiserver.profiles", 25);
        // jqwik's generators outside a property: a new seed each run, printed; -Dfuzz.seed=N draws the same again.
        GeneratedProfiles.Sample sample = GeneratedProfiles.seeded(GeneratedProfiles.documents());
        java.util.Iterator<String> samples = sample.documents();
        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> created = new ArrayList<>();
        int sent = 0;
        for (int drawn = 0; sent < wanted && drawn < wanted * 20; drawn++) {
            String document = samples.next(); // outside the try: a generator that throws fails the test
            SchedulerProfile profile;
            try {
                profile = ProfileYaml.readOne(document);
            } catch (Exception e) {
                continue; // not an object at all: ProfileFuzzTest covers the reading; nothing to send
            }
            String name = "gen-" + sent;
            if (profile.getMetadata() == null) {
                profile.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta()); // the document had none
            }
            profile.getMetadata().setName(tier.name(name));
            profile.getMetadata().setNamespace(null);
            sent++;
            try {
                tier.client().resource(profile).create();
                created.add(name);
            } catch (KubernetesClientException e) {
                assertThat(e.getCode())
                        .as("admission refusal of %s: %s; %s", name, e.getMessage(), sample.reproduce())
                        .isBetween(400, 499);
                assertThat(
                                e.getStatus() == null
                                        ? e.getMessage()
                                        : e.getStatus().getMessage())
                        .as("admission's message")
                        .isNotBlank();
                outcomes.merge("refused at admission (" + e.getCode() + ")", 1, Integer::sum);
            }
        }
        for (String name : created) {
            Eventually.until(
                    name + " has ConfigValid",
                    () -> tier.condition(name, ProfileStatuses.CONFIG_VALID).isPresent(),
                    () -> tier.conditions(name));
            Condition valid = tier.condition(name, ProfileStatuses.CONFIG_VALID).orElseThrow();
            if ("True".equals(valid.getStatus())) {
                Names names = tier.names(name);
                boolean pluginsOnly = tier.profile(name).get().getSpec().getLabelKey() == null;
                // With a labelKey the extender Deployment is the first stage; plugins only, the scheduler's is all.
                String first = pluginsOnly ? names.scheduler() : names.extender();
                Eventually.until(name + "'s first Deployment " + first, () -> tier.deployment(first) != null);
                outcomes.merge("accepted and rendered", 1, Integer::sum);
            } else {
                assertThat(valid.getMessage())
                        .as("%s's ConfigValid=False message; %s", name, sample.reproduce())
                        .isNotBlank();
                outcomes.merge("refused by the operator (" + valid.getReason() + ")", 1, Integer::sum);
            }
        }
        System.out.println("GeneratedProfilesTest: " + sent + " profiles sent: " + outcomes);
        assertThat(sent).as(sample.reproduce()).isEqualTo(wanted);
        assertThat(outcomes.keySet()).anyMatch(k -> k.startsWith("accepted"));
    }
}
