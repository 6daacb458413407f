package dev.schedulerops.e2e;

import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.ExtenderProbe;
import dev.schedulerops.e2e.support.LabelToBind;
import dev.schedulerops.e2e.support.LabelToBindReport;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.RealNode;
import dev.schedulerops.e2e.support.ResultsFile;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
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

    /** A probe of the profile's extender pod at its IP on the node's bridge, with the scheduler's client Secret. */
    private static ExtenderProbe probe(KubernetesClient client, String profile) throws Exception {
        Names names = new Names(profile, InClusterTest.OPERATOR_NAMESPACE);
        Secret secret = client.secrets()
                .inNamespace(InClusterTest.OPERATOR_NAMESPACE)
                .withName(names.schedulerClientSecret())
                .get();
        Path dir = Files.createTempDirectory("l2b-probe");
        for (String key : List.of(Names.CA_CERT, Names.TLS_CERT, Names.TLS_KEY)) {
            Files.write(
                    dir.resolve(key),
                    Base64.getDecoder().decode(secret.getData().get(key)));
        }
        String ip = OperatorTests.livePods(
                        client, InClusterTest.OPERATOR_NAMESPACE, Labels.selector(profile, Labels.COMPONENT_EXTENDER))
                .get(0)
                .getStatus()
                .getPodIP();
        return ExtenderProbe.of(
                "https://" + ip + ":" + Names.EXTENDER_TLS_PORT,
                dir.resolve(Names.CA_CERT),
                dir.resolve(Names.TLS_CERT),
                dir.resolve(Names.TLS_KEY));
    }

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
        List<LabelToBindReport.Lag> lags = new ArrayList<>();
        List<String> profiles = new ArrayList<>();
        try {
            for (LabelToBind.Mode mode : LabelToBind.Mode.selected(LABEL)) {
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
                    if (mode.specYaml().contains("Prioritize")
                            && mode.specYaml().contains("nodeCacheCapable: true")) {
                        ExtenderProbe probe = probe(client, profile);
                        for (int i = 1; i <= TRIALS; i++) {
                            for (boolean add : new boolean[] {true, false}) {
                                lags.add(new LabelToBindReport.Lag(add, experiment.cacheLagMicros(probe, add)));
                            }
                        }
                    }
                }
                // One profile at a time: the others' pods would be events to this one's scheduler.
                OperatorTests.uninstallProfiles(client, ROLLOUT, profile);
            }
        } finally {
            LabelToBindReport.writeIfAsked(results, setup, trials, lags);
            OperatorTests.removeTheProductFromTheRealNode(
                    cluster, namespace, LABEL, List.of(node), ROLLOUT, profiles.toArray(String[]::new));
        }
    }
}
