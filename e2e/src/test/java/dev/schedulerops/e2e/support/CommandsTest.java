package dev.schedulerops.e2e.support;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandsTest {
    /**
     * A command that outlives its limit is stopped with its children: a `sandbox local` killed alone left its etcd,
     * kube-apiserver and kube-schedulers running for hours.
     */
    @Test
    void aCommandPastItsLimitIsStoppedWithItsChildren() throws Exception {
        Path pidFile = Files.createTempFile("commands-test", ".pid");
        assertThatThrownBy(() -> Commands.run(
                        List.of("bash", "-c", "sleep 300 & echo $! > " + pidFile + "; wait"), Duration.ofSeconds(2)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("did not finish within");
        long child = Long.parseLong(Files.readString(pidFile).trim());
        Files.delete(pidFile);

        Await.until(Duration.ofSeconds(10), "the child is gone", () -> ProcessHandle.of(child)
                .map(h -> !h.isAlive())
                .orElse(true));
    }
}
