package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RolloutSlotsTest {
    final List<ResourceID> woken = new ArrayList<>();

    static ResourceID profile(String name) {
        return new ResourceID(name, "ns");
    }

    RolloutSlots slots(int max) {
        RolloutSlots slots = new RolloutSlots(max);
        slots.onTurn(woken::add);
        return slots;
    }

    @Test
    void atMostMaxProfilesRollAndTheOthersWait() {
        RolloutSlots slots = slots(2);

        assertThat(slots.take(profile("a"))).isTrue();
        assertThat(slots.take(profile("b"))).isTrue();
        assertThat(slots.take(profile("c"))).isFalse();
        assertThat(slots.take(profile("a"))).as("a holder keeps its slot").isTrue();
        assertThat(slots.rolling()).containsExactly(profile("a"), profile("b"));
        assertThat(slots.waitingCount()).isEqualTo(1);
    }

    @Test
    void aFreedSlotGoesToTheFirstWaiterEvenIfAnotherAsksFirst() {
        RolloutSlots slots = slots(1);
        slots.take(profile("a"));
        slots.take(profile("b"));
        slots.take(profile("c"));

        slots.release(profile("a"));

        assertThat(woken).containsExactly(profile("b"));
        assertThat(slots.take(profile("c"))).as("c queued after b").isFalse();
        assertThat(slots.take(profile("b"))).isTrue();
        assertThat(slots.take(profile("c"))).isFalse();
        assertThat(slots.waitingCount()).isEqualTo(1);
    }

    @Test
    void aWaiterThatWithdrawsNoLongerBlocksThoseBehindIt() {
        RolloutSlots slots = slots(2);
        slots.take(profile("a"));
        slots.take(profile("b"));
        slots.take(profile("c"));
        slots.take(profile("d"));
        slots.release(profile("a"));
        woken.clear();

        slots.withdraw(profile("c")); // its change was reverted before its turn

        assertThat(woken).containsExactly(profile("d"));
        assertThat(slots.take(profile("d"))).isTrue();
        assertThat(slots.rolling()).containsExactly(profile("b"), profile("d"));
    }

    @Test
    void withdrawKeepsASlotThatIsHeldAndReleaseOfAStrangerWakesNobody() {
        RolloutSlots slots = slots(1);
        slots.take(profile("a"));
        slots.take(profile("b"));

        slots.withdraw(profile("a"));
        slots.release(profile("z"));

        assertThat(slots.holds(profile("a"))).isTrue();
        assertThat(woken).isEmpty();
    }

    @Test
    void aDeletedWaiterLeavesTheQueue() {
        RolloutSlots slots = slots(1);
        slots.take(profile("a"));
        slots.take(profile("b"));

        slots.release(profile("b"));

        assertThat(slots.waitingCount()).isZero();
        assertThat(slots.holds(profile("a"))).isTrue();
    }

    @Test
    void theMaximumIsAtLeastOne() {
        assertThatThrownBy(() -> new RolloutSlots(0)).hasMessageContaining("at least 1, not 0");
    }
}
