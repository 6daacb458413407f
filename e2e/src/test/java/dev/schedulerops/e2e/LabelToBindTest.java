package dev.schedulerops.e2e;

import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.ExtenderProbe;
import dev.schedulerops.e2e.support.LabelToBind;
import dev.schedulerops.e2e.support.LabelToBindReport;
import dev.schedulerops.e2e.support.MergePatch;
import dev.schedulerops.e2e.support.ResultsFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The core promise on the local-process path: a pod that waits because no node carries the label lands within a
 * second of a node getting it, in every mode (Filter, FilterOnlyOne, Filter + Prioritize; names only and whole nodes),
 * with mutual TLS between the real kube-scheduler and the extender jar as the operator rendered them, and nothing
 * touching the pod. kube-scheduler runs with its defaults: a pod it retried before the extender's node cache had the
 * label would otherwise wait for the next cluster event, up to 5 minutes ({@code podMaxInUnschedulablePodsDuration}).
 *
 * <p>Each mode runs {@code schedulerops.labelToBind.trials} trials (5 by default: the race was lost in 5 of 6 trials
 * before the fix); {@code bench/label-to-bind} runs 200 a mode and writes the results file
 * ({@code schedulerops.labelToBind.results}).
 */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LabelToBindTest {
    static final String LABEL = "label-to-bind.schedulerops.dev/rank";
    private static final int TRIALS = Integer.getInteger("schedulerops.labelToBind.trials", 5);

    private Cluster cluster;
    private ProfileHarness harness;
    private String node;
    private String namespace;
    private final List<LabelToBind.Trial> trials = new ArrayList<>();
    private final List<LabelToBindReport.Lag> lags = new ArrayList<>();
    private ResultsFile results;

    @BeforeAll
    void start(Cluster cluster) {
        this.cluster = cluster;
        harness = new ProfileHarness(cluster, "label-to-bind");
        node = cluster.addNodes(1, Map.of("schedulerops.dev/e2e-pool", "label-to-bind"))
                .get(0);
        cluster.client()
                .nodes()
                .list()
                .getItems()
                .forEach(n ->
                        MergePatch.nodeLabel(cluster.client(), n.getMetadata().getName(), LABEL, null));
        namespace = cluster.createNamespace("label-to-bind").getMetadata().getName();
        results = LabelToBindReport.start(setup());
    }

    private String setup() {
        String jar = System.getProperty("schedulerops.extenderJar");
        return "local processes: kube-scheduler " + cluster.kubernetesVersion() + " and the extender jar "
                + (jar == null ? "of this checkout" : jar) + " as the operator rendered them (mutual TLS), a KWOK node";
    }

    @AfterAll
    void stop() {
        if (harness != null) {
            harness.close();
        }
        if (results != null) {
            LabelToBindReport.writeIfAsked(results, setup(), trials, lags);
        }
    }

    /** Every mode, or those {@code schedulerops.labelToBind.modes} names (slugs, comma-separated). */
    static Stream<LabelToBind.Mode> modes() {
        return LabelToBind.Mode.selected(LABEL).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void aWaitingPodFollowsANewLabelWithinASecond(LabelToBind.Mode mode) throws Exception {
        List<LabelToBind.Trial> these = new ArrayList<>();
        try (ProfileHarness.Running profile = harness.run("l2b-" + mode.slug(), mode.specYaml());
                LabelToBind experiment = new LabelToBind(cluster.client(), namespace, LABEL, node, mode.hashCode())) {
            for (int i = 1; i <= TRIALS; i++) {
                LabelToBind.Trial trial = experiment.trial(mode.name(), profile.profile(), i);
                System.out.println("[label-to-bind] " + trial.describe());
                these.add(trial);
            }
            if (mode.specYaml().contains("Prioritize") && mode.specYaml().contains("nodeCacheCapable: true")) {
                // The window that remains: how long the extender's cache takes to see a label come and go.
                ExtenderProbe probe = profile.probe();
                List<LabelToBindReport.Lag> window = new ArrayList<>();
                for (int i = 1; i <= TRIALS; i++) {
                    for (boolean add : new boolean[] {true, false}) {
                        window.add(new LabelToBindReport.Lag(add, experiment.cacheLagMicros(probe, add)));
                    }
                }
                lags.addAll(window);
                LabelToBindReport.assertTheWindow(window);
            }
        } finally {
            trials.addAll(these);
        }
        LabelToBindReport.assertThePromise(mode.name(), these, cluster.kubernetesVersion());
    }
}
