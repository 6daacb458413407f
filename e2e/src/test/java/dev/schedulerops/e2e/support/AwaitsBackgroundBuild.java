package dev.schedulerops.e2e.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that waits for {@code ./test}'s background build ({@link BackgroundBuild}): it carries the tag
 * {@value BackgroundBuild#TAG} and runs after the classes that do not wait, ordered by the stage it names
 * ({@link BackgroundBuildLast}), so that on a fresh machine the classes whose stage is built run while later stages
 * are still building.
 */
@Target(ElementType.TYPE)
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Tag(BackgroundBuild.TAG)
public @interface AwaitsBackgroundBuild {
    /** The last stage, in {@link BackgroundBuild#STAGES} order, whose output the class uses. */
    String value();
}
