package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** NodeRestriction's rule for a kubelet's own Node labels, case by case (e2e: SecurityReviewTest asks the real one). */
class NodeRestrictionTest {

    @ParameterizedTest(name = "{0}: kubelet may set = {1}")
    @CsvSource({
        // outside the kubernetes.io and k8s.io domains: anything
        "priority.lixueduan.com, true",
        "example.com/rank, true",
        "rank, true",
        "kubernetes.io.example.com/rank, true",
        // the reserved prefix, and its subdomains
        "node-restriction.kubernetes.io/rank, false",
        "team-a.node-restriction.kubernetes.io/rank, false",
        // other kubernetes.io and k8s.io keys
        "kubernetes.io/rank, false",
        "example.kubernetes.io/rank, false",
        "k8s.io/rank, false",
        "scheduling.k8s.io/rank, false",
        "node-role.kubernetes.io/worker, false",
        // the kubelet's own labels and namespaces
        "kubernetes.io/hostname, true",
        "topology.kubernetes.io/zone, true",
        "node.kubernetes.io/instance-type, true",
        "node.kubernetes.io/rank, true",
        "kubelet.kubernetes.io/rank, true",
        "example.node.kubernetes.io/rank, true",
        "beta.kubernetes.io/arch, true",
    })
    void aKubeletMaySetOnlyKeysOutsideTheReservedDomainsOrItsOwn(String key, boolean kubeletMaySet) {
        assertThat(NodeRestriction.kubeletMaySet(key)).isEqualTo(kubeletMaySet);
    }
}
