package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxFilesTest {
    /** A work directory kept from an earlier run (--keep-work-dir) brought its etcd data, and its Nodes, back. */
    @Test
    void aSandboxStartsFromAnEmptyEtcdInAReusedWorkDirectory(@TempDir Path dir) throws Exception {
        SandboxLayout layout = SandboxLayout.local(dir, List.of("current"), LoopbackPorts::free);
        SandboxFiles.writeControlPlane(layout);
        Path earlier = Files.createDirectories(layout.etcdData().resolve("member/snap"))
                .resolve("db");
        Files.writeString(earlier, "an earlier sandbox's objects");

        SandboxFiles.writeControlPlane(layout);

        assertThat(earlier).doesNotExist();
        assertThat(layout.etcdData()).isEmptyDirectory();
    }
}
