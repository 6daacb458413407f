package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.preview.LoopbackPorts.Range;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
    @Test
    void theMachinesEphemeralRangeIsReadFromTheKernel() {
        // The kernel never lets the range start under 1024, and Linux's default starts at 32768.
        Range ephemeral = LoopbackPorts.ephemeral();

        assertThat(ephemeral.low()).isGreaterThanOrEqualTo(1024);
        assertThat(ephemeral.high()).isGreaterThan(ephemeral.low()).isLessThanOrEqualTo(65536);
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
        assertThat(LoopbackPorts.candidates(new Range(32768, 61000))).containsExactly(new Range(20000, 30000));
        assertThat(LoopbackPorts.candidates(new Range(24000, 61000))).containsExactly(new Range(20000, 24000));
        assertThat(LoopbackPorts.candidates(new Range(1024, 60000))).containsExactly(new Range(60000, 65536));
        assertThat(LoopbackPorts.candidates(new Range(1024, 65000))).isEmpty();
    }

    @Test
    void aPortIsHandedOutOncePerJvmThoughNothingHoldsIt() {
        // Under LOWEST: free() never picks here, so only this test hands these ports out.
        List<Range> range = List.of(new Range(10000, 11000));
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

            assertThat(LoopbackPorts.free(List.of(range))).isIn(released);
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }

    @Test
    void withNoRoomOutsideTheEphemeralRangeTheKernelPicks() {
        Range ephemeral = LoopbackPorts.ephemeral();

        assertThat(LoopbackPorts.free(List.of())).isBetween(ephemeral.low(), ephemeral.high() - 1);
    }
}
