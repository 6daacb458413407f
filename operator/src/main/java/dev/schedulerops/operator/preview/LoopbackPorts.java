package dev.schedulerops.operator.preview;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on 127.0.0.1 for processes started on this machine (a local sandbox's components, the tests'
 * servers), which bind them some time after they are picked. Two things can take a picked port in that time, and both
 * have: another process given the same port as still free (kustomize-controller took source-controller's artifact
 * port), and the local end of an outgoing connection (a local sandbox's extender, a JVM that binds about two seconds
 * after it starts, found its port taken while kube-apiserver was opening its connections to etcd). So a port is
 * handed out once per JVM, and it is picked below the kernel's ephemeral range ({@code ip_local_port_range}), where
 * outgoing connections never take their local ports, rather than by binding port 0, which picks inside it.
 */
public final class LoopbackPorts {
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LINUX_DEFAULT_EPHEMERAL_LOW = 32768;
    /** Below the ports well-known servers use, so a picked port rarely collides with a service of the machine. */
    static final int LOWEST = 20000;

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private LoopbackPorts() {}

    /** A port nothing listens on now, below the ephemeral range, that this JVM has not handed out before. */
    public static int free() {
        return free(LOWEST, ephemeralLow());
    }

    /**
     * A port in [{@code lowest}, {@code ephemeralLow}), tried in turn from a random one so that JVMs started together
     * rarely try the same ports; the kernel's pick when that range is too small.
     */
    static int free(int lowest, int ephemeralLow) {
        int size = ephemeralLow - lowest;
        if (size < 1000) {
            // An ephemeral range reaching this low leaves no room below it: the kernel's own pick, inside the range.
            for (int attempt = 0; attempt < 1000; attempt++) {
                int port = kernelPick();
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            }
        } else {
            int start = ThreadLocalRandom.current().nextInt(size);
            for (int i = 0; i < size; i++) {
                int port = lowest + (start + i) % size;
                if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
                    return port;
                }
            }
        }
        throw new IllegalStateException("no free loopback port that this JVM has not handed out already");
    }

    static int ephemeralLow() {
        try {
            // Not Files.readString: a /proc/sys file reads as size 0, so it reads one byte, then the kernel answers
            // nothing.
            return Integer.parseInt(
                    Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return LINUX_DEFAULT_EPHEMERAL_LOW;
        }
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
