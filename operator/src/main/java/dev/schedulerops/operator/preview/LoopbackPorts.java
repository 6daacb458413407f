package dev.schedulerops.operator.preview;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * Free TCP ports on 127.0.0.1 for processes started on this machine (a local sandbox's components, the tests'
 * servers), which bind them some time after they are picked. In that time a port picked by binding port 0 can be
 * taken by another process given it as free too, or by the local end of an outgoing connection: the kernel takes both
 * from its ephemeral range ({@code ip_local_port_range}). So a port is picked outside that range, from
 * [{@link #LOWEST}, {@link #CEILING}) (under kwokctl's ports, which count down from 32766, and Kubernetes' NodePorts),
 * and handed out once per JVM.
 */
public final class LoopbackPorts {
    static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** Linux's default ephemeral range, when /proc cannot say. */
    private static final Range LINUX_DEFAULT_EPHEMERAL = new Range(32768, 61000);

    static final int LOWEST = 20000;
    static final int CEILING = 30000;
    /** Fewer ports than this outside the ephemeral range: the kernel's pick instead. */
    private static final int ENOUGH = 1000;

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    /** Ports from {@code low} up to, not including, {@code high}. */
    record Range(int low, int high) {
        int size() {
            return high - low;
        }
    }

    private LoopbackPorts() {}

    /** A port nothing listens on now, outside the ephemeral range, that this JVM has not handed out before. */
    public static int free() {
        return free(candidate(ephemeral()));
    }

    /** Where to pick: under the ceiling and the ephemeral range, else above that range; empty when neither has room. */
    static Optional<Range> candidate(Range ephemeral) {
        Range below = new Range(LOWEST, Math.min(CEILING, ephemeral.low()));
        Range above = new Range(Math.max(ephemeral.high(), LOWEST), 65536);
        return Stream.of(below, above).filter(r -> r.size() >= ENOUGH).findFirst();
    }

    /**
     * A port of the range, tried in turn from a random one so that JVMs started together rarely try the same ports;
     * with no range, the kernel's pick (inside its ephemeral range: the race is back, but nothing better is).
     */
    static int free(Optional<Range> candidate) {
        if (candidate.isEmpty()) {
            for (int attempt = 0; attempt < 1000; attempt++) {
                int port = kernelPick();
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            }
        } else {
            Range range = candidate.get();
            int start = ThreadLocalRandom.current().nextInt(range.size());
            for (int i = 0; i < range.size(); i++) {
                int port = range.low() + (start + i) % range.size();
                if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
                    return port;
                }
            }
        }
        throw new IllegalStateException("no free loopback port that this JVM has not handed out already");
    }

    /** The ephemeral range as {@code ip_local_port_range} gives it ("low high", both included); empty if unreadable. */
    static Optional<Range> read(Path file) {
        try {
            // Not Files.readString: a /proc/sys file reads as size 0, so it reads one byte, then the kernel answers
            // nothing.
            String[] bounds = Files.readAllLines(file).get(0).trim().split("\\s+");
            return Optional.of(new Range(Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1]) + 1));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static Range ephemeral() {
        return read(EPHEMERAL_RANGE).orElse(LINUX_DEFAULT_EPHEMERAL);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int kernelPick() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
