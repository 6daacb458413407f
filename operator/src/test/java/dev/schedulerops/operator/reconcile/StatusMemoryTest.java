package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.SchedulerProfileStatus;
import org.junit.jupiter.api.Test;

class StatusMemoryTest {

    static SchedulerProfileStatus status(String hash) {
        SchedulerProfileStatus status = new SchedulerProfileStatus();
        status.setConfigHash(hash);
        return status;
    }

    @Test
    void noPatchWhenTheCachedStatusIsAlreadyTheNewOne() {
        StatusMemory memory = new StatusMemory();

        assertThat(memory.needsPatch("uid", status("a"), status("a"))).isFalse();
        assertThat(memory.needsPatch("uid", status("a"), status("b"))).isTrue();
    }

    @Test
    void noPatchWhenWeJustWroteItAndTheCacheLags() {
        StatusMemory memory = new StatusMemory();
        memory.wrote("uid", status("b"));

        assertThat(memory.needsPatch("uid", status("a"), status("b"))).isFalse();
        assertThat(memory.previous("uid", status("a"))).isEqualTo(status("b"));
        assertThat(memory.needsPatch("uid", status("a"), status("c"))).isTrue();
    }

    @Test
    void aForgottenProfileFallsBackToTheCache() {
        StatusMemory memory = new StatusMemory();
        memory.wrote("uid", status("b"));
        memory.forget("uid");

        assertThat(memory.previous("uid", status("a"))).isEqualTo(status("a"));
        assertThat(memory.previous("other", null)).isNull();
        // A uid we never wrote for falls back to the cached status.
        assertThat(memory.previous("other", status("a"))).isEqualTo(status("a"));
    }
}
