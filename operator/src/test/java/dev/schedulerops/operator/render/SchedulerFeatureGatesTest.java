package dev.schedulerops.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.validation.KubernetesVersion;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerFeatureGatesTest {
    @Test
    void asynchronousPreemptionIsTurnedOffWhereItIsOnByDefault() {
        for (String version : new String[] {"1.33", "1.34", "1.35", "1.36", "1.37"}) {
            assertThat(SchedulerFeatureGates.effective(Map.of(), KubernetesVersion.parse(version)))
                    .as(version)
                    .containsExactly(Map.entry(SchedulerFeatureGates.ASYNC_PREEMPTION, false));
        }
    }

    @Test
    void itIsLeftAloneWhereItIsOffOrMissingAndWhereTheProfileSetsIt() {
        assertThat(SchedulerFeatureGates.effective(Map.of(), KubernetesVersion.parse("1.32")))
                .as("alpha, off by default")
                .isEmpty();
        assertThat(SchedulerFeatureGates.effective(Map.of(), KubernetesVersion.parse("1.30")))
                .as("no such gate: kube-scheduler would refuse it")
                .isEmpty();
        assertThat(SchedulerFeatureGates.effective(
                        Map.of(SchedulerFeatureGates.ASYNC_PREEMPTION, true, "OtherGate", false),
                        KubernetesVersion.parse("1.33")))
                .containsExactly(
                        Map.entry("OtherGate", false), Map.entry(SchedulerFeatureGates.ASYNC_PREEMPTION, true));
    }
}
