package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.ProfileYaml;
import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.fuzz.ConfigCorpus;
import dev.schedulerops.operator.fuzz.GeneratedProfiles;
import dev.schedulerops.operator.model.ClusterFacts;
import dev.schedulerops.operator.validation.OperatorTimeCheck;
import dev.schedulerops.operator.validation.ProfileValidator;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The CRD's CEL rules and the Java validator are one set of rules: every spec the Java validator refuses is either
 * refused at admission by the real API server (schema and CEL), or refused for a reason {@link OperatorTimeCheck}
 * lists as a check the CRD cannot make (the README's "Checked by the operator, not at admission" table is that
 * list). The specs are the refused ones of the validator-agreement corpus (three Kubernetes versions) and of the
 * profile fuzzer's plausible and hostile documents. Sent with dry run: nothing is stored or reconciled.
 */
@ExtendWith(ApiServerTier.class)
class OperatorTimeChecksTest {
    private static final int CORPUS_CASES = Integer.getInteger("operatorTime.corpus", 150);
    private static final int FUZZ_PROFILES = Integer.getInteger("operatorTime.fuzz", 150);

    @Test
    void everySpecTheValidatorRefusesIsRefusedAtAdmissionOrByADocumentedOperatorTimeCheck(Tier tier) {
        id = tier.id();
        List<Refused> refused = new ArrayList<>();
        for (String version : List.of("1.30.14", "1.33.13", "1.37.2")) {
            ClusterFacts facts = ClusterFacts.forVersion(version);
            for (ConfigCorpus.Case c : new ConfigCorpus(version, 29).first(CORPUS_CASES)) {
                refusedByJava(c.yaml(), facts, "corpus " + version + " case " + c.index())
                        .ifPresent(refused::add);
            }
        }
        ClusterFacts facts = ClusterFacts.forVersion("1.33.13");
        SPECIMENS.forEach((check, spec) -> refusedByJava(
                        "apiVersion: schedulerops.dev/v1beta1\nkind: SchedulerProfile\nmetadata: {name: x}\nspec:\n"
                                + "  labelKey: example.com/pool\n" + spec,
                        facts,
                        "specimen of " + check)
                .ifPresent(refused::add));
        Iterator<String> fuzz = GeneratedProfiles.documents().sampleStream().iterator();
        for (int i = 0; i < FUZZ_PROFILES; i++) {
            refusedByJava(fuzz.next(), facts, "fuzz " + i).ifPresent(refused::add);
        }

        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> undocumented = new ArrayList<>();
        for (Refused r : refused) {
            SchedulerProfile profile = r.profile();
            try {
                tier.client().resource(profile).dryRun().create();
            } catch (KubernetesClientException e) {
                assertThat(e.getCode())
                        .as("admission refusal of %s", r.source())
                        .isBetween(400, 499);
                outcomes.merge("refused at admission", 1, Integer::sum);
                continue;
            }
            for (String error : r.errors()) {
                OperatorTimeCheck.of(error)
                        .ifPresentOrElse(
                                check -> outcomes.merge("admitted, operator-time " + check, 1, Integer::sum),
                                () -> undocumented.add(r.source() + ": " + error + "\n" + r.yaml()));
            }
        }
        System.out.println("OperatorTimeChecksTest: " + refused.size() + " specs the validator refuses: " + outcomes);
        assertThat(undocumented)
                .as("refused by the Java validator, admitted by the CRD, and not a documented operator-time check")
                .isEmpty();
        assertThat(outcomes).containsKey("refused at admission");
        for (OperatorTimeCheck check : OperatorTimeCheck.values()) {
            assertThat(outcomes)
                    .as("a spec admitted and refused by " + check)
                    .containsKey("admitted, operator-time " + check);
        }
    }

    /** One spec per documented check that the API server admits and the validator refuses: the list is not idle. */
    private static final Map<OperatorTimeCheck, String> SPECIMENS = Map.of(
            OperatorTimeCheck.PLUGIN_SETS,
            "  plugins: {filter: {enabled: [{name: NoSuchPlugin}]}}\n",
            OperatorTimeCheck.PLUGIN_ARGS,
            "  pluginConfig: [{name: DefaultPreemption, args: {minCandidateNodesPercentage: 101}}]\n",
            OperatorTimeCheck.SCHEDULER_FLAGS,
            "  scheduler: {featureGates: {NoSuchGate: true}}\n",
            OperatorTimeCheck.LEASE_AT_JITTER_BOUNDARY,
            "  scheduler: {leaderElection: {leaseDuration: 30s, renewDeadline: 6s, retryPeriod: 5s}}\n",
            OperatorTimeCheck.POD_METADATA_SYNTAX,
            "  extender: {podLabels: {\"bad key!\": x}}\n");

    record Refused(String source, String yaml, SchedulerProfile profile, List<String> errors) {}

    /** This test's id, and a counter for its profiles' names (JUnit makes one instance per test). */
    private String id;

    private int sequence;

    /** The document's spec as this test's profile (its own name, this namespace), if the validator refuses it. */
    private Optional<Refused> refusedByJava(String yaml, ClusterFacts facts, String source) {
        SchedulerProfile profile;
        try {
            profile = ProfileYaml.readOne(yaml);
        } catch (Exception e) {
            return Optional.empty(); // not a profile at all: nothing the API server could be sent
        }
        if (profile == null) {
            return Optional.empty();
        }
        if (profile.getMetadata() == null) {
            profile.setMetadata(new ObjectMeta());
        }
        profile.getMetadata().setName("operator-time-" + sequence++ + "-" + id);
        profile.getMetadata().setNamespace(null);
        List<String> errors = ProfileValidator.validate(profile, facts);
        return errors.isEmpty() ? Optional.empty() : Optional.of(new Refused(source, yaml, profile, errors));
    }
}
