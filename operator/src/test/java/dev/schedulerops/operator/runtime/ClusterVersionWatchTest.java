package dev.schedulerops.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterVersionWatchTest {

    @Test
    void onlyAChangedVersionIsReportedAndAFailedReadIsTriedAgain() {
        Deque<Object> answers = new ArrayDeque<>(
                List.of("1.33.13", "1.33.13", new IllegalStateException("connection refused"), "1.34.2", "1.34.2"));
        List<String> changes = new ArrayList<>();
        ClusterVersionWatch watch = new ClusterVersionWatch(
                "1.33.13",
                () -> {
                    Object next = answers.pop();
                    if (next instanceof RuntimeException e) {
                        throw e;
                    }
                    return (String) next;
                },
                changes::add);

        for (int i = 0; i < 5; i++) {
            watch.check();
        }

        assertThat(changes).containsExactly("1.34.2");
        assertThat(watch.known()).isEqualTo("1.34.2");
    }
}
