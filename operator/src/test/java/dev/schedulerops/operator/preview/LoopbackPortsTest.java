package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
    @Test
    void portsArePickedBelowTheEphemeralRangeWhereOutgoingConnectionsNeverTakeThem() {
        int ephemeralLow = LoopbackPorts.ephemeralLow();

        for (int i = 0; i < 50; i++) {
            assertThat(LoopbackPorts.free()).isBetween(LoopbackPorts.LOWEST, ephemeralLow - 1);
        }
    }

    @Test
    void aPortIsHandedOutOncePerJvmEvenAfterItsHolderClosedIt() {
        int lowest = LoopbackPorts.LOWEST + 1000;
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            assertThat(seen.add(LoopbackPorts.free(lowest, lowest + 1000))).isTrue();
        }
    }

    @Test
    void aPortSomethingListensOnIsNeverHandedOut() throws IOException {
        int lowest = LoopbackPorts.LOWEST + 5000;
        int ephemeralLow = lowest + 1000;
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int port = lowest; port < ephemeralLow; port++) {
                try {
                    held.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
                } catch (IOException takenAlready) {
                    // held by another process: not free either
                }
            }
            ServerSocket released = held.remove(held.size() - 1);
            released.close();

            assertThat(LoopbackPorts.free(lowest, ephemeralLow)).isEqualTo(released.getLocalPort());
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }

    @Test
    void anEphemeralRangeLeavingNoRoomBelowItFallsBackToTheKernelsPick() {
        assertThat(LoopbackPorts.free(LoopbackPorts.LOWEST, LoopbackPorts.LOWEST + 10))
                .isGreaterThanOrEqualTo(LoopbackPorts.LOWEST + 10);
    }
}
