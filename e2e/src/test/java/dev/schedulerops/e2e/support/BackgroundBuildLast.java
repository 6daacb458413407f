package dev.schedulerops.e2e.support;

import java.util.Arrays;
import java.util.Comparator;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.Tag;

/**
 * The e2e module's class order (junit-platform.properties): the classes tagged {@value BackgroundBuild#TAG} after
 * the others, each group in the order the classes were found. On a fresh machine those classes wait for what
 * {@code ./test} still builds in the background; the rest of their tier runs meanwhile.
 */
public final class BackgroundBuildLast implements ClassOrderer {
    @Override
    public void orderClasses(ClassOrdererContext context) {
        // List.sort is stable: within each group the order stays the one the classes were found in.
        context.getClassDescriptors().sort(Comparator.comparing(BackgroundBuildLast::needsBackgroundBuild));
    }

    static boolean needsBackgroundBuild(ClassDescriptor descriptor) {
        return Arrays.stream(descriptor.getTestClass().getAnnotationsByType(Tag.class))
                .anyMatch(tag -> tag.value().equals(BackgroundBuild.TAG));
    }
}
