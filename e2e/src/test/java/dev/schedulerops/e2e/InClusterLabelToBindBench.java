package dev.schedulerops.e2e;

import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.LabelToBind;
import dev.schedulerops.e2e.support.LabelToBindReport;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.ResultsFile;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The label-to-bind benchmark in-cluster: the product installed from {@code deploy/} on the real node, each mode's
 * profile (one extender replica, mutual TLS) run by its operator as pods there, {@link LabelToBind} trials against a
 * KWOK node. Not a test of the suite (its name matches none of Surefire's patterns): {@code bench/label-to-bind} runs
 * it by name and it writes {@code schedulerops.labelToBind.results}.
 */
@Tag("real-node")
@ExtendWith(ClusterExtension.class)
class InClusterLabelToBindBench {
    static final String LABEL = LabelToBindTest.LABEL;
    static final Duration ROLLOUT = Duration.ofMinutes(3);
    private static final int TRIALS = Integer.getInteger("schedulerops.labelToBind.trials", 200);

    @Test
    void everyModeInCluster(Cluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        RealNode.ensure();
        String node = cluster.addNodes(1, Map.of("schedulerops.dev/e2e-pool", "label-to-bind"))
                .get(0);
        client.nodes()
                .list()
                .getItems()
                .forEach(n -> MergePatch.nodeLabel(client, n.getMetadata().getName(), LABEL, null));
        String setup = "in-cluster on the real node: the operator from deploy/, kube-scheduler "
                + cluster.kubernetesVersion() + " and the extender as its pods (one replica each, mutual TLS), a KWOK"
                + " node";
        ResultsFile results = LabelToBindReport.start(setup);
        OperatorTests.installTheDeployedProduct(cluster, ROLLOUT);
        String namespace = OperatorTests.createRestrictedNamespace(cluster, "label-to-bind");
        List<LabelToBind.Trial> trials = new ArrayList<>();
        List<String> profiles = new ArrayList<>();
        try {
            for (LabelToBind.Mode mode : LabelToBind.Mode.all(LABEL)) {
                String profile = "l2b-" + mode.slug();
                profiles.add(profile);
                client.resource(OperatorTests.profile("label-to-bind", profile, mode.specYaml()))
                        .create();
                OperatorTests.awaitCurrent(client, profile, ROLLOUT);
                try (LabelToBind experiment = new LabelToBind(client, namespace, LABEL, node, mode.hashCode())) {
                    for (int i = 1; i <= TRIALS; i++) {
                        LabelToBind.Trial trial = experiment.trial(mode.name(), profile, i);
                        System.out.println("[label-to-bind] " + trial.describe());
                        trials.add(trial);
                    }
                }
                // One profile at a time: the others' pods would be events to this one's scheduler.
                OperatorTests.uninstallProfiles(client, ROLLOUT, profile);
            }
        } finally {
            LabelToBindReport.writeIfAsked(results, setup, trials);
            OperatorTests.removeTheProductFromTheRealNode(
                    cluster, namespace, LABEL, List.of(node), ROLLOUT, profiles.toArray(String[]::new));
        }
    }
}
