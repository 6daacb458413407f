package dev.schedulerops.extender.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.extender.bind.BindResult;
import dev.schedulerops.extender.fuzz.FuzzReport;
import dev.schedulerops.extender.nodecache.StaticNodeCache;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Found by the HTTP fuzzer's Content-Length lies: the body array was allocated at the declared length before any byte
 * arrived, so each connection that declared 64 MiB (the default limit) and then stalled held 64 MiB; a few dozen such
 * connections exhausted the extender's 512 MiB container. Memory must follow the bytes actually sent.
 */
class SlowSenderMemoryTest {
    private static final int LIMIT = 64 * 1024 * 1024;
    private static final int CONNECTIONS = 24;

    @Test
    void stalledSendersThatDeclareHugeBodiesHoldNoMemoryForThem() throws Exception {
        ExtenderMetrics metrics = new ExtenderMetrics();
        List<Socket> sockets = new ArrayList<>();
        try (ExtenderServer server = TestServers.plainHttp(
                new ExtenderVerbs("k", new StaticNodeCache(), args -> BindResult.bound()), LIMIT, metrics)) {
            long before = FuzzReport.liveHeap();
            for (int i = 0; i < CONNECTIONS; i++) {
                Socket socket = new Socket("127.0.0.1", server.port());
                socket.setSoTimeout(10_000);
                sockets.add(socket);
                socket.getOutputStream()
                        .write(("POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                        + "Content-Length: " + (LIMIT - 1) + "\r\n\r\n{\"Pod\":")
                                .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
            }
            Thread.sleep(1000); // every request is in the handler, waiting for the rest of its body
            long during = FuzzReport.liveHeap();

            assertThat((during - before) / FuzzReport.MIB)
                    .as("MiB held for %d stalled requests that declared %d MiB each", CONNECTIONS, LIMIT >> 20)
                    .isLessThan(CONNECTIONS * 2L);

            for (Socket socket : sockets) {
                socket.shutdownOutput();
                InputStream in = socket.getInputStream();
                String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertThat(answer).startsWith("HTTP/1.1 400").contains("could not read the request body");
            }
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
        assertThat(TestServers.serverErrors(metrics)).isZero();
    }
}
