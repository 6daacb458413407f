package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.operator.render.DesiredState;
import dev.schedulerops.operator.render.ProfileRenderer;
import dev.schedulerops.operator.render.RenderResult;
import dev.schedulerops.operator.render.Samples;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind the renderer produces is declared once in {@link OwnedKind}: watched, applied and torn down. */
class OwnedKindTest {

    static List<Path> samples() {
        return Samples.files();
    }

    private static DesiredState render(Path sample) {
        RenderResult result = ProfileRenderer.render(Samples.load(sample), Samples.FACTS);
        assertThat(result).as(sample.toString()).isInstanceOf(RenderResult.Valid.class);
        return ((RenderResult.Valid) result).state();
    }

    @ParameterizedTest
    @MethodSource("samples")
    void everyRenderedKindIsDeclaredWithItsScopeAndStage(Path sample) {
        DesiredState state = render(sample);
        for (HasMetadata object : state.extenderStage()) {
            assertDeclared(object, OwnedKind.Stage.EXTENDER);
        }
        for (HasMetadata object : state.schedulerStage()) {
            assertDeclared(object, OwnedKind.Stage.SCHEDULER);
        }
    }

    private static void assertDeclared(HasMetadata object, OwnedKind.Stage stage) {
        OwnedKind kind = OwnedKind.of(object);
        assertThat(kind.stages()).as(object.getKind()).contains(stage);
        assertThat(object.getMetadata().getNamespace() == null)
                .as(object.getKind() + " " + object.getMetadata().getName() + " cluster-scoped")
                .isEqualTo(kind.scope() == OwnedKind.Scope.CLUSTER);
    }

    @ParameterizedTest
    @MethodSource("samples")
    void everyRenderedKindIsWatched(Path sample) {
        for (HasMetadata object : render(sample).all()) {
            assertThat(OwnedInformers.watchedTypes()).as(object.getKind()).contains(object.getClass());
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void everyRenderedObjectIsTornDownInReverseRolloutOrder(Path sample) {
        DesiredState state = render(sample);
        List<List<ProfileTeardown.Selector>> steps = ProfileTeardown.steps(Samples.FACTS.workloadNamespace());
        Map<String, Integer> expectedStep = new java.util.LinkedHashMap<>();
        for (HasMetadata object : state.all()) {
            List<Integer> selecting = IntStream.range(0, steps.size())
                    .filter(i -> steps.get(i).stream().anyMatch(s -> s.selects(object)))
                    .boxed()
                    .toList();
            String id = object.getKind() + " " + ResourceApplier.qualifiedName(object);
            assertThat(selecting).as(id + " is deleted by some teardown step").isNotEmpty();
            expectedStep.put(id, selecting.get(0));
        }
        List<String> failures = new ArrayList<>();
        for (HasMetadata object : state.all()) {
            String id = object.getKind() + " " + ResourceApplier.qualifiedName(object);
            int step = expectedStep.get(id);
            boolean outsideNamespace = !Samples.FACTS
                    .workloadNamespace()
                    .equals(object.getMetadata().getNamespace());
            int expected = state.schedulerStage().contains(object) ? 0 : outsideNamespace ? 2 : 1;
            if (step != expected) {
                failures.add(id + " is deleted in step " + step + ", expected " + expected);
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void anUndeclaredKindIsRefusedByName() {
        var pod = new PodBuilder().withNewMetadata().withName("p").endMetadata().build();
        assertThatThrownBy(() -> OwnedKind.of(pod))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Pod is not an owned kind");
    }
}
