package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.api.SchedulerProfileSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchedulerNameConflictsTest {

    static SchedulerProfile profile(String name, String schedulerName, String created) {
        SchedulerProfile profile = new SchedulerProfile();
        profile.setMetadata(new ObjectMetaBuilder()
                .withName(name)
                .withCreationTimestamp(created)
                .build());
        SchedulerProfileSpec spec = new SchedulerProfileSpec();
        spec.setSchedulerName(schedulerName);
        spec.setLabelKey("example.com/tier");
        profile.setSpec(spec);
        return profile;
    }

    @Test
    void theOlderProfileKeepsTheName() {
        SchedulerProfile older = profile("one", "shared", "2024-01-01T00:00:00Z");
        SchedulerProfile younger = profile("two", "shared", "2024-01-02T00:00:00Z");
        List<SchedulerProfile> all = List.of(older, younger);

        assertThat(SchedulerNameConflicts.holderOf(younger, all)).containsSame(older);
        assertThat(SchedulerNameConflicts.holderOf(older, all)).isEmpty();
    }

    @Test
    void onATieTheSmallerNameKeepsIt() {
        SchedulerProfile first = profile("aaa", "shared", "2024-01-01T00:00:00Z");
        SchedulerProfile second = profile("zzz", "shared", "2024-01-01T00:00:00Z");
        List<SchedulerProfile> all = List.of(second, first);

        assertThat(SchedulerNameConflicts.holderOf(second, all)).containsSame(first);
        assertThat(SchedulerNameConflicts.holderOf(first, all)).isEmpty();
    }

    @Test
    void theDefaultSchedulerNameIsTheProfileName() {
        SchedulerProfile explicit = profile("one", "two", "2024-01-01T00:00:00Z");
        SchedulerProfile byName = profile("two", null, "2024-01-02T00:00:00Z");

        assertThat(SchedulerNameConflicts.holderOf(byName, List.of(explicit, byName)))
                .containsSame(explicit);
    }

    @Test
    void differentNamesDoNotConflictAndAProfileNeverConflictsWithItself() {
        SchedulerProfile one = profile("one", "x", "2024-01-01T00:00:00Z");
        SchedulerProfile two = profile("two", "y", "2024-01-01T00:00:00Z");
        SchedulerProfile sameAsOne = profile("one", "x", "2024-01-01T00:00:00Z");

        assertThat(SchedulerNameConflicts.holderOf(two, List.of(one, two))).isEmpty();
        assertThat(SchedulerNameConflicts.holderOf(one, List.of(sameAsOne))).isEmpty();
    }

    @Test
    void aProfileNeverConflictsWithAnotherCopyOfItselfWhateverItsCreationTimestamp() {
        // Same name, different creationTimestamp (e.g. a cached copy from before the profile was deleted
        // and created again): CLAIM_ORDER alone would name the older copy as the holder, only the key filter does not.
        SchedulerProfile current = profile("one", "x", "2024-01-02T00:00:00Z");
        SchedulerProfile olderCopy = profile("one", "x", "2024-01-01T00:00:00Z");

        assertThat(SchedulerNameConflicts.CLAIM_ORDER.compare(olderCopy, current))
                .isNegative();
        assertThat(SchedulerNameConflicts.holderOf(current, List.of(olderCopy, current)))
                .isEmpty();
        assertThat(SchedulerNameConflicts.holderOf(current, List.of(olderCopy))).isEmpty();
    }

    @Test
    void withSeveralClaimantsTheOldestIsNamed() {
        SchedulerProfile oldest = profile("c", "shared", "2024-01-01T00:00:00Z");
        SchedulerProfile middle = profile("a", "shared", "2024-01-02T00:00:00Z");
        SchedulerProfile youngest = profile("b", "shared", "2024-01-03T00:00:00Z");

        assertThat(SchedulerNameConflicts.holderOf(youngest, List.of(middle, youngest, oldest)))
                .containsSame(oldest);
        assertThat(SchedulerNameConflicts.key(oldest)).isEqualTo("c");
    }
}
