package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.preview.LoopbackPorts.Range;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoopbackPortsTest {
    @Test
    void theMachinesEphemeralRangeIsReadFromTheKernel() {
        // Read, not the default: Files.readString of this /proc/sys file returns only its first byte.
        Range ephemeral = LoopbackPorts.read(LoopbackPorts.EPHEMERAL_RANGE).orElseThrow();

        // The kernel never lets the range start under 1024.
        assertThat(ephemeral.low()).isGreaterThanOrEqualTo(1024);
        assertThat(ephemeral.high()).isGreaterThan(ephemeral.low()).isLessThanOrEqualTo(65536);
    }

    @Test
    void theRangeFileIsLowAndHighBothIncludedAndAnythingElseIsNoRange(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("range"), "25000\t40000\n");
        Path broken = Files.writeString(dir.resolve("broken"), "3");

        assertThat(LoopbackPorts.read(file)).contains(new Range(25000, 40001));
        assertThat(LoopbackPorts.read(broken)).isEmpty();
    }

    @Test
    void portsArePickedOutsideTheEphemeralRangeWhereOutgoingConnectionsNeverTakeThem() {
        Range ephemeral = LoopbackPorts.ephemeral();

        for (int i = 0; i < 50; i++) {
            int port = LoopbackPorts.free();
            assertThat(port < ephemeral.low() || port >= ephemeral.high())
                    .as("port %d outside %s", port, ephemeral)
                    .isTrue();
        }
    }

    @Test
    void belowTheCeilingFirstThenAboveTheRangeThenNowhere() {
        assertThat(LoopbackPorts.candidate(new Range(32768, 61000))).contains(new Range(20000, 30000));
        assertThat(LoopbackPorts.candidate(new Range(24000, 61000))).contains(new Range(20000, 24000));
        assertThat(LoopbackPorts.candidate(new Range(1024, 60000))).contains(new Range(60000, 65536));
        assertThat(LoopbackPorts.candidate(new Range(1024, 65000))).isEmpty();
    }

    @Test
    void aPortIsHandedOutOncePerJvmThoughNothingHoldsIt() {
        // Under LOWEST: free() never picks here, so only this test hands these ports out.
        Optional<Range> range = Optional.of(new Range(10000, 11000));
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            assertThat(seen.add(LoopbackPorts.free(range))).isTrue();
        }
    }

    @Test
    void aPortSomethingListensOnIsNeverHandedOut() throws IOException {
        Range range = new Range(12000, 13000);
        List<ServerSocket> held = new ArrayList<>();
        List<Integer> released = new ArrayList<>();
        try {
            for (int port = range.low(); port < range.high(); port++) {
                try {
                    held.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
                } catch (BindException heldByAnotherProcess) {
                    // not free either
                }
            }
            for (int i = 0; i < 5; i++) {
                ServerSocket socket = held.remove(held.size() - 1);
                released.add(socket.getLocalPort());
                socket.close();
            }

            assertThat(LoopbackPorts.free(Optional.of(range))).isIn(released);
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }

    @Test
    void withNoRoomOutsideTheEphemeralRangeTheKernelPicks() {
        Range ephemeral = LoopbackPorts.ephemeral();

        assertThat(LoopbackPorts.free(Optional.empty())).isBetween(ephemeral.low(), ephemeral.high() - 1);
    }
}
