package dev.schedulerops.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.api.PreviewStatus;
import dev.schedulerops.operator.api.SchedulerProfilePreview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code explain pod}'s receipt, asked as the kubectl plugin asks it: one request, its answer, the request gone. */
@EnableKubernetesMockClient(crud = true)
class ReceiptRequestTest {
    KubernetesClient client;

    /** An operator that answers the first request it sees with {@code phase} and {@code report}. */
    private CompletableFuture<SchedulerProfilePreview> answer(String phase, String report, String message) {
        return CompletableFuture.supplyAsync(() -> {
            var previews = client.resources(SchedulerProfilePreview.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (previews.list().getItems().isEmpty() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            SchedulerProfilePreview request = previews.list().getItems().get(0);
            PreviewStatus status = new PreviewStatus();
            status.setPhase(phase);
            status.setReport(report);
            status.setMessage(message);
            request.setStatus(status);
            previews.resource(request).updateStatus();
            return request;
        });
    }

    @Test
    void theReceiptIsTheOperatorsReportAndTheRequestIsDeleted() throws Exception {
        CompletableFuture<SchedulerProfilePreview> operator =
                answer(PreviewStatus.SUCCEEDED, "Receipt for pod a/p", null);
        String receipt = ReceiptRequest.ask(client, "a", "p", "lp", Duration.ofSeconds(60), Duration.ofSeconds(10));
        assertThat(receipt).isEqualTo("Receipt for pod a/p");
        SchedulerProfilePreview asked = operator.get(10, TimeUnit.SECONDS);
        assertThat(asked.getSpec().getExplain().getNamespace()).isEqualTo("a");
        assertThat(asked.getSpec().getExplain().getName()).isEqualTo("p");
        assertThat(asked.getSpec().getExplain().getProfile()).isEqualTo("lp");
        assertThat(asked.getSpec().getTimeoutSeconds()).isEqualTo(60);
        assertThat(client.resources(SchedulerProfilePreview.class).list().getItems())
                .isEmpty();
    }

    @Test
    void aFailureSaysWhy() {
        answer(PreviewStatus.FAILED, null, "timed out after 60 s");
        assertThat(ReceiptRequest.ask(client, "a", "p", "lp", Duration.ofSeconds(60), Duration.ofSeconds(10)))
                .isEqualTo("none: the sandbox failed: timed out after 60 s");
        assertThat(client.resources(SchedulerProfilePreview.class).list().getItems())
                .isEmpty();
    }

    @Test
    void withoutAnOperatorItSaysPreviewsAreOff() {
        assertThat(ReceiptRequest.ask(client, "a", "p", "lp", Duration.ofSeconds(60), Duration.ofMillis(300)))
                .startsWith("none: no operator answered")
                .contains("deploy/previews");
        assertThat(client.resources(SchedulerProfilePreview.class).list().getItems())
                .isEmpty();
    }
}
