package dev.schedulerops.extender.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The node cache's index takes a name's slot from the low bits of its hash. Real clusters name their nodes by patterns
 * that differ in a few bytes, anywhere in the name; each pattern must spread over the slots about as well as random
 * numbers do (5000 names over 8192 slots: about 3750 slots used), not crowd into a few and make every lookup probe a
 * long run.
 */
class NameHashTest {
    private static final int NAMES = 5000;
    private static final int SLOTS = 8192;

    static List<IntFunction<String>> patterns() {
        return List.of(
                i -> String.format("node-%05d", i),
                i -> String.format("ip-192-168-%d-%d.us-west-2.compute.internal", i / 250, i % 250),
                i -> String.format("gke-prod-default-pool-%08x-%04d", 0x4f2a9c00 + i / 100, i % 100),
                i -> String.format("aks-nodepool1-12345678-vmss%06X", i),
                i -> "w" + i,
                i -> String.format("worker-%d.rack-%d.dc1.example.com", i % 40, i / 40));
    }

    @ParameterizedTest
    @MethodSource("patterns")
    void namesOfOnePatternSpreadOverTheSlots(IntFunction<String> pattern) {
        Set<Integer> slots = new HashSet<>();
        for (int i = 0; i < NAMES; i++) {
            byte[] name = pattern.apply(i).getBytes(StandardCharsets.UTF_8);
            slots.add(NameHash.of(name, 0, name.length) & (SLOTS - 1));
        }

        assertThat(slots.size()).as("slots used by " + pattern.apply(1) + "...").isGreaterThan(3400);
    }
}
