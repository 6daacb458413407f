package dev.schedulerops.e2e.support;

import java.util.Comparator;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The e2e module's class order (junit-platform.properties): the classes that wait for the background build
 * ({@link AwaitsBackgroundBuild}) after the others, by their stage in build order; otherwise in the order the classes
 * were found. On a fresh machine the rest of their tier runs while {@code ./test} still builds, and a class whose
 * stage is built does not wait behind one whose stage is not.
 */
public final class BackgroundBuildLast implements ClassOrderer {
    @Override
    public void orderClasses(ClassOrdererContext context) {
        // List.sort is stable: within each group the order stays the one the classes were found in.
        context.getClassDescriptors().sort(Comparator.comparingInt(BackgroundBuildLast::rank));
    }

    /** -1 for a class that does not wait, else its stage's place in {@link BackgroundBuild#STAGES}. */
    static int rank(ClassDescriptor descriptor) {
        return descriptor
                .findAnnotation(AwaitsBackgroundBuild.class)
                .map(awaits -> {
                    int stage = BackgroundBuild.STAGES.indexOf(awaits.value());
                    if (stage < 0) {
                        throw new IllegalArgumentException(
                                descriptor.getTestClass().getName() + " awaits "
                                        + awaits.value() + ", which is not a background-build stage: "
                                        + BackgroundBuild.STAGES);
                    }
                    return stage;
                })
                .orElse(-1);
    }
}
