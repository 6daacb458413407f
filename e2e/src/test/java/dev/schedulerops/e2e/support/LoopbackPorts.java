package dev.schedulerops.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free TCP ports on 127.0.0.1 for the processes tests start. A port is handed out once per test JVM: a process that
 * binds its port only some time after it starts (Flux's source-controller binds its artifact server after its
 * manager has started) would otherwise have it taken by the next process, given the same port as still free; in
 * one CI run kustomize-controller's health server took source-controller's artifact port that way, and no
 * Kustomization ever became Ready.
 */
public final class LoopbackPorts {
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private LoopbackPorts() {}

    public static int free() {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = anyFree();
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no loopback port that this JVM has not handed out already");
    }

    private static int anyFree() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
