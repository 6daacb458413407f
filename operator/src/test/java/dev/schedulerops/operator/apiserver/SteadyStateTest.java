package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a profile at rest costs the API server, from the API server's own audit log (the operator runs as a user of
 * its own): no write request when nothing changed, one write for one hand edit, and a node label change reconciles
 * only the profiles whose label key it touches. Before, every reconcile re-applied every object of the profile (a
 * server-side apply PATCH each, about ten a profile, again at every maxReconciliationInterval), and a label change on
 * any node reconciled every profile.
 */
@ExtendWith(ApiServerTier.class)
class SteadyStateTest {
    @Test
    void aProfileAtRestCostsNoWriteAndANodeLabelReconcilesOnlyItsProfiles(Tier tier) throws Exception {
        String keyA = "steady-" + tier.id() + ".example/a";
        String keyB = "steady-" + tier.id() + ".example/b";
        List<String> profiles = List.of("a1", "a2", "b1", "b2");
        for (String p : profiles) {
            tier.rollOut(p, "labelKey: " + (p.startsWith("a") ? keyA : keyB));
        }
        String node = "steady-" + tier.id();
        tier.client()
                .nodes()
                .resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName(node)
                        .endMetadata()
                        .build())
                .create();
        // The rollouts' last writes are done once each profile has been reconciled on what the API server holds.
        for (String p : profiles) {
            tier.reconciledAsOfNow(p);
        }

        // At rest: a reconcile of every profile (started by a touch of its extender Deployment, as any event of its
        // objects would start one) writes nothing at all.
        long mark = AuditLog.size();
        for (String p : profiles) {
            tier.reconciledAsOfNow(p);
        }
        assertThat(operatorWrites(tier, mark, true))
                .as("the operator's writes when every profile is reconciled at rest, events included")
                .isEmpty();

        // A node label no profile uses reaches no profile; then the node takes label key A: the two A profiles'
        // labelledNodes go to 1 (a status write each), B is untouched. The operator's one node informer hands the
        // first change to the reconciler before the second: once both A profiles have had their event and counted
        // the node, what the first change did is in the log.
        mark = AuditLog.size();
        long events = tier.reconciles().mark();
        label(tier, node, "unrelated.example/x", "1");
        label(tier, node, keyA, "10");
        Eventually.until(
                "a1 and a2 had an event and count the labelled node",
                () -> Stream.of("a1", "a2")
                        .allMatch(
                                p -> tier.reconciles().eventsSince(events, tier.name(p)) > 0 && labelled(tier, p) == 1),
                () -> tier.reconciles().since(events));
        tier.reconciledAsOfNow("a1");
        tier.reconciledAsOfNow("a2");
        for (String p : profiles) {
            assertThat(tier.reconciles().eventsSince(events, tier.name(p)))
                    .as(
                            "events handed to the reconciler for %s by the two node label changes (and, for the A"
                                    + " profiles, the touch that waited for their reconciles)",
                            p)
                    .isEqualTo(p.startsWith("a") ? 2 : 0);
        }
        assertThat(operatorWrites(tier, mark, true))
                .as("the operator's writes after labelling a node with %s, events included", keyA)
                .extracting(AuditLog.Request::toString)
                .containsExactlyInAnyOrder(
                        "patch schedulerprofiles/status /" + tier.name("a1"),
                        "patch schedulerprofiles/status /" + tier.name("a2"));
        assertThat(labelled(tier, "b1")).isZero();

        // One hand edit: the profile is reconciled whole, and only the edited object is written back.
        Names a1 = tier.names("a1");
        mark = AuditLog.size();
        tier.client()
                .configMaps()
                .inNamespace(tier.namespace())
                .withName(a1.schedulerConfig())
                .edit(cm -> {
                    cm.getData().put(Names.CONFIG_FILE, "edited: by hand\n");
                    return cm;
                });
        Eventually.until("the ConfigMap is put back", () -> !tier.configMap(a1.schedulerConfig())
                .getData()
                .get(Names.CONFIG_FILE)
                .startsWith("edited"));
        tier.reconciledAsOfNow("a1");
        assertThat(operatorWrites(tier, mark, false))
                .as("the operator's writes after one hand edit")
                .extracting(AuditLog.Request::toString)
                .containsExactly("patch configmaps " + tier.namespace() + "/" + a1.schedulerConfig());
    }

    private static void label(Tier tier, String node, String key, String value) {
        tier.client().nodes().withName(node).edit(n -> {
            Node edited = new NodeBuilder(n)
                    .editMetadata()
                    .addToLabels(key, value)
                    .endMetadata()
                    .build();
            return edited;
        });
    }

    private static int labelled(Tier tier, String profile) {
        var status = tier.profile(profile).get().getStatus();
        return status == null || status.getLabelledNodes() == null ? -1 : status.getLabelledNodes();
    }

    /**
     * The operator's write requests on this test's profiles and their objects (their names carry the test's id), and
     * Events about them, that the audit log recorded after {@code offset}; Events only if asked. (The operator is shared
     * by the tier: other tests' profiles are its business too.)
     */
    private static List<AuditLog.Request> operatorWrites(Tier tier, long offset, boolean withEvents) {
        return AuditLog.since(offset).stream()
                .filter(r -> BareApiServer.OPERATOR_USER.equals(r.user())
                        && r.write()
                        && r.about(tier.id())
                        && (withEvents || !r.resource().equals("events")))
                .toList();
    }
}
